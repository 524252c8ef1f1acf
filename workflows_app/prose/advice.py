"""HEURISTICS (part of workflows_app/prose): advice for authors, given by `manage.py validate_workflow`.

A step whose prompt asks for context variables only in words ("Capture: `a`, `b`", "set context `x`")
works, but the server learns what it asks by a guess (asks.py). For each such step the advice names the
variables read from words and shows the declaration that says the same as structure:
`promptBlocks.outputRequired`, one `context.<name>` key per variable (the compiler keeps them as the step's
`declaredAsks`, and renders them into the prompt the agent reads). Advice is neither an error nor a
warning: a file's status, the summary and the exit status do not change.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from workflows_app.prose.asks import StepAsks, read_step

FIELD = "promptBlocks.outputRequired"


@dataclass(frozen=True)
class Advice:
    """How one step could declare what it asks for instead of saying it in words."""

    step_id: str
    names: tuple[str, ...]  # the context variables read from its words
    message: str
    example: str  # the declaration, as JSON to put in the step

    def as_dict(self) -> dict[str, Any]:
        return {"stepId": self.step_id, "names": list(self.names), "message": self.message, "example": self.example}


def declaration_advice(compiled: Mapping[str, Any]) -> tuple[Advice, ...]:
    """One Advice per step of a compiled workflow that asks for context variables only in words. Steps the
    server writes itself (a synthesis, an audit: `virtualOf`) are left out: their author cannot declare."""
    found = []
    for step in _steps(compiled.get("steps")):
        if step.get("virtualOf") or step.get("kind") == "loop":
            continue
        asks = read_step(step)
        if asks.from_prose:
            found.append(_advice(str(step.get("id", "")), asks))
    return tuple(found)


def _advice(step_id: str, asks: StepAsks) -> Advice:
    names = asks.from_prose
    listed = ", ".join(f"`{name}`" for name in names)
    declared = {f"context.{name}": _describe(name, asks.offered.get(name, ())) for name in names}
    return Advice(
        step_id=step_id,
        names=names,
        message=f"Step '{step_id}' asks for context {listed} in its prompt's words, which the server reads by a "
        f"best-effort guess. Declare {'them' if len(names) > 1 else 'it'} in {FIELD} instead, one "
        "`context.<name>` key each, described in a few words (the compiler writes them into the prompt):",
        example=json.dumps({"promptBlocks": {"outputRequired": declared}}, ensure_ascii=False),
    )


def _describe(name: str, values: tuple[str, ...]) -> str:
    if values:
        return f"one of {', '.join(values)}"
    return f"what {name} holds"


def _steps(steps: Any) -> Iterator[Mapping[str, Any]]:
    for step in steps if isinstance(steps, list) else []:
        if isinstance(step, dict):
            yield step
            yield from _steps(step.get("body"))
