"""What a person can do from a step's page, in two fixed sections, always in this order and with these titles
whatever the step's state (node.html): "Resume here" (RESUME_HERE) carries the step's branch on from this step
(resume the agent, resend a refused step, reply to a confirmation), "Branch from here" (BRANCH_FROM_HERE)
starts a new branch that redoes it (the message whose answer branches, or the fork form with edited context).
Only the one line under each title changes with the state (friction22a B1, 22b A1: "Redo this step on a new
branch", "Restart this step…", "Your reply", "Want it back?" and "Agent stopped?" read as five features; the
vocabulary is docs/dashboard.md's). A done step the run went on from shows no "Resume here", only one line in
the page's head saying where the run is now (`now_at`, linking its latest step); a step with no possible
action (the end of a finished branch, a canceled run) shows neither section, a canceled run's step saying why
in one line.

friction15: every state whose move is the person's has a control, and a section is shown only where its
action exists. A step waiting for the person's confirmation gives the two replies to paste into the agent's
chat (agent_message.replies: the dashboard cannot confirm by itself), under the same words and folds as the
run page's waiting panel (friction22b A9). The branch section names its two ways apart by their outcome
(actions.py: "Redo with the same inputs", "Redo with new inputs"), under one lead line and the step's
inputs, when each records the branch said once under "How branching works" (friction24a 7, 24b 13/15).

friction16: the message's button is as loud as the move is the person's (`weight`, from states.weight): solid
and in sight where resuming is theirs (stalled, paused, a refusal whose agent stopped), the quiet outline on a
branch left behind, its line saying what resuming does: friction19b 15's fold there is now that quiet button
and line (friction22a B3). While the move is the agent's (it works on the step, or is to resend a refused one),
the message waits behind a closed fold (`folded`): "Resume here" is then a card of its own, in the same place and
under the same title as in every state, collapsed to that fold, whose summary reads "Resume here · only if the
agent stopped" (friction25a 4, 25b 2: the bare muted line of friction24a 12 floated between cards as a footnote;
friction23a A6, 23b 6: an open copy button beside "Agent working on this step" invited a second agent). A
refused step's message is "Resume here"'s, right under the refusal (one entry per page: the refusal's panel on
this page holds none).

Issue 32: one order in every state: "Resume here" right under the step's status, before the prompt, "Branch from
here" after the step's answer. While the agent has the move, "Resume here" is a quiet fold (small and grey, not a
section heading: it read as the page's main action). "Branch from here" is one quiet closed fold in every state,
its one line (`branch_lead`) in its summary: when to use it (friction62a 6: a fold on some pages, a card on others;
a card offered it "too easily" on a step the agent still works on, friction59a 9).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

from runs.contract.dashboard import BranchOutcomeEntry, NodeDetail
from runs.models import Node
from runs.readmodels import actions, agent_message, attention, clock, listing, states, step_places
from runs.readmodels.actions import ActionName, Weight
from runs.readmodels.step_state import StepState

RESUME_HERE = actions.section("resume")
# friction19b 8, 19a 9: the title says what a branch from here is, and its two parallel buttons each name what
# you do, the line under each when the branch is recorded; friction22a B1, 22b A1: one verb, "branch", in the
# title, the buttons and the warning.
BRANCH_FROM_HERE = actions.section("branch")
# friction24a 7, 24b 13/15: the section was the densest block on the site, repeated on every step page. Now one
# lead line naming the outcome, in the same words on every page (`branch_lead`), the step's inputs in one line
# beside it (fork_form.ForkForm.inputs), the two buttons named by outcome (actions.py: fork, branch), and the
# mechanics under one closed fold, "How branching works" (`branch_how`). friction24a 8: no rule of which branch
# the run page shows; the person needs none of it to act.
# friction25a 1, 25b 1: the new branch named by its number, and no "this branch is kept" beside a warning that it
# is marked Replaced: what happens to the existing branches is the warning's (branch_warning), said once.
BRANCH_LEAD = "Redo this step as a new branch{new}, with the same or new inputs."
# Where the message way is not offered (the branch is still at this step: redoing it as it was is resuming it).
BRANCH_LEAD_CHANGED = "Redo this step as a new branch{new}, with new inputs."
# At a refusal, what branching is for there, before the same words.
PAST_REFUSAL = "Another way past the refusal:"
# Beside a confirmation, why branch rather than reply (friction62a 6: it was unclear why one would): the replies
# ask the agent to go on or to change its work; a branch starts the step over with other inputs.
NOT_A_REPLY = "Not a reply:"
HOW_BRANCHING = "How branching works"
# The fold's lines: what inputs are, then when each way records the branch.
INPUTS_ARE = "The inputs are the step's context: the values the workflow gave the agent for it."
SAME_CONTEXT = (
    "Redo with the same inputs: copy the message into an agent's chat; nothing is recorded until it answers this "
    "step again, and its answer starts the branch."
)
EDITED_CONTEXT = (
    "{redo}: nothing is recorded until you confirm a preview of the change; then this page gives the message that "
    "sets an agent going on the new branch."
)
ONLY_EDITED = "This branch is still at this step: going on with the same inputs is resuming it, not branching."
# A branch left behind's step: "Resume here"'s line (friction17b 12: subject first, short), its outcome set apart
# from branching's (friction24b 14: both sections showed without saying how they differ); where an agent works
# elsewhere, which chat takes the message after it (attention.resuming_left_behind).
# With an agent at work elsewhere: how a redo's outcome differs from resuming's (branch_warning says it in full).
# friction27a 2, 27b 3: "would replace branch 2" under "Redo this step as a new branch (branch 3)" read as opposites:
# both happen, so the line says both, in the redo warning's words.
REDO_INSTEAD = "A redo below would start branch {new} instead, and mark {names} Replaced."
LEFT_BEHIND_LEAD = "No agent works on this branch. Resuming continues branch {number} from this step, as it was."
# While the agent works on the step: the summary of the fold the message waits behind, the run page's words for
# a refused step's (attention.blocked_guide), so the two pages say it alike (friction23a A6).
# friction25a 4, 25b 2: a card of its own, titled as in every state, collapsed to one line: "Resume here · only if
# the agent stopped", the summary of the fold holding the message (and, at a refusal, when the move turns yours).
IF_STOPPED = "only if the agent stopped"
# A refused step whose agent stopped: what its message does (the refusal above says why it is the person's move).
# Which chat takes it is the line under its button, said once (friction28b 1), here and below.
RESEND = "The message gives the agent the step again, to resend it."
# A refused step waiting for something only the person can give (told in the refusal above): when the message is for.
IF_STOPPED_RESEND = "Only if the agent stopped: the message gives it the step again."
# friction28b 16: a panel that stacked three consequence sentences before its button leads with the action; a
# consequence about the other section (a redo's, which its own warning says in full beside its last button) is
# under this quiet fold (`what_happens`). What the person must see before resuming stays in sight (`then`).
WHAT_HAPPENS = "What happens"
# A canceled run's step: its head's one line, where the sections would be.
CANCELED = "nothing can resume or branch from a canceled run"


@dataclass(frozen=True)
class StepActions:
    # "Resume here"'s action ("resume", "confirm"); None when nothing carries the branch on from here.
    resume: ActionName | None = None
    lead: str = ""  # "Resume here"'s one line: how the action goes
    # Where the run is now (its latest step's node id and words), for a done step the run went on from: one muted
    # line in the page's head instead of a "Resume here" section ("the run is now at step 3 of 5 →").
    latest: str = ""
    message: bool = False  # "Resume here" holds the message for the agent, behind its copy button
    handed_over: bool = False  # the branch was started by hand here: the message is the hand-over of its call
    fork_message: bool = False  # "Branch from here" holds the message whose answer starts a new branch from this step
    branch_lead: str = ""  # "Branch from here"'s one line
    weight: Weight = "primary"  # how loud the message's button is: whose move it is (states.weight)
    replies: agent_message.Replies | None = None  # the step waits for the person's confirmation: the two replies
    # A stalled step: since when nothing was recorded, as the run page's "stalled for 45 min" (friction61b 13: the
    # step page said only "Stalled"); its title says how long, as a confirmation's says "waiting for …".
    stalled_since: datetime | None = None
    now_at: str = ""  # the head's line (a done step the run went on from, a canceled run's step)
    # A step waiting for the person's confirmation: the agent's latest notes, what it asks them to approve
    # (markdown), and the step (or "Checkpoint") they were recorded at; "" when it recorded none.
    to_approve: str = ""
    to_approve_from: str = ""
    # "Branch from here"'s warning line, in a warning style: the branches whose agents are at work, which the new
    # branch replaces (branch_warning).
    branch_warning: str = ""
    # The same for the message way ("Redo with the same inputs"): its branch starts only when an agent answers the
    # step again, which is a rewind, so the branches at work read Left behind, not Replaced (message_warning).
    message_warning: str = ""
    # "How branching works"'s lines, under one closed fold: what inputs are, when each way records the branch.
    branch_how: tuple[str, ...] = ()
    # A step waiting for the person's confirmation: the run page's waiting panel's "Why" (friction22b A9).
    why: str = ""
    # The move is the agent's (it works on the step, or is to resend a refused one): the message waits behind a
    # closed fold, its summary the section's one line (friction23a A6, 23b 6).
    folded: bool = False
    # A branch left behind: what resuming it does, in short lines, each on its own under `lead`
    # (attention.resuming_left_behind; friction23b 7).
    then: tuple[str, ...] = ()
    # The message is for a new chat, as `then` says (a branch left behind while another branch's agent works):
    # no line naming the chat that started the run under its button (friction27a 2).
    new_chat: bool = False
    # What a redo below would do instead of resuming, under the quiet "What happens" fold (friction28b 16).
    what_happens: tuple[str, ...] = ()
    # The step's inputs, each (key, its value as the form's row shows it, cut short), the keys a branch cannot
    # change aside (fork_form.ForkForm.inputs): a small key/value list, not "key=value" text (friction28a 10);
    # empty, "none", and the redo adds inputs rather than change them (friction28b 13).
    inputs: tuple[tuple[str, str], ...] = ()

    @property
    def shown(self) -> bool:
        return bool(self.branch_lead)

    @property
    def resume_shown(self) -> bool:
        """Whether "Resume here" is shown: only where something resumes from this step."""
        return self.resume is not None

    # A refused step: "Resume here" holds the refusal's message, right under the refusal.
    refused: bool = False
    # A branch started by hand: its hand-over's to-dos, in order (handover_steps; friction25a 5).
    handover: tuple[str, ...] = ()

    @property
    def redo_title(self) -> str:
        """ "Branch from here"'s form's name, "Redo with new inputs", with inputs to change or none."""
        return actions.redo_title()

    @property
    def title(self) -> str:
        """The section's title: "Resume here" in every state (friction22a B1: only the line under it changes)
        but a step waiting for the person's confirmation, "Your confirmation" (friction23a A3, 23b 1)."""
        return actions.section("confirm") if self.resume == "confirm" else RESUME_HERE

    @property
    def leads_page(self) -> bool:
        """The section comes first on the page, before the prompt, wherever it is shown: one order for every
        state (issue 32: on a branch left behind it came after the prompt and the answer, first elsewhere, and
        read as "lower"). How loud it is follows whose move it is (`folded`: a quiet fold while the agent's)."""
        return self.resume_shown


