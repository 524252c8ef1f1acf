"""The step page's two sections of actions (runs/readmodels/step_actions.py): what "Resume here" holds for each
state of the step, that "Branch from here" is offered wherever a branch can start, and neither where
nothing can be done."""

from __future__ import annotations

from dataclasses import replace

import pytest

from runs.dashboard import fork_form
from runs.models import Node
from runs.readmodels import attention, run_view, step_actions, step_state
from tests.support import attention_sessions as made
from tests.support.branched_review import blocked_review, forked_review, node_id_of

pytestmark = pytest.mark.django_db


def actions_at(node_id: str, *, at_work: bool = False) -> step_actions.StepActions:
    node = run_view.node_detail(node_id)
    step = step_state.of_node(node)
    # The step's inputs as its page lists them (the fork form's: the keys a branch cannot change left out).
    inputs = fork_form.blank(node).inputs
    return step_actions.of_step(node, step, step_state.went_on(node, step), at_work, inputs)


def test_the_pending_step_resumes_the_agent_its_message_for_when_it_stops_while_it_works(service_catalog):
    review = forked_review()
    working = actions_at(review.open_tip, at_work=True)
    assert (working.resume, working.message, working.title) == ("resume", True, "Resume here")
    # The agent's move: the quiet outline, not the page's loudest button (friction16), behind a closed fold whose
    # summary is the run page's words (friction23a A6, 23b 6), not a question (friction22a B1, B3).
    assert working.weight == "quiet" and working.folded
    assert working.lead == "only if the agent stopped"  # the folded card's summary, after its title
    assert (
        working.shown
        and not working.fork_message
        # One lead line, its outcome (friction24a 7); what the new branch does to the one at work, in the words
        # the run page uses after it (friction24b 1: not "it goes on beside the new branch").
        and working.branch_lead == "Redo this step as a new branch (branch 3), with new inputs."
        # friction25a 1, 25b 1: the branch named, no "this branch is kept" beside it, no "will read".
        and working.branch_warning
        == "Branch 3 becomes the run's line of work. Branch 2, where an agent works now, is kept in the history "
        "and marked Replaced: tell its agent, in its chat, to stop."
    )
    # The mechanics under one fold: what inputs are, and why only changed inputs make a branch here.
    edited = step_actions.EDITED_CONTEXT.format(redo="Redo with new inputs")
    assert working.branch_how == (step_actions.INPUTS_ARE, step_actions.ONLY_EDITED, edited)
    assert working.inputs and working.redo_title == "Redo with new inputs"
    assert not any("moved last" in line for line in (working.branch_lead, *working.branch_how, *working.then))
    stopped = actions_at(review.open_tip)
    # Stalled: the person's move, the solid button in sight; no agent at work, no warning.
    assert stopped.weight == "primary" and stopped.lead.startswith("The message sets the agent going")
    assert stopped.branch_lead == working.branch_lead and stopped.branch_warning == ""


def test_a_step_the_run_went_on_from_says_why_and_where_the_branch_carries_on(service_catalog):
    review = forked_review()
    first = actions_at(node_id_of(review.answers[0]))
    # Two branches went on from the shared first step: both named, no one link.
    # No "Resume here" where nothing resumes (friction15): one line in the page's head says where the run is.
    assert first.resume is None and not first.resume_shown and not first.message and first.fork_message
    # friction62a 4: no "along several branches (listed below)": the "Where it went" card under the head says it.
    assert first.now_at == ""
    assert first.latest == ""
    # The message way is offered here: the lead names both, the fold says when each records the branch.
    # The new branch named by its number, the next after the run's two (friction25a 1, 25b 1).
    assert first.branch_lead == "Redo this step as a new branch (branch 3), with the same or new inputs."
    edited = step_actions.EDITED_CONTEXT.format(redo="Redo with new inputs")
    assert first.branch_how == (step_actions.INPUTS_ARE, step_actions.SAME_CONTEXT, edited)
    later = actions_at(node_id_of(review.answers[3]))
    assert not later.resume_shown and later.now_at == "branch 1 went on to its end"
    assert later.latest == review.done_tip


