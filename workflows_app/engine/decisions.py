"""Loop-control decisions: recording `wr.loop_control` artifacts and handing them to loops.

An artifact-driven loop is steered by the most recent decision addressed to it: one naming its
loopId, or one naming no loop (kept under ANY_LOOP). The state keeps at most one decision per key,
each stamped with the completedSteps ordinal of the step that sent it, so a loop can tell whether
a decision was sent during its current iteration. Recording a decision for any loop drops the
targeted ones before it (it is newer for every loop). Only keys of loops that exist in the
workflow are kept, so the map cannot grow with what the agent sends.
"""

from __future__ import annotations

from typing import Any

from jsonschema import Draft202012Validator

from workflows_app import builtins
from workflows_app.engine.codes import WarningCode, warning
from workflows_app.engine.jsontypes import JsonObject
from workflows_app.engine.state import ANY_LOOP, Decision

LOOP_CONTROL_CONTRACT = "wr.contracts.loop_control"
LOOP_CONTROL_KIND: str = builtins.CONTRACTS[LOOP_CONTROL_CONTRACT]["artifactKind"]
_VALIDATOR = Draft202012Validator(builtins.CONTRACTS[LOOP_CONTROL_CONTRACT]["schema"])


def record(
    loop_decisions: dict[str, Decision], artifacts: list[Any], known_keys: set[str], at: int
) -> list[JsonObject]:
    """Records the loop_control decisions among `artifacts` (later ones win); warns about ignored ones."""
    found: list[JsonObject] = []
    if not known_keys:
        return found  # no loop of this workflow listens to decisions
    for index, artifact in enumerate(artifacts):
        if not isinstance(artifact, dict) or artifact.get("kind") != LOOP_CONTROL_KIND:
            continue
        if not _VALIDATOR.is_valid(artifact):
            found.append(
                warning(
                    WarningCode.LOOP_CONTROL_IGNORED,
                    f"Artifact /artifacts/{index} is not a valid {LOOP_CONTROL_KIND} artifact and was ignored.",
                )
            )
            continue
        loop_id = artifact.get("loopId")
        decision = Decision(artifact["decision"], at)
        if loop_id is None:
            loop_decisions.clear()
            loop_decisions[ANY_LOOP] = decision
        elif loop_id in known_keys:
            loop_decisions.pop(loop_id, None)  # re-insert so key order follows recording order
            loop_decisions[loop_id] = decision
        else:
            found.append(
                warning(
                    WarningCode.LOOP_CONTROL_IGNORED,
                    f"Artifact /artifacts/{index} names loopId '{loop_id}', which no loop of this workflow uses "
                    f"(known: {', '.join(sorted(known_keys))}); it was ignored.",
                )
            )
    return found


def take(loop_decisions: dict[str, Decision], key: str, since: int | None = None) -> str | None:
    """The most recent decision for the loop keyed `key`, consumed (removed from the map).

    None when there is none, or when `since` is given and the decision was sent before it: at the end
    of an iteration only a decision sent during that iteration counts. A stale one is consumed too,
    so it cannot steer a later loop by surprise.
    """
    candidates = [k for k in (key, ANY_LOOP) if k in loop_decisions]
    if not candidates:
        return None
    # Ties cannot favour ANY_LOOP wrongly: recording an ANY_LOOP decision removes the targeted ones,
    # so a targeted entry stamped with the same ordinal was recorded after it.
    chosen = max(candidates, key=lambda k: (loop_decisions[k].at, k != ANY_LOOP))
    decision = loop_decisions.pop(chosen)
    return None if since is not None and decision.at < since else decision.decision
