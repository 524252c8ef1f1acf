"""A step's own state, as the header of its page (the node page) shows it, in the dashboard's one vocabulary
(states.py): Answered once the agent answered it and moved on (Done where the branch ended there), else the state of the
branch that still waits at it (Working, Confirm, Stalled, Left behind, Canceled), and Blocked when its answer
was refused. This agrees with the graph, which colours a branch's last node with the branch's state and every
node before it Done.

A step is still waiting when nothing was acknowledged between it and its branch's tip: the tip stands at the
same step number (a checkpoint or a branch started by hand keeps the step). The branch's state then is the
step's; once a later step was reached, the branch's state is context, not the step's (the page says it as
such). Kept out of NodeDetail so that the API's answer stays as it is: only the page reads it.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

from runs.contract.dashboard import STOP_ITS_AGENT, BranchOutcomeEntry, NodeDetail, StateName
from runs.readmodels import listing


@dataclass(frozen=True)
class StepState:
    state: StateName
    # The branch whose state the step carries while it waits (its move tag is the step's); None once done.
    waiting_on: BranchOutcomeEntry | None

    # Answered and gone on from (the end of a finished branch is no answered step): its pill says STEP_DONE.
    answered: bool = False

    @property
    def waiting(self) -> bool:
        return self.waiting_on is not None or self.state == "blocked"

    @property
    def also_after_pill(self) -> str:
        """A replaced branch's step (its agent may still work): what to do, after its pill, as the run card says it
        after the pill naming that branch (Whereabouts.also_after_pill); "" else."""
        return STOP_ITS_AGENT if self.state == "superseded" else ""


def of_node(node: NodeDetail) -> StepState:
    branch = node.on_branch
    if node.is_complete:
        return StepState("done", None)
    if node.blocked is not None:
        return StepState("blocked", branch)
    if branch is None:  # not drawn on any branch: the run's state is all there is to say
        return StepState(node.run.state, None)
    if branch.status != "complete" and branch.step_number == node.step_number:
        return StepState(branch.state, branch)
    return StepState("done", None, answered=True)


def went_on(node: NodeDetail, step: StepState) -> list[BranchOutcomeEntry]:
    """The branches through this step that went on past it: their state is where they stand now, told on
    the page as context under the step's own state (the branch that waits at the step is the step's pill)."""
    waiting = step.waiting_on.number if step.waiting_on is not None else None
    return [o for o in node.on_branches if o.number != waiting]


# The card of the branches that went on past a step: its next step on each, then where each stands now, in one
# card (friction62a 4: "On branches 1 and 2", then a "Next step" card, each said where the run went, apart).
WHERE_IT_WENT = "Where it went"


def branches_now(
    went: list[BranchOutcomeEntry], others: list[BranchOutcomeEntry], redid: Collection[int] = ()
) -> list[BranchOutcomeEntry]:
    """Where each branch stands now, in one list under the step's next steps, by number: the branches that went
    on past it (`went`), then with them the run's `others` (friction63a 5: "Branches 1 and 2 now:" and "Other
    branches of this run" were two lists of branches); none while no branch went on past it (the page then says
    it is the branch's latest step, the others listed apart). Not the branches that `redid` this step: their redo
    card says where each is now (redid_now; friction64: "Branches 1, 2 and 3 now:" under "Where it went" counted
    branch 3, which only redid the step, among those that went on from it)."""
    if not went:
        return []
    return sorted([*went, *(o for o in others if o.number not in redid)], key=lambda o: o.number)


def redid_now(
    redos: dict[str, tuple[int, ...]], others: list[BranchOutcomeEntry]
) -> dict[str, list[BranchOutcomeEntry]]:
    """Where each branch that redid this step stands now, by the node its redo led to (`redos`: that node's id and
    the branches that grew from it): the redo card's line, in the words and pill of every branch's row."""
    return {node: [o for o in others if o.number in numbers] for node, numbers in redos.items()}


def stopped_after_redo(now: dict[str, list[BranchOutcomeEntry]]) -> set[str]:
    """The redos whose branches all still stand at the step the redo led to: their now-line says that step, so
    the redo card's "Then …" line would say it again."""
    return {node for node, rows in now.items() if rows and all(o.tip_node_id == node for o in rows)}


def went_on_words(went: list[BranchOutcomeEntry]) -> str:
    """The caption over those branches' latest steps, naming them (the step may be on one more, the pill's):
    "Branch 2 now:", "Branches 1 and 2 now:"; the card's next steps above it say where they went from here."""
    numbers = [str(o.number) for o in went]
    if not numbers:
        return ""
    if len(numbers) == 1:
        return f"Branch {numbers[0]} now:"
    return f"Branches {listing.joined(numbers)} now:"


# What a step's Answer section says while it holds nothing, by the step's state: the answer is the agent's, so
# the line names it as such (friction26b 12: "Answer: Not answered yet." on a step waiting for the person read as
# a box for them to fill). Only where the person holds it up does the line say why: elsewhere the page's head says
# the step's state already (working, stalled, left behind), and the line would say it twice.
NOT_SENT = "Agent's answer: not sent yet."
NO_ANSWER: dict[StateName, str] = {
    "needs_you": "Agent's answer: not sent yet; it waits for your confirmation.",
    # friction60a 11: "not sent yet" promised an answer on a branch no agent works on.
    "left_behind": "Not answered: this branch was left behind.",
}
# friction62b 7: the refusal is the panel's, said once there; this line only says the Answer card is empty.
REFUSED = "Agent's answer: none accepted yet."
ENDS_HERE = "Nothing: the branch ends here."
# A done step whose answer came after a checkpoint saved during it: the answer is at the checkpoint's node, whose
# page the checkpoint card links (friction62b 3: the checkpoint stood in the answer's place).
AFTER_CHECKPOINT = "Answered after the checkpoint below: its page holds the answer."


def no_answer(node: NodeDetail, step: StepState) -> str:
    """The Answer section's line while it holds nothing (NO_ANSWER, by the step's state); "" for a step of a
    canceled run, whose line says when it was canceled (the page prints that moment)."""
    if node.blocked is not None:
        return REFUSED
    if node.is_complete:
        return ENDS_HERE
    if step.state == "done" and any(entry.kind == "checkpoint" for entry in node.recorded):
        return AFTER_CHECKPOINT
    if node.run.status == "canceled":
        return ""
    return NO_ANSWER.get(step.state, NOT_SENT)
