"""The loop-control artifact (`wr.loop_control`) on the dashboard: the engine's signal, not work that
stands, so it is not listed under "Other artifacts"; the step that sent it says what it decided (issue 20)."""

from __future__ import annotations

import shutil

import pytest

from runs.models import Node, Run
from runs.readmodels.artifact_tables import loop_decision, tables
from tests.support.mcp_calls import continue_workflow, start_workflow
from tests.support.paths import FIXTURE_WORKFLOWS

pytestmark = pytest.mark.django_db


def test_a_loop_decision_reads_as_what_it_means_and_is_not_an_other_artifact():
    stop = {"kind": "wr.loop_control", "loopId": "revise-loop", "decision": "stop", "metadata": {"reason": "All done."}}
    assert loop_decision(stop) == "Loop decision: stop (leave the loop) — All done."
    assert loop_decision({"kind": "wr.loop_control", "decision": "continue"}) == (
        "Loop decision: continue (run another iteration)"
    )
    assert loop_decision({"kind": "wr.gate_verdict"}) is None
    shown = tables([("decide", stop), ("other", {"kind": "wr.gate_verdict", "verdict": "pass"})])
    assert [entry.kind for entry in shown.others] == ["wr.gate_verdict"]


def test_the_run_and_node_pages_say_what_the_loop_decided_without_raw_json(client, service_catalog):
    shutil.copy(FIXTURE_WORKFLOWS / "loop_control.json", service_catalog["extra"] / "loop_control.json")
    answer = start_workflow("fixture.loop_control")
    decision = {"kind": "wr.loop_control", "loopId": "revise-loop", "decision": "continue"}
    decision["metadata"] = {"reason": "Two comments remain."}
    for _ in range(3):  # collect feedback, revise, decide
        artifacts = [decision] if answer["pending"]["stepId"] == "decide-another-round" else []
        answer = continue_workflow(
            stateToken=answer["stateToken"],
            ackToken=answer["ackToken"],
            output={"notesMarkdown": "Done.", "artifacts": artifacts},
        )
    run = Run.objects.get(public_id=answer["session"]["runId"])
    html = client.get(f"/runs/{run.public_id}/").content.decode()
    sentence = "Loop decision: continue (run another iteration) — Two comments remain."
    assert sentence in html
    assert "Other artifacts" not in html and '"wr.loop_control"' not in html
    decided = Node.objects.get(run=run, depth=2)  # where "Another round?" was acknowledged
    node = client.get(f"/nodes/{decided.public_id}/").content.decode()
    assert sentence in node and '"decision": "continue"' not in node