NONE = StepActions()


def of_step(
    node: NodeDetail,
    step: StepState,
    went_on: list[BranchOutcomeEntry],
    at_work: bool,
    inputs: tuple[tuple[str, str], ...] = (),
) -> StepActions:
    """The two sections' content for this step: `went_on` the branches that went on past it (step_state),
    `at_work` whether the agent works on it now (its move, or it waits in its chat for the person), `inputs` the
    step's inputs as the fork form lists them (fork_form.ForkForm.inputs; the keys a branch cannot change are the
    execution layer's, above this one)."""
    if node.run.status == "canceled":
        return StepActions(now_at=CANCELED)
    if node.is_complete:
        return NONE
    # friction24a 7, 24b 14: one lead line, its outcome, the same on every page; at a refusal, why it is offered.
    same = node.blocked is None and bool(node.branches)  # the message way is offered (_of_step: fork_message)
    # The new branch's number: the next after the run's branches (branches are numbered in the order they start).
    redo = actions.redo_title()
    lead = (BRANCH_LEAD if same else BRANCH_LEAD_CHANGED).format(new=f" (branch {node.run.branch_count + 1})")
    before = PAST_REFUSAL if node.blocked is not None else NOT_A_REPLY if step.state == "needs_you" else ""
    branch_lead = f"{before} {lead[:1].lower()}{lead[1:]}" if before else lead
    # The run's other branches an agent works on, read once for the warning and a branch left behind's line.
    elsewhere = _at_work_elsewhere(node, step)
    found = _of_step(node, step, went_on, at_work, branch_lead, elsewhere)
    if not found.shown:
        return found
    how = (INPUTS_ARE, SAME_CONTEXT if same else ONLY_EDITED, EDITED_CONTEXT.format(redo=redo))
    return replace(
        found,
        inputs=inputs,
        branch_warning=branch_warning(node, step, at_work, elsewhere),
        message_warning=branch_warning(node, step, at_work, elsewhere, by_hand=False),
        branch_how=how,
    )