def test_a_blocked_step_s_one_message_is_its_refusal_s_and_it_branches_past_it(service_catalog):
    blocked = actions_at(blocked_review().node_id)
    # One entry per page (friction16), under the title every state has (friction22a B1): "Resume here" holds the
    # refusal's message, right under the refusal (whose panel on the step page holds none).
    assert blocked.resume == "resume" and blocked.resume_shown and blocked.message and not blocked.fork_message
    assert blocked.title == "Resume here" and blocked.refused and blocked.leads_page
    # The agent is to resend it: the quiet outline, its line the panel's clock (printed by the template).
    assert blocked.weight == "quiet" and blocked.folded and blocked.lead == "only if the agent stopped"
    assert blocked.shown
    assert blocked.branch_lead == (
        "Another way past the refusal: redo this step as a new branch (branch 2), with new inputs."
    )
    # Its refusal says there is nothing to do now: "Resume here" is the quiet fold, its title the condition.
    assert blocked.folded


def test_a_step_waiting_for_the_person_says_to_confirm_in_the_agent_s_chat(service_catalog):
    waiting = made.waiting_for_user(service_catalog["extra"])
    confirm = actions_at(node_id_of(waiting.answer), at_work=True)
    # The same help as the run page's waiting panel (friction22b A9): the replies and "Why", no message besides.
    assert confirm.resume == "confirm" and not confirm.message
    assert confirm.why.startswith("The workflow asks you to confirm this step before the agent goes on.")
    assert confirm.lead.endswith("The dashboard cannot talk to it: you confirm by copying a reply below.")
    # The decision leads the page, under "Your confirmation" (friction23a A3, 23b 1: nothing stopped, so not
    # "Resume here"), with the notes the agent asks the person to approve (friction16b 1): the run page's.
    assert confirm.title == "Your confirmation" and confirm.leads_page
    assert confirm.to_approve.strip() and confirm.to_approve_from
    # The two replies are the move.
    assert confirm.replies is not None and confirm.replies.confirmed.startswith("Confirmed: go on with “")
    assert confirm.replies.changes.startswith("Not yet: change … before you go on with “")
    assert confirm.replies.changes_parts[:2] == ("Not yet: change ", "…")  # the blank apart (friction18b 12)
    # A step without inputs: "Inputs now: none", and nothing to change, so the form adds them: "Redo with new
    # inputs", in its name, the lead and the fold alike (friction28b 13); with inputs, the same name (60a 13).
    assert confirm.inputs == () and confirm.redo_title == "Redo with new inputs"
    # Why branch rather than reply, said first (friction62a 6).
    assert confirm.branch_lead == "Not a reply: redo this step as a new branch (branch 2), with new inputs."
    assert confirm.branch_how[2].startswith("Redo with new inputs: nothing is recorded until")
    assert replace(confirm, inputs=(("target", "staging"),)).redo_title == "Redo with new inputs"
    # The warning follows the pill's state (friction18a 1, 18b 1): the agent waits for the reply, it does not work.
    # A branch started by hand replaces it (friction24b 1): said before, as the run page says it after.
    assert (
        confirm.branch_warning
        == "Branch 2 becomes the run's line of work. Branch 1, where an agent works now, is kept in the history "
        "and marked Replaced: tell its agent, in its chat, to stop."
    )
    # From the done step before it, the same fact: a run of one branch names none.
    first = Node.objects.filter(run__public_id=waiting.run_id).order_by("pk").first()
    assert first is not None
    assert actions_at(str(first.public_id)).branch_warning == confirm.branch_warning
    # "Notes so far" drops the entry whose notes "Resume here" quotes rather than pointing up to them (friction17b
    # 11); one with artifacts keeps its head; elsewhere every entry stays.
    quoted = {
        "kind": "step",
        "stepId": "plan",
        "title": "Plan",
        "notesMarkdown": confirm.to_approve,
        "artifactKinds": [],
    }
    other = {**quoted, "stepId": "scope", "notesMarkdown": "Scoped it."}
    with_artifacts = {**quoted, "artifactKinds": ["wr.plan"]}
    assert step_actions.recap_shown([other, quoted], confirm) == [other]
    assert step_actions.recap_shown([quoted], confirm) == []
    assert step_actions.recap_shown([with_artifacts], confirm) == [with_artifacts]
    assert step_actions.recap_shown([other, quoted], step_actions.NONE) == [other, quoted]


