"""What each dot of the session timeline stands for: a node of a run, when it was made, its state in the
dashboard's vocabulary (states.py) and a few words naming it (timeline_page.py places and prints them).

A branch's last node carries its branch's state: done, canceled, blocked, left behind, or, on the run's
newest open branch, the run's own state (running, needs you, stalled). Every node before it was answered:
its step is done. A node is named by its step's place in the workflow's outline, as the run page's list
says it, its name first (step_places.named: "Review api · step 4 of 8 · area 1 of 2"), never by the count of
steps taken; a run's end is "Complete". Built from the branches the session page reads anyway (branches.read_many); the
steps' titles are the ones the agent was given, as the graph's cards say them: recorded with each
answer (one query for the session), and for a branch's unanswered last node whose title depends on the
context, rendered again from its state (one more query, for all of them).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Literal

from runs.contract.dashboard import StateName
from runs.models import Node, Output
from runs.readmodels import attention, blocked, clock, outcomes, states, step_places, step_text
from runs.readmodels.branches import RunBranches
from runs.readmodels.graph_drawing import AGAIN_TAG, CHECKPOINT_GLYPH, CHECKPOINT_MARK
from runs.store.pinned import compiled_workflow, steps_by_id
from workflows_app import engine

# The timeline's word for its green: a step answered (or a checkpoint, at a step answered on), on any branch, the
# legend's as each dot's and each numbered dot's (friction18a 3, 18b 4: the legend said "Answered", the list
# "Done"); "Done" stays the run's end's, and a finished branch's pill's.
ANSWERED = "Answered"


def said_of(state: StateName, kind: NodeKind, move: states.Move | None = None, *, held_by_you: bool = False) -> str:
    """A dot's state in words: the pill's (states.pill, by the move its pill reads: a refused step the agent
    resends is "Agent's move · Retrying", "Your move · Agent stopped" once yours), but ANSWERED for a done step
    that is not the run's end."""
    if state == "done" and kind != "end":
        return ANSWERED
    return states.pill(state, move or states.move(state), held_by_you=held_by_you).words


@dataclass(frozen=True, slots=True)
class NodeMark:
    at: datetime
    state: StateName
    words: str  # "Review api · step 4 of 8 · round 1 of 2: Left behind (branch 2) · 22:02:04 UTC"
    what: str = ""  # the same without its state and moment: "Review api · step 4 of 8 · round 1 of 2 (branch 2)"
    # What the node is, for the counts said of it (timeline_page.StepCounts): a step answered, a step reached
    # and not answered (a branch's last node), a checkpoint (not a step), or the run's end ("Complete").
    kind: NodeKind = "answered"
    branch: int | None = None  # its branch's number when the run has several (a numbered dot names theirs)
    # Its colour family (states.tone), by whose move its state is, by the rule the pills and the progress strip
    # read (attention.move_of_blocked): a refused step the agent retries is the agent's blue, red once yours
    # (friction60b 12: the timeline drew it red beside a blue pill and a blue "!" chip).
    tone: states.Tone = "nobody"
    # The node whose page tells this step (its public id): the node itself, or for a step redone after a rewind the
    # node whose step it answered again, as the graph's card links it (graph_story.stored). A numbered dot's list
    # links each step there (friction64: the list was plain text, each step a dead end on a phone).
    node: str = ""
    # Its state's one word as its pill says it (states.word): a refused step's stage, "Retrying" or "Agent
    # stopped", never the family's "Refused" (friction65b 1: the legend said "Refused" beside a "Retrying" pill).
    word: str = ""


NodeKind = Literal["answered", "unanswered", "checkpoint", "end"]