def _of_step(
    node: NodeDetail,
    step: StepState,
    went_on: list[BranchOutcomeEntry],
    at_work: bool,
    branch_lead: str,
    elsewhere: list[BranchOutcomeEntry],
) -> StepActions:
    if node.blocked is not None:
        # The refusal's message, as loud as the move is the person's (attention.blocked_guide); the refusal's
        # panel on this page holds none (friction16: one entry per page). While the agent is to resend, the line
        # is the panel's clock ("only if the agent stopped … your move in 29 min"), printed by the template.
        weight = states.weight(attention.move_of_blocked(node.blocked, clock.stall_cutoff()))
        folded = weight != "primary" and node.blocked.whose_move != "user"
        lead = RESEND if weight == "primary" else IF_STOPPED if folded else IF_STOPPED_RESEND
        return StepActions(
            resume="resume",
            lead=lead,
            message=True,
            branch_lead=branch_lead,
            weight=weight,
            refused=True,
            folded=folded,
        )
    if node.branches:
        # The run went on from this step: the branch carries on at its latest step, not here (no "Resume here");
        # acknowledging this step's token again starts a new branch (actions.py: fork).
        carrying = went_on or ([step.waiting_on] if step.waiting_on is not None else [])
        # Its branch still at this very step (a checkpoint saved during it, or a hand-started branch at its latest
        # step): "branch 1 is now at" would name, and link, this page's own step (friction62b 3).
        if not went_on:
            carrying = []
        latest = _latest(carrying)
        return StepActions(
            latest=latest,
            fork_message=True,
            branch_lead=branch_lead,
            now_at=_now_at(carrying, node.run.branch_count > 1, latest),
        )
    if step.state == "needs_you":
        # The agent waits in its chat for the person's word: what to decide, the notes to approve, the two replies,
        # and "Why", as the run page's waiting panel (friction22b A9: no message here that the run page lacks).
        pk = Node.objects.filter(public_id=int(node.node_id)).values_list("pk", flat=True).first()
        notes = attention.latest_notes(pk) if pk is not None else None
        return StepActions(
            resume="confirm",
            lead=attention.waiting_words(node.title),
            branch_lead=branch_lead,
            replies=agent_message.replies(node.title),
            why=attention.WAITING_WHY,
            to_approve=notes.entry["notesMarkdown"] if notes else "",
            to_approve_from=notes.entry["title"] if notes else "",
        )
    if node.operator_fork is not None:
        return StepActions(
            resume="resume",
            message=True,
            handed_over=True,
            branch_lead=branch_lead,
            handover=handover_steps(node, step),
        )
    if at_work:
        # The page's working line says the agent is on it; the message waits folded, its summary when it is for.
        return StepActions(
            resume="resume",
            lead=IF_STOPPED,
            message=True,
            branch_lead=branch_lead,
            weight=states.weight("agents"),
            folded=True,
        )
    if step.state == "left_behind":
        # The lead says what resuming does; with an agent at work elsewhere, which chat takes the message.
        beside = [o.number for o in elsewhere]
        then = attention.resuming_left_behind(beside, "this step") if elsewhere else ()
        instead: tuple[str, ...] = ()
        if beside:
            # friction26a 3, 26b 1: why a redo below differs, in one short line (branch_warning says it in full);
            # friction28b 16: under "What happens", not a third sentence before the button.
            names = listing.joined([str(n) for n in beside])
            named = f"{'branches' if len(beside) > 1 else 'branch'} {names}"
            instead = (REDO_INSTEAD.format(new=node.run.branch_count + 1, names=named),)
        number = step.waiting_on.number if step.waiting_on is not None else 1
        return StepActions(
            resume="resume",
            lead=LEFT_BEHIND_LEAD.format(number=number),
            message=True,
            branch_lead=branch_lead,
            weight=states.weight("nobody"),
            then=then,
            what_happens=instead,
            new_chat=bool(beside),
        )
    lead = "The message sets the agent going again at this step, on this branch."
    since = None
    if step.state == "stalled":
        # The run page's stalled panel asks for a look in the agent's chat before the message; so does its step's
        # page (friction59a 11, 59b 10: without it, a second agent could be set going on a step one still works on).
        lead = f"{attention.STALLED_NEXT} {lead}"
        since = attention.stalled_since(node.run, node.created_at)  # the run page's moment
    return StepActions(
        resume="resume",
        lead=lead,
        message=True,
        branch_lead=branch_lead,
        weight=states.weight("yours"),
        stalled_since=since,
    )


