"""Loop-control decisions: recording `wr.loop_control` artifacts and handing them to loops.

An artifact-driven loop is steered by the most recent decision addressed to it: one naming its
loopId, or one naming no loop (kept under ANY_LOOP). The state keeps at most one decision per key,
each stamped with the completedSteps ordinal of the step that sent it, so a loop can tell whether
a decision was sent during its current iteration. Recording a decision for any loop drops the
targeted ones before it (it is newer for every loop). Only keys of loops that exist in the
workflow are kept, so the map cannot grow with what the agent sends.

Which loop a decision is for (`addressee`): the loop whose decision key or step id it names (both
are names an agent is shown), else, as WorkRail does, the only loop it can be for: the one open
artifact-driven loop, or the workflow's one artifact-driven loop. A decision that still names no
loop it can be matched to blocks the step (`unmatched`): it is never dropped with only a warning,
since a dropped decision would end the loop without the agent knowing.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from jsonschema import Draft202012Validator

from workflows_app import builtins
from workflows_app.engine.codes import IssueCode, WarningCode, issue, warning
from workflows_app.engine.model import EngineIssue, EngineWarning
from workflows_app.engine.state import ANY_LOOP, Decision

LOOP_CONTROL_CONTRACT = "wr.contracts.loop_control"
LOOP_CONTROL_KIND: str = builtins.CONTRACTS[LOOP_CONTROL_CONTRACT]["artifactKind"]
_VALIDATOR = Draft202012Validator(builtins.CONTRACTS[LOOP_CONTROL_CONTRACT]["schema"])


@dataclass(frozen=True)
class LoopNames:
    """The artifact-driven loops of a workflow: each name an agent may use for one, mapped to its key."""

    keys: dict[str, str]  # decision key or loop step id -> decision key

    @property
    def any(self) -> bool:
        return bool(self.keys)


def addressee(names: LoopNames, loop_id: Any, open_keys: list[str]) -> str | None:
    """The decision key `loop_id` addresses (ANY_LOOP for none); None when it cannot be matched."""
    if loop_id is None:
        return ANY_LOOP
    if isinstance(loop_id, str) and loop_id in names.keys:
        return names.keys[loop_id]
    if len(open_keys) == 1:
        return open_keys[0]
    distinct = sorted(set(names.keys.values()))
    if not open_keys and len(distinct) == 1:
        return distinct[0]
    return None


def unmatched(names: LoopNames, artifacts: Any, open_keys: list[str]) -> list[EngineIssue]:
    """Blocking issues for loop_control artifacts no loop of this run can be matched to."""
    found: list[EngineIssue] = []
    if not names.any or not isinstance(artifacts, list):
        return found
    for index, artifact in enumerate(artifacts):
        if not isinstance(artifact, dict) or artifact.get("kind") != LOOP_CONTROL_KIND:
            continue
        if addressee(names, artifact.get("loopId"), open_keys) is None:
            expected = ", ".join(f"'{key}'" for key in open_keys) or ", ".join(
                f"'{key}'" for key in sorted(set(names.keys.values()))
            )
            found.append(
                issue(
                    IssueCode.LOOP_CONTROL_UNMATCHED,
                    f"Artifact /artifacts/{index} names loopId '{artifact.get('loopId')}', which is not a loop this "
                    f"step can decide. Send it with loopId {expected} (or without loopId).",
                    f"/artifacts/{index}/loopId",
                )
            )
    return found


def record(
    loop_decisions: dict[str, Decision], artifacts: list[Any], names: LoopNames, open_keys: list[str], at: int
) -> list[EngineWarning]:
    """Records the loop_control decisions among `artifacts` (later ones win); warns about ignored ones.
    Call `unmatched` first: an artifact it reports is not recorded here."""
    found: list[EngineWarning] = []
    if not names.any:
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
        key = addressee(names, artifact.get("loopId"), open_keys)
        decision = Decision(artifact["decision"], at)
        if key == ANY_LOOP:
            loop_decisions.clear()
            loop_decisions[ANY_LOOP] = decision
        elif key is not None:
            loop_decisions.pop(key, None)  # re-insert so key order follows recording order
            loop_decisions[key] = decision
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
