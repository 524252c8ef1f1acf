"""A run whose every kind of step choice shows in its traces: steps skipped by their runCondition (one
comparing a value, one reading a variable never set), steps with none, a counted loop run three
times, and a loop whose condition keeps it from running.
For the store, read model, page, bundle and browser tests of "why each step"."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.support.mcp_calls import ack, start_workflow
from tests.support.workflow_files import loop_doc, step_doc, workflow_doc, write_json

WORKFLOW_ID = "team.sliced_change"


def sliced_change() -> dict[str, Any]:
    return workflow_doc(
        WORKFLOW_ID,
        name="Sliced change",
        steps=[
            step_doc("intake", "Intake", "Say what the change is.", notesOptional=True),
            step_doc(
                "phase-0b",
                "Phase 0b",
                "Fix it in one go.",
                runCondition={"var": "taskComplexity", "equals": "Small"},
                notesOptional=True,
            ),
            step_doc("phase-1", "Phase 1", "Plan the slices.", notesOptional=True),
            step_doc(
                "update-docs",
                "Update the docs",
                "Update the user docs.",
                runCondition={"var": "touchesDocs"},
                notesOptional=True,
            ),
            loop_doc(
                "verify-slices",
                "Verify slices",
                {"type": "for", "count": "sliceCount", "maxIterations": 5},
                [step_doc("verify", "Verify slice {{currentIteration}}", "Verify slice {{currentIteration}}.")],
            ),
            loop_doc(
                "polish",
                "Polish",
                {"type": "while", "condition": {"var": "polishRounds", "gt": 0}, "maxIterations": 3},
                [step_doc("polish-pass", "Polish pass", "Polish.", notesOptional=True)],
            ),
            step_doc("wrap-up", "Wrap up", "Say what was done.", notesOptional=True),
        ],
    )


def install(extra_dir: Path) -> str:
    write_json(extra_dir / "sliced_change.json", sliced_change())
    return WORKFLOW_ID


@dataclass
class TracedRun:
    run_id: str
    session_id: str
    answers: list[dict[str, Any]] = field(default_factory=list)  # start, then each advance

    def node_at(self, step_id: str, nth: int = 0) -> str:
        """The id of the nth node whose pending step is `step_id` (from the answers' stateTokens' nodes)."""
        from runs.models import Node

        nodes = Node.objects.filter(run__public_id=self.run_id, pending_step_id=step_id).order_by("depth")
        return str(nodes[nth].public_id)


def traced_run(*, until: str | None = None) -> TracedRun:
    """Starts the workflow (a large task, three slices, no polishing) and acknowledges its steps up to the
    step `until` (to its end by default)."""
    answer = start_workflow(WORKFLOW_ID, context={"taskComplexity": "Large", "sliceCount": 3, "polishRounds": 0})
    run = TracedRun(answer["runId"] if "runId" in answer else _run_id(answer), answer["session"]["sessionId"], [answer])
    while answer.get("pending") and answer["pending"]["stepId"] != until:
        answer = ack(answer)
        run.answers.append(answer)
    return run


def _run_id(answer: dict[str, Any]) -> str:
    from runs.models import Run

    return Run.objects.filter(session__public_id=answer["session"]["sessionId"]).latest("created_at").public_id