def branch_warning(
    node: NodeDetail, step: StepState, at_work: bool, elsewhere: list[BranchOutcomeEntry], *, by_hand: bool = True
) -> str:
    """What a new branch does to the branches an agent is at work on (working, or waiting in its chat for the
    person's reply): each then reads Replaced (outcomes._set_aside: a branch started by hand sets aside every
    other unfinished branch that moved lately), and the dashboard cannot tell their agents, so the person does.
    Said once, inside each opened redo panel beside its final button (friction26b 7: a standing amber box on
    every step page, before anything was decided), in the words the run page uses after it (friction24b 1).
    One sentence on every step, the cause then the effect, each branch named by its number (friction26a 3, 26b 1:
    on a branch left behind "The new branch replaces branch 2" read as contradicting resuming's "Branch 2 goes on
    too", and "replaces" as deleted): "Branch 3 becomes the run's line of work. Branch 2, where an agent works
    now, is kept in the history and marked Replaced: tell its agent, in its chat, to stop." "" where no agent is
    at work (stalled, paused, left behind: nobody to tell). `elsewhere`: the run's other branches an agent is at
    work on. Not `by_hand`, the message way's: its branch starts when an agent answers the step again, a rewind,
    after which the others read Left behind (outcomes._set_aside sets aside only for a branch started by hand):
    "When an agent answers this step again, branch 3 becomes the run's line of work and branch 2, where an agent
    works now, is left behind: paste the message into its chat, or tell its agent to stop."."""
    own = step.waiting_on.number if at_work and step.waiting_on is not None else None
    numbers = sorted({o.number for o in elsewhere} | ({own} if own is not None else set()))
    if not numbers:
        return ""
    names = listing.joined([str(n) for n in numbers])
    new = node.run.branch_count + 1
    if not by_hand:
        several = len(numbers) > 1
        return (
            f"When an agent answers this step again, branch {new} becomes the run's line of work and "
            + (
                f"branches {names}, where agents work now, are"
                if several
                else f"branch {names}, where an agent works now, is"
            )
            + " left behind: paste the message into "
            + (
                "one of their chats, and tell the other agents to stop."
                if several
                else "its chat, or tell its agent to stop."
            )
        )
    lead = f"Branch {new} becomes the run's line of work."
    if len(numbers) > 1:
        return (
            f"{lead} Branches {names}, where agents work now, are kept in the history and marked Replaced: "
            "tell their agents, in their chats, to stop."
        )
    return (
        f"{lead} Branch {names}, where an agent works now, is kept in the history and marked Replaced: "
        "tell its agent, in its chat, to stop."
    )


