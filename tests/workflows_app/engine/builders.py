"""Hand-built compiled workflows and a small driver for the engine tests."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from workflows_app.engine import Transition, advance, start

NOTES = {"notesMarkdown": "Done."}


def step(step_id: str, **fields: Any) -> dict[str, Any]:
    return {"kind": "step", "id": step_id, "title": step_id.title(), "prompt": f"Do {step_id}.", **fields}


def loop(loop_id: str, body: list[dict[str, Any]], run_condition: Any = None, **config: Any) -> dict[str, Any]:
    built = {"kind": "loop", "id": loop_id, "title": loop_id.title(), "loop": config, "body": body}
    if run_condition is not None:
        built["runCondition"] = run_condition
    return built


def workflow(*steps: dict[str, Any], workflow_id: str = "project.test") -> dict[str, Any]:
    return {
        "compilerVersion": 1,
        "id": workflow_id,
        "kind": "workflow",
        "name": "Test",
        "description": "Hand-built for engine tests.",
        "version": "1.0.0",
        "steps": list(steps),
    }


def loop_control(decision: str, **extra: Any) -> dict[str, Any]:
    return {"artifacts": [{"kind": "wr.loop_control", "decision": decision, **extra}]}


Agent = Callable[[dict[str, Any]], tuple[dict[str, Any] | None, dict[str, Any] | None]]


def notes_agent(pending: dict[str, Any]) -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
    return NOTES, None


def run(
    compiled: dict[str, Any],
    agent: Agent = notes_agent,
    *,
    context: dict[str, Any] | None = None,
    limit: int = 10_000,
) -> tuple[list[dict[str, Any]], list[Transition]]:
    """Drives a run to completion; returns the pending views in order and every transition.

    `agent(pending)` returns (output, context update) for each pending step. Fails on a block.
    """
    transition = start(compiled, context)
    visited: list[dict[str, Any]] = []
    transitions = [transition]
    while transition.kind != "complete":
        assert transition.kind != "blocked", transition.issues
        assert len(transitions) <= limit, "the run did not complete"
        assert transition.pending is not None
        visited.append(transition.pending)
        output, update = agent(transition.pending)
        transition = advance(compiled, transition.state, output=output, context=update)
        transitions.append(transition)
    return visited, transitions


def instances(visited: list[dict[str, Any]]) -> list[str]:
    return [pending["stepInstance"] for pending in visited]


def warning_codes(transitions: list[Transition]) -> list[str]:
    return [w["code"] for t in transitions for w in t.warnings]
