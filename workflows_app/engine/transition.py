"""What one start/advance returns."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from workflows_app.engine.jsontypes import JsonObject
from workflows_app.engine.model import CompletedStep, EngineIssue, EngineState, EngineWarning, PendingView
from workflows_app.engine.trace import EMPTY, Trace

TransitionKind = Literal["advanced", "blocked", "complete"]


@dataclass(frozen=True)
class Transition:
    kind: TransitionKind
    state: EngineState  # the engine state to store; for "blocked", the input state with the context update
    pending: PendingView | None  # the step the agent must do now; None when complete
    completed: CompletedStep | None  # the step this advance acknowledged
    issues: list[EngineIssue] = field(default_factory=list)  # why a "blocked" advance was refused
    expected_output_schema: JsonObject | None = None  # for "blocked": the output that would pass (a JSON Schema)
    warnings: list[EngineWarning] = field(default_factory=list)
    # Why the run moved where it did: the conditions, loops and decisions evaluated on the way (empty
    # when it did not move: blocked, or acknowledged again after the end).
    trace: Trace = EMPTY
