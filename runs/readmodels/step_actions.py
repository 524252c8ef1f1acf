"""What a person can do from a step's page, in two fixed sections, always in this order and with these titles
(node.html): "Resume here" carries the step's branch on from this step (resume the agent, resend the step,
confirm), "Branch from here" starts a new branch from it (the message whose answer branches, or the fork form
with edited context). A reviewer met a card titled "Resume the agent" that held "Branch with edited context…"
(friction14): the titles now name the two kinds of action, each action inside keeps its one phrase
(actions.py). Where nothing carries the branch on from this step, "Resume here" says why in one line; a step
with no possible action (the end of a finished branch, a canceled run) shows neither section.
"""

from __future__ import annotations

from dataclasses import dataclass

from runs.contract.dashboard import BranchOutcomeEntry, NodeDetail
from runs.readmodels import actions, attention
from runs.readmodels.actions import ActionName
from runs.readmodels.step_state import StepState

RESUME_HERE = "Resume here"
BRANCH_FROM_HERE = "Branch from here"


@dataclass(frozen=True)
class StepActions:
    # "Resume here"'s action ("resume", "resend", "confirm"); None when nothing carries the branch on from here.
    resume: ActionName | None
    lead: str  # "Resume here"'s one line: how the action goes, or why none applies ('' where the fold says it)
    # Where the branch goes on instead (its latest step's node id), when "Resume here" has no action: one link.
    latest: str
    message: bool  # the message to paste into the agent's chat is in "Resume here" (resume, or confirm's fallback)
    handed_over: bool  # the branch was started by hand here: the message is the hand-over of its call
    fold_message: bool  # the agent is on this step now (or waits in its chat): the message is for when it stops
    fork_message: bool  # "Branch from here" holds the message whose answer starts a new branch from this step
    branch_lead: str  # "Branch from here"'s one line

    @property
    def shown(self) -> bool:
        return bool(self.branch_lead)


NONE = StepActions(None, "", "", False, False, False, False, "")


def of_step(node: NodeDetail, step: StepState, went_on: list[BranchOutcomeEntry], at_work: bool) -> StepActions:
    """The two sections' content for this step: `went_on` the branches that went on past it (step_state),
    `at_work` whether the agent works on it now (its move, or it waits in its chat for the person)."""
    if node.is_complete or node.run.status == "canceled":
        return NONE
    # The title says what a branch is; the line, what it leaves alone (and, at a refusal, why it is here).
    kept = "Nothing on the existing branches changes."
    branch_lead = f"Another way past the refusal. {kept}" if node.blocked is not None else kept
    if node.blocked is not None:
        lead = f"To {actions.verb('resend')}, give the agent the message with the refusal above."
        return StepActions("resend", lead, "", False, False, False, False, branch_lead)
    if node.branches:
        # The run went on from this step: the branch carries on at its latest step, not here; acknowledging
        # this step's token again starts a new branch (actions.py: fork).
        carrying = went_on or ([step.waiting_on] if step.waiting_on is not None else [])
        return StepActions(
            None,
            _went_on_words(carrying, node.run.branch_count > 1),
            _latest(carrying),
            False,
            False,
            False,
            True,
            branch_lead,
        )
    if step.state == "needs_you":
        # The agent waits in its chat for the person's word: that is the move; the message only if it stopped.
        return StepActions("confirm", attention.waiting_words(node.title), "", True, False, True, False, branch_lead)
    if node.operator_fork is not None:
        return StepActions("resume", "", "", True, True, False, False, branch_lead)
    if at_work:
        lead = ""  # the page's working line says the agent is on it; the message's fold, that it is for when it stops
    elif step.state == "left_behind":
        lead = (
            "No agent works on this branch any more: to take it up again, copy the message into an agent's chat, "
            "and it carries on at this step, on this branch."
        )
    else:
        lead = "Copy the message into the agent's chat, or a new one: it carries on at this step, on this branch."
    return StepActions("resume", lead, "", True, False, at_work, False, branch_lead)


def _went_on_words(went_on: list[BranchOutcomeEntry], several: bool) -> str:
    """Why "Resume here" has nothing: the branch (named only where the run has several) went on past this step."""
    if len(went_on) == 1 and not several:
        return "The run went on from this step: it carries on at its latest step."
    if len(went_on) == 1:
        return f"Branch {went_on[0].number} went on from this step: it carries on at its latest step."
    return "The run went on from this step: each branch carries on at its latest step (listed above)."


def _latest(went_on: list[BranchOutcomeEntry]) -> str:
    return went_on[0].tip_node_id or "" if len(went_on) == 1 else ""
