"""A run worth drawing: a step, a loop of two steps repeated `iterations` times, a closing step; the
agent rewinds once inside the loop (a fork) and saves a checkpoint. Built through the services the MCP
tools use, for the graph's tests (tests/runs/readmodels, tests/browser, tests/exports/reports)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.support.mcp_calls import ack_with_notes, checkpoint_workflow, continue_workflow, start_workflow
from tests.support.workflow_files import loop_doc, step_doc, workflow_doc, write_json

WORKFLOW = "project.verify_slices"


def install(folder: Path, iterations: int) -> None:
    write_json(
        folder / f"{WORKFLOW}.json",
        workflow_doc(
            WORKFLOW,
            name="Verify the slices",
            steps=[
                step_doc("scope", "Scope the change into slices", "Split the change into slices."),
                loop_doc(
                    "verify-slices",
                    "Verify each slice",
                    {"type": "for", "count": iterations, "maxIterations": iterations},
                    [
                        step_doc("verify", "Verify slice {{currentIteration}}", "Verify the slice."),
                        step_doc("record", "Record what the slice showed", "Record the result."),
                    ],
                ),
                step_doc("summarize", "Summarize the verification", "Summarize."),
            ],
        ),
    )


@dataclass
class Looped:
    session_id: str
    run_id: str
    answers: list[dict[str, Any]] = field(default_factory=list)  # along the first branch, in order
    fork_at: int = 0  # the index in `answers` of the answer the agent went back to


def looped_and_forked(folder: Path, iterations: int = 3, *, stop_after: int | None = None) -> Looped:
    """Installs the workflow in `folder` (a catalog's directory) and runs it: `stop_after` acks (all by
    default), a checkpoint at the 3rd step, and a fork at the 4th (the second verify slice), made
    after the first branch went on."""
    install(folder, iterations)
    answer = start_workflow(WORKFLOW, context={"sessionKey": "SLICES-7"})
    looped = Looped(answer["session"]["sessionId"], answer["session"]["runId"], [answer])
    total = 2 * iterations + 2 if stop_after is None else stop_after
    for index in range(total):
        if index == 2:
            answer = checkpoint_workflow(stateToken=answer["stateToken"], output={"notesMarkdown": "Halfway."})
            looped.answers.append(answer)
        answer = ack_with_notes(answer, f"Step {index + 1} done.")
        looped.answers.append(answer)
        if answer.get("kind") == "complete" or answer.get("isComplete"):
            break
    looped.fork_at = min(4, len(looped.answers) - 2)
    older = looped.answers[looped.fork_at]
    fresh = continue_workflow(stateToken=older["stateToken"])
    continue_workflow(
        stateToken=older["stateToken"], ackToken=fresh["ackToken"], output={"notesMarkdown": "Looked again."}
    )
    return looped