def handover_steps(node: NodeDetail, step: StepState) -> tuple[str, ...]:
    """A branch started by hand's to-dos, in order (friction25a 5: two "Your move" items at once, and "its chat"
    did not say whose): first, where the branches it replaced may still have an agent at work (outcomes._set_aside:
    "superseded"), telling them to stop; then the message, which redoes the step on this branch."""
    replaced = replaced_by_hand(node, step)
    this = f" on branch {step.waiting_on.number}" if step.waiting_on is not None else ""
    if not replaced:
        return (f"Paste this message into an agent's chat: it redoes the step{this}.",)
    return (
        f"{attention.stop_replaced(replaced)}.",
        f"Paste this message into a chat (that one or a new one): it redoes the step{this}.",
    )


def replaced_by_hand(node: NodeDetail, step: StepState) -> tuple[int, ...]:
    """The branches a branch started by hand replaced (outcomes._set_aside: "superseded"), whose agents may still
    be at work: the hand-over's first to-do tells them to stop."""
    return tuple(
        sorted(
            {o.number for o in (*node.on_branches, *node.other_branches) if o.state == "superseded"}
            - ({step.waiting_on.number} if step.waiting_on is not None else set())
        )
    )


def _at_work_elsewhere(node: NodeDetail, step: StepState) -> list[BranchOutcomeEntry]:
    """The run's other branches an agent works on: its move, or it waits in its chat for the person's reply."""
    here = step.waiting_on.number if step.waiting_on is not None else None
    cutoff = clock.stall_cutoff()
    return [
        o
        for o in (*node.on_branches, *node.other_branches)
        if o.number != here and (o.state == "needs_you" or attention.move_of_branch(o, cutoff) == "agents")
    ]


