"""The engine state: everything needed to continue a run, as one small JSON object.

A state is portable (plain JSON, no references to Python objects) and its size does not grow with
the number of steps done: it keeps a cursor and counters, never a history. Format (version 1):

    {
      "version": 1,
      "workflowId": "wr.evidence_first_bug_fix",   # the compiled workflow this state belongs to
      "complete": false,
      "context": {...},                       # external context, shallow-merged from every start/advance
      "cursor": {
        "position": [4, 1],                   # index in the top-level steps, then one body index per
                                              # active loop; at completion: [len(steps)]
        "loops": [                            # active loop frames, outermost first, one per body index
          {"loopId": "hypothesis-testing-loop", "iteration": 2}
          # forEach frames add "items": the list snapshotted at loop entry;
          # for frames add "count": the iteration count resolved at loop entry;
          # artifact-driven frames add "since": the completedSteps ordinal of the first step
          # acknowledged in this iteration (decisions older than that were not sent in it)
        ]
      },
      "pending": {"stepId": "evaluate-hypothesis",
                  "stepInstance": "hypothesis-testing-loop#2/evaluate-hypothesis"},   # null when complete
      "loopDecisions": {                      # wr.loop_control decisions not yet consumed, keyed by the
        "*": {"decision": "continue", "at": 3}  # loopId they target ("*" = any loop); "at" is the
      },                                      # completedSteps ordinal of the step that sent it. Keys are
                                              # limited to the workflow's artifact-driven loops.
      "completedSteps": 12                    # steps acknowledged so far
    }

Loop variables (currentIteration, currentItem, ...) are not stored in `context`: they are derived
from the frames whenever a condition or template is evaluated, so an inner loop cannot clobber an
outer loop's variables and nothing is left behind when a loop ends.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, TypeGuard, cast

from workflows_app.engine.jsontypes import JsonObject, Position
from workflows_app.engine.model import EngineState, LoopDecision, LoopFrame, PendingRef

STATE_VERSION = 1
ANY_LOOP = "*"  # loopDecisions key of a decision that names no loop


class StateError(ValueError):
    """The state given to the engine is not one it produced for this compiled workflow."""


@dataclass
class Frame:
    """One active loop: which iteration runs now, plus what was fixed when the loop was entered."""

    loop_id: str
    iteration: int  # 1-based
    items: list[Any] | None = None  # forEach: the items list as it was at loop entry
    count: int | None = None  # for: the number of iterations resolved at loop entry
    since: int | None = None  # artifact-driven: ordinal of the first step acknowledged in this iteration

    def to_json(self) -> LoopFrame:
        data: LoopFrame = {"loopId": self.loop_id, "iteration": self.iteration}
        if self.items is not None:
            data["items"] = copy.deepcopy(self.items)
        if self.count is not None:
            data["count"] = self.count
        if self.since is not None:
            data["since"] = self.since
        return data

    @classmethod
    def from_json(cls, data: Any) -> Frame:
        if not isinstance(data, Mapping):
            raise StateError("a loop frame must be an object")
        loop_id, iteration = data.get("loopId"), data.get("iteration")
        items, count, since = data.get("items"), data.get("count"), data.get("since")
        if not isinstance(loop_id, str) or not _is_int(iteration) or iteration < 1:
            raise StateError("a loop frame needs a loopId and a positive iteration")
        if items is not None and not isinstance(items, list):
            raise StateError(f"loop frame '{loop_id}': items must be a list")
        if count is not None and not _is_int(count):
            raise StateError(f"loop frame '{loop_id}': count must be an integer")
        if since is not None and not _is_int(since):
            raise StateError(f"loop frame '{loop_id}': since must be an integer")
        return cls(loop_id, iteration, copy.deepcopy(items), count, since)


@dataclass(frozen=True)
class Decision:
    """A recorded wr.loop_control decision and when it was sent (a completedSteps ordinal)."""

    decision: Literal["continue", "stop"]
    at: int

    @classmethod
    def from_json(cls, data: Any) -> Decision:
        if not isinstance(data, Mapping) or data.get("decision") not in ("continue", "stop"):
            raise StateError("a loop decision must be an object with decision 'continue' or 'stop'")
        if not _is_int(data.get("at")):
            raise StateError("a loop decision needs an integer 'at'")
        return cls(data["decision"], data["at"])


@dataclass
class Machine:
    """The mutable working form of a state while one start/advance computes the next state.

    Built from a deep copy, so nothing the caller passed is ever modified.
    """

    workflow_id: str
    context: JsonObject
    position: Position
    frames: list[Frame] = field(default_factory=list)
    decisions: dict[str, Decision] = field(default_factory=dict)
    completed_steps: int = 0
    complete: bool = False
    pending: PendingRef | None = None  # set by the interpreter

    def to_json(self) -> EngineState:
        return {
            "version": STATE_VERSION,
            "workflowId": self.workflow_id,
            "complete": self.complete,
            "context": copy.deepcopy(self.context),
            "cursor": {"position": list(self.position), "loops": [frame.to_json() for frame in self.frames]},
            "pending": self.pending.copy() if self.pending is not None else None,
            "loopDecisions": {key: LoopDecision(decision=d.decision, at=d.at) for key, d in self.decisions.items()},
            "completedSteps": self.completed_steps,
        }

    @classmethod
    def from_json(cls, data: Any) -> Machine:
        if not isinstance(data, Mapping):
            raise StateError("the engine state must be an object")
        if data.get("version") != STATE_VERSION:
            raise StateError(f"unsupported engine state version {data.get('version')!r}; expected {STATE_VERSION}")
        cursor = data.get("cursor")
        if not isinstance(cursor, Mapping):
            raise StateError("the engine state has no cursor")
        position, loops = cursor.get("position"), cursor.get("loops")
        if not isinstance(position, list) or not position or not all(_is_int(i) and i >= 0 for i in position):
            raise StateError("cursor.position must be a non-empty list of indices")
        if not isinstance(loops, list) or len(loops) != len(position) - 1:
            raise StateError("cursor.loops must hold one frame per loop level of cursor.position")
        context, decisions = data.get("context"), data.get("loopDecisions")
        if not isinstance(context, Mapping):
            raise StateError("context must be an object")
        if not isinstance(decisions, Mapping):
            raise StateError("loopDecisions must map loop ids to decisions")
        pending, completed = data.get("pending"), data.get("completedSteps")
        if pending is not None and not (isinstance(pending, Mapping) and isinstance(pending.get("stepId"), str)):
            raise StateError("pending must be null or an object with a stepId")
        if not _is_int(completed) or completed < 0:
            raise StateError("completedSteps must be a non-negative integer")
        if not isinstance(data.get("workflowId"), str) or not isinstance(data.get("complete"), bool):
            raise StateError("the engine state needs a workflowId and a complete flag")
        return cls(
            workflow_id=data["workflowId"],
            context=copy.deepcopy(dict(context)),
            position=list(position),
            frames=[Frame.from_json(frame) for frame in loops],
            decisions={str(key): Decision.from_json(value) for key, value in decisions.items()},
            completed_steps=completed,
            complete=data["complete"],
            pending=cast(PendingRef, dict(pending)) if pending is not None else None,
        )


def _is_int(value: Any) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)