def marks(trees: Iterable[RunBranches], run_states: dict[str, StateName]) -> dict[str, list[NodeMark]]:
    """Each run's nodes (by run id), oldest first; `run_states` are the runs' states (RunSummary.state)."""
    trees = list(trees)
    seen = titles(trees)
    refused = blocked.refusals_of(trees)  # one query, none when nothing is blocked
    cutoff = clock.stall_cutoff()
    places = step_places.of_nodes({pk: tree.run for tree in trees for pk in tree.nodes})  # one query
    found: dict[str, list[NodeMark]] = {}
    for tree in trees:
        run_state = run_states.get(tree.run.public_id, "running")
        steps = steps_by_id(tree.run.pinned_id)
        tip_state = {
            branch.tip: outcomes.branch_state(tree, branch, run_state) for branch in tree.branches if branch.nodes
        }
        tip_move: dict[int, states.Move] = {}
        held_by_you: set[int] = set()  # the refused tips that wait for what only the person gives
        for held in tree.branches:
            refusal = refused.get((tree.run.pk, held.number))
            if held.nodes and refusal is not None and tip_state[held.tip] == "blocked":
                entry = blocked.as_entry(refusal)
                tip_move[held.tip] = attention.move_of_blocked(entry, cutoff)
                if entry.whose_move == "user":
                    held_by_you.add(held.tip)
        several = len(tree.branches) > 1
        kinds = node_kinds(tree)
        answered = answer_moments(tree)
        run_marks = []
        named: dict[int, str] = {}
        for pk, row in tree.nodes.items():
            state = tip_state.get(pk, "done")
            place = places.get(pk)
            if row.is_complete:
                where = "Complete"
            else:
                title = seen.get(pk) or step_text.as_written(steps.get(row.step_id), row.step_id).title
                # One locator on every view (friction22a A1): the name, then the place as the run page says it.
                where = (
                    step_places.named(title, place) if place is not None else f"{title} · step {tree.step_number(pk)}"
                )
            named[pk] = where
            if pk in tree.made_by_checkpoint:
                # A checkpoint is its own kind of entry, marked as the graph marks it, never its step said again
                # with a tag (friction61a 6: "Post the Approved Comments · step 7 of 8" listed twice).
                where = f"{CHECKPOINT_GLYPH} {CHECKPOINT_MARK} at {where}"
            branch = f" (branch {tree.branch_of(pk).number})" if several else ""
            move = tip_move.get(pk) or states.move(state)
            mine = pk in held_by_you
            said = said_of(state, kinds[pk], move, held_by_you=mine)  # the pill's words; the legend's for green
            # An answered step's dot stands when it was answered, the moment the Steps list prints beside it (its
            # answer's node's); a step not answered yet, a checkpoint or the end when it was reached (friction60a 1,
            # 60b 1: the list said one time and the dot another).
            moment = answered.get(pk, row.created_at) if kinds[pk] == "answered" else row.created_at
            words = f"{where}: {said}{branch} · {moment.astimezone(UTC):%H:%M:%S} UTC"
            number = tree.branch_of(pk).number if several else None
            tone = states.tone(state, move)
            word = states.word(state, move, states.cause(state, move, held_by_you=mine))
            run_marks.append(
                NodeMark(moment, state, words, f"{where}{branch}", kinds[pk], number, tone, str(row.public_id), word)
            )
        # A step answered again after a rewind is a card of its own on the graph (graph_story: "↺ redone"), so
        # it is a dot of its own here too, when its answer was given (the moment of the node it led to), and
        # counts as a step answered: the timeline's figures are the graph's (friction15 1).
        for host, child in answered_again(tree):
            again = f"{named[host]} {AGAIN_TAG}"
            branch = f" (branch {tree.branch_of(child).number})" if several else ""
            at = tree.nodes[child].created_at
            words = f"{again}: {ANSWERED}{branch} · {at.astimezone(UTC):%H:%M:%S} UTC"
            number = tree.branch_of(child).number if several else None
            run_marks.append(
                NodeMark(
                    at, "done", words, f"{again}{branch}", "answered", number, node=str(tree.nodes[host].public_id)
                )
            )
        found[tree.run.public_id] = sorted(run_marks, key=lambda mark: mark.at)
    return found


def node_kinds(tree: RunBranches) -> dict[int, NodeKind]:
    """What each node (by pk) is, for counting: its step is answered when some node after it moves on from it
    (a checkpoint's node is the same step still pending: its step is answered when the checkpoint's is)."""
    moved_on: set[int] = set()
    for pk in reversed(tree.nodes):  # newest first: a node's children come after it
        parent = tree.nodes[pk].parent_id
        if parent is not None and (pk not in tree.made_by_checkpoint or pk in moved_on):
            moved_on.add(parent)
    return {
        pk: "end"
        if row.is_complete
        else "checkpoint"
        if pk in tree.made_by_checkpoint
        else "answered"
        if pk in moved_on
        else "unanswered"
        for pk, row in tree.nodes.items()
    }


def answer_moments(tree: RunBranches) -> dict[int, datetime]:
    """When each node's step was first answered (by node pk): the moment of the node its answer made, which is
    recorded with the answer (the time the Steps list prints); through a checkpoint's node, which is the same
    step still pending. A node an operator's fork made answers nothing."""
    found: dict[int, datetime] = {}
    for pk in reversed(tree.nodes):  # newest first: a node's children come after it
        parent = tree.nodes[pk].parent_id
        if parent is None or parent not in tree.nodes or pk in tree.started_by_hand:
            continue
        moment = found.get(pk) if pk in tree.made_by_checkpoint else tree.nodes[pk].created_at
        if moment is not None:
            found[parent] = min(found.get(parent, moment), moment)
    return found


def answered_again(tree: RunBranches) -> list[tuple[int, int]]:
    """The steps answered again after a rewind, as the graph draws them (graph_story.told): (the node whose
    step was answered again, the node that answer led to), for each answer that led onto another branch than
    the one its step's card is on (a checkpoint that continues its branch is a mark on its step's card, so an
    answer after it answers that card's step). Neither a checkpoint's node nor an operator's fork is one."""
    lane = {pk: tree.branch_of(pk).lane for pk in tree.nodes}
    card: dict[int, int] = {}  # a checkpoint's node that continues its branch -> the node whose card holds it
    found = []
    for pk, row in tree.nodes.items():  # parents before children
        parent = row.parent_id
        if parent is None or parent not in tree.nodes:
            continue
        host = card.get(parent, parent)
        if pk in tree.made_by_checkpoint:
            if lane[pk] == lane[parent]:
                card[pk] = host
            continue
        if pk not in tree.started_by_hand and lane[pk] != lane[host]:
            found.append((host, pk))
    return found


def titles(trees: list[RunBranches]) -> dict[int, str]:
    """The title of each node's step (by node pk) as the agent was given it, where it differs from the
    workflow's words or was recorded: from the answers, else rendered again from the node's state."""
    found: dict[int, str] = dict(
        Output.objects.filter(node__run__in=[tree.run for tree in trees])
        .exclude(step_title="")
        .values_list("node_id", "step_title")
    )
    wanted: dict[int, RunBranches] = {}
    for tree in trees:
        steps = steps_by_id(tree.run.pinned_id)
        for pk, row in tree.nodes.items():
            step = steps.get(row.step_id)
            written = str((step.get("title") if step is not None else None) or "")
            if pk not in found and not row.is_complete and "{{" in written:
                wanted[pk] = tree
    if wanted:
        for pk, state in Node.objects.filter(pk__in=list(wanted)).values_list("pk", "engine_state"):
            pending = engine.pending_view(compiled_workflow(wanted[pk].run.pinned_id), state)
            if pending is not None:
                found[pk] = str(pending["title"])
    return found