def recap_shown(entries: list[Any], actions: StepActions) -> list[Any]:
    """ "Notes so far"'s entries on the step's page, less the one whose notes "Your reply" quotes to review above:
    an entry that only pointed up to them said nothing of its own (friction17b 11); one with artifacts keeps its
    head and their kinds, without the notes. The section goes when it held only that one."""
    if not actions.to_approve:
        return list(entries)
    return [e for e in entries if e.get("notesMarkdown") != actions.to_approve or e.get("artifactKinds")]


def _now_at(went_on: list[BranchOutcomeEntry], several: bool, latest: str) -> str:
    """Where the run is now, after this done step: "the run is now at step 3 of 5" (the branch named where the
    run has several); with several branches through it, that they went on (listed on the page)."""
    if len(went_on) != 1:
        # Several: the "Where it went" card right under the page's head names each branch's next step and where
        # it stands (friction62a 4: "along several branches (listed below)" above a card that listed one next
        # step said it twice, and promised more than it showed).
        return ""
    went = went_on[0]
    who = f"branch {went.number}" if several else "the run"
    if went.status == "complete":
        return f"{who} went on to its end"
    if went.status == "canceled":
        return f"{who} went on, then was canceled"
    return f"{who} is now at {_place_of(latest, went.step_title or '') or 'its latest step'}"


def _place_of(node_id: str, title: str) -> str:
    """A node's step as every row names it, `title` then its place ("Verify slice 3 · round 3 of 3"): the place
    alone ("round 3 of 3") did not say which step it is in (step_places.named); "" where unknown."""
    node = Node.objects.select_related("run").filter(public_id=int(node_id)).first() if node_id else None
    if node is None:
        return title
    return step_places.named(title, step_places.of_nodes({node.pk: node.run}).get(node.pk))


def _latest(went_on: list[BranchOutcomeEntry]) -> str:
    return went_on[0].tip_node_id or "" if len(went_on) == 1 else ""