def test_a_branch_left_behind_is_taken_up_again_from_its_latest_step(service_catalog):
    rewound = made.left_behind()
    left = Node.objects.filter(run__public_id=rewound.run_id, children__isnull=True).order_by("pk").first()
    assert left is not None
    taken_up = actions_at(str(left.public_id))
    # Subject first, short (friction17b 12), then its outcome, set apart from branching's (friction24b 14).
    assert taken_up.resume == "resume" and taken_up.lead == (
        "No agent works on this branch. Resuming continues branch 1 from this step, as it was."
    )
    assert taken_up.branch_lead.startswith("Redo this step as a new branch (branch 3), with")
    # Then one short line saying which chat takes it: a new one, not branch 2's (friction23b 7); no rule of
    # which branch the run page shows (friction24a 8).
    # friction25a 2: its effect on the live branch, beside branching's ("The new branch replaces branch 2").
    # friction26a 3, 26b 1: and why a redo differs, in one line; the redo's panel says the same rule in full.
    assert taken_up.then == (
        "If you resume this branch, branch 2 keeps going too: two agents at once. Paste the message into a new chat.",
    )
    # friction28b 16: what a redo below would do instead is not a third sentence before the button: it is under
    # the card's quiet "What happens" fold.
    assert taken_up.what_happens == ("A redo below would start branch 3 instead, and mark branch 2 Replaced.",)
    assert taken_up.branch_warning == (
        "Branch 3 becomes the run's line of work. Branch 2, where an agent works now, is kept in the history and "
        "marked Replaced: tell its agent, in its chat, to stop."
    )
    assert attention.resuming_left_behind([], "this step") == ("Resuming makes it go on from this step.",)
    assert attention.resuming_left_behind([2, 3], "its latest step") == (
        "If you resume this branch, branches 2 and 3 keep going too: three agents at once. "
        "Paste the message into a new chat.",
    )
    # Nobody's move: the quiet outline, as on the run page, so it is not revived by accident (friction19b 15).
    # Issue 32: it leads the page as in every other state (one order), quiet as the move is nobody's.
    assert taken_up.weight == "quiet" and taken_up.leads_page
    # A branch started by hand: its hand-over message, the one thing to do, leads the page (friction21a 2).
    handed = replace(taken_up, handed_over=True)
    assert handed.leads_page


def test_the_agent_not_told_warning_is_on_every_step_while_an_agent_works_on_the_run(service_catalog):
    # friction17a 3: branching from a step the agent is not at (a branch left behind, a done earlier step) is
    # where it goes on unaware: the warning names where it works.
    rewound = made.left_behind()
    nodes = list(Node.objects.filter(run__public_id=rewound.run_id).order_by("pk"))
    left = next(n for n in nodes if not n.children.exists())
    # A branch started by hand sets aside every other branch that moved lately: branch 2, where the agent works,
    # then reads Replaced (outcomes._set_aside), so the warning says so wherever the branch starts, not that it
    # goes on beside the new one (friction24b 1).
    elsewhere = (
        "Branch 3 becomes the run's line of work. Branch 2, where an agent works now, is kept in the history and "
        "marked Replaced: tell its agent, in its chat, to stop."
    )
    first = actions_at(str(nodes[0].public_id))
    assert first.branch_warning == elsewhere
    # The message way's branch starts when an agent answers the step again: a rewind, after which branch 2 reads
    # Left behind, not Replaced (outcomes._set_aside sets aside only for a branch started by hand), and its agent
    # may be the one the message goes to.
    assert first.message_warning == (
        "When an agent answers this step again, branch 3 becomes the run's line of work and branch 2, where an "
        "agent works now, is left behind: paste the message into its chat, or tell its agent to stop."
    )
    # On the branch left behind, the same sentence: one rule, said alike on every step (friction26a 3, 26b 1).
    assert actions_at(str(left.public_id)).branch_warning == elsewhere
    # The agent's own step: named by its number like any other (friction25a 1, 25b 1), once.
    tip = str(nodes[-1].public_id)
    assert actions_at(tip, at_work=True).branch_warning == elsewhere
    # Stalled: no agent at work anywhere, no warning on any step.
    quiet = made.stalled()
    for node in Node.objects.filter(run__public_id=quiet.run_id):
        assert actions_at(str(node.public_id)).branch_warning == ""
        assert actions_at(str(node.public_id)).message_warning == ""
    # Its stalled step asks for a look in the agent's chat first, as the run page's panel does (friction59a 11).
    tip = Node.objects.filter(run__public_id=quiet.run_id).order_by("-created_at", "-pk").first()
    assert tip is not None
    assert actions_at(str(tip.public_id)).lead.startswith("Check the agent's chat first: if it is idle or gone")


