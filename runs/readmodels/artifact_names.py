"""What people call an artifact: the kinds of the built-in contracts (workflows_app/schema/contracts) by the
thing they hold ("the list of changed files"), any other kind as "the <kind> artifact". The kind itself is
the agent's word: pages give it after the name, for whoever fixes the agent's answer."""

from __future__ import annotations

NAMES = {
    "mr_review.changed_files": "the list of changed files",
    "mr_review.findings": "the list of findings",
    "wr.assessment": "the assessment",
    "wr.coding_handoff": "the coding hand-off",
    "wr.coordinator_signal": "the signal to the coordinating agent",
    "wr.differentiation_handoff": "the differentiation hand-off",
    "wr.discovery_handoff": "the discovery hand-off",
    "wr.gate_verdict": "the gate's verdict",
    "wr.loop_control": "the loop decision",
    "wr.review_verdict": "the review verdict",
    "wr.shaping_handoff": "the shaping hand-off",
    "wr.workflow_draft": "the workflow draft",
}


def artifact_name(kind: str) -> str:
    """ "the list of changed files" for mr_review.changed_files; "the step's artifact" when no kind is known."""
    if not kind:
        return "the step's artifact"
    return NAMES.get(kind, f"the {kind} artifact")
