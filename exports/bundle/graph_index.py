"""The bundle's `graph` section: each run's nodes and edges, and where in the event list its outputs,
checkpoints, gaps, warnings, preferences, observations and synthesis are. The events hold the data;
this index lets a reader (or another tool) walk a run without replaying them. It is computed from the
events alone, so an importer recomputes it and refuses a bundle whose index says otherwise."""

from __future__ import annotations

from typing import Any

_RUN_REFERENCES = {
    "output_recorded": "outputs",
    "gap_recorded": "gaps",
    "warning_recorded": "warnings",
}


def graph_index(events: list[dict[str, Any]]) -> dict[str, Any]:
    runs: dict[str, dict[str, Any]] = {}
    session: dict[str, list[int]] = {"checkpoints": [], "observations": [], "preferences": []}

    def run_part(data: dict[str, Any], part: str) -> list[Any]:
        run_id = data.get("runId")
        return runs[run_id][part] if run_id in runs else session[part]

    for event in events:
        seq, kind, data = event["seq"], event["kind"], event["data"]
        if kind == "run_started":
            runs[data["runId"]] = _new_run(data, seq)
        elif kind == "node_created" and data["runId"] in runs:
            runs[data["runId"]]["nodes"].append(
                {
                    "nodeId": data["nodeId"],
                    "parentNodeId": data["parentNodeId"],
                    "depth": data["depth"],
                    "pendingStepId": data["pendingStepId"],
                    "isComplete": data["isComplete"],
                    "snapshotSeq": seq,  # the node_created event holds the portable engine state
                }
            )
        elif kind == "step_acked" and data["childNodeId"] is not None and data["runId"] in runs:
            runs[data["runId"]]["edges"].append(
                {"from": data["nodeId"], "to": data["childNodeId"], "via": "step", "seq": seq}
            )
        elif kind == "checkpoint_recorded":
            run_part(data, "checkpoints").append(seq)
            if data["childNodeId"] is not None and data["runId"] in runs:
                runs[data["runId"]]["edges"].append(
                    {"from": data["nodeId"], "to": data["childNodeId"], "via": "checkpoint", "seq": seq}
                )
        elif kind == "operator_forked" and data["runId"] in runs:
            runs[data["runId"]]["edges"].append(
                {"from": data["nodeId"], "to": data["childNodeId"], "via": "fork", "seq": seq}
            )
        elif kind in _RUN_REFERENCES and data["runId"] in runs:
            runs[data["runId"]][_RUN_REFERENCES[kind]].append(seq)
        elif kind in ("run_status_changed", "run_completed") and data["runId"] in runs:
            runs[data["runId"]]["status"] = data["to"]
        elif kind == "preferences_changed":
            run_part(data, "preferences").append(seq)
        elif kind == "observation_recorded":
            run_part(data, "observations").append(seq)
        elif kind == "run_finalized" and data["runId"] in runs:
            runs[data["runId"]]["synthesisSeq"] = seq
    return {"runs": list(runs.values()), "session": session}


def _new_run(data: dict[str, Any], seq: int) -> dict[str, Any]:
    return {
        "runId": data["runId"],
        "workflowId": data["workflowId"],
        "workflowHash": data["workflowHash"],
        "parentRunId": data.get("parentRunId"),
        "parentNodeId": data.get("parentNodeId"),
        "delegationIndex": data.get("delegationIndex"),
        "startedSeq": seq,
        "status": "in_progress",
        "nodes": [],
        "edges": [],
        "outputs": [],
        "checkpoints": [],
        "gaps": [],
        "warnings": [],
        "preferences": [],
        "observations": [],
        "synthesisSeq": None,
    }