def test_no_section_where_nothing_can_be_done(service_catalog):
    review = forked_review()
    assert actions_at(review.done_tip) == step_actions.NONE and not step_actions.NONE.shown  # a finished branch
    canceled = made.canceled()
    # A canceled run's step: no section, one line in its head (friction15).
    on_canceled = actions_at(node_id_of(canceled.answer))
    assert not on_canceled.shown and not on_canceled.resume_shown
    assert on_canceled.now_at == "nothing can resume or branch from a canceled run"


def test_the_warning_names_the_branches_it_replaces_in_one_sentence():
    """Several branches at work: one sentence names them all by number (step_actions.branch_warning)."""
    from types import SimpleNamespace

    node = SimpleNamespace(run=SimpleNamespace(branch_count=3))
    step = SimpleNamespace(waiting_on=SimpleNamespace(number=1), state="open")
    others = [SimpleNamespace(number=2), SimpleNamespace(number=3)]
    assert step_actions.branch_warning(node, step, True, others) == (  # type: ignore[arg-type]
        "Branch 4 becomes the run's line of work. Branches 1, 2 and 3, where agents work now, are kept in the "
        "history and marked Replaced: tell their agents, in their chats, to stop."
    )
    assert step_actions.branch_warning(node, step, False, others[:1]) == (  # type: ignore[arg-type]
        "Branch 4 becomes the run's line of work. Branch 2, where an agent works now, is kept in the history and "
        "marked Replaced: tell its agent, in its chat, to stop."
    )
    # A branch left behind's step says the same rule as any other (friction26a 3: not a second wording).
    behind = SimpleNamespace(waiting_on=SimpleNamespace(number=1), state="left_behind")
    assert step_actions.branch_warning(node, behind, False, others) == (  # type: ignore[arg-type]
        "Branch 4 becomes the run's line of work. Branches 2 and 3, where agents work now, are kept in the "
        "history and marked Replaced: tell their agents, in their chats, to stop."
    )
    assert step_actions.branch_warning(node, step, False, []) == ""  # type: ignore[arg-type]


def test_the_hand_over_numbers_its_to_dos_stopping_the_replaced_agents_first():
    """A branch started by hand: telling the replaced branches' agents to stop, then the message (friction25a 5)."""
    from types import SimpleNamespace

    step = SimpleNamespace(waiting_on=SimpleNamespace(number=3))
    replaced, left = SimpleNamespace(number=1, state="superseded"), SimpleNamespace(number=2, state="left_behind")
    node = SimpleNamespace(on_branches=[], other_branches=[replaced, left])
    assert step_actions.handover_steps(node, step) == (  # type: ignore[arg-type]
        "In branch 1's chat, tell its agent to stop.",
        "Paste this message into a chat (that one or a new one): it redoes the step on branch 3.",
    )
    both = SimpleNamespace(on_branches=[], other_branches=[replaced, SimpleNamespace(number=2, state="superseded")])
    assert step_actions.handover_steps(both, step)[0] == (  # type: ignore[arg-type]
        "In the chats of branches 1 and 2, tell their agents to stop."
    )
    alone = SimpleNamespace(on_branches=[], other_branches=[left])
    assert step_actions.handover_steps(alone, step) == (  # type: ignore[arg-type]
        "Paste this message into an agent's chat: it redoes the step on branch 3.",
    )
    # Issue 32: the branches the first to-do tells to stop, whose rows then say only "Replaced".
    assert step_actions.replaced_by_hand(both, step) == (1, 2)  # type: ignore[arg-type]
    assert step_actions.replaced_by_hand(alone, step) == ()  # type: ignore[arg-type]
