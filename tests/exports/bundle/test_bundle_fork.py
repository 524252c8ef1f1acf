"""A session with an operator fork (a branch a developer started by hand) exports and imports with its fork:
the event, the branch's node with its edited context, the graph's edge, and the reason on the run."""

from __future__ import annotations

import json

import pytest
from django.conf import settings

from exports.bundles import export_session_bundle, import_session_bundle
from runs.contract.errors import WorkRailError
from runs.execution.operator_fork import fork_node
from runs.models import Event, EventKind, Node
from runs.readmodels import run_view
from runs.store import tokens
from runs.store.tokens import TokenKind
from tests.exports.bundle.forgery import forged
from tests.exports.bundle.support import declared_ids, empty_the_store, id_renaming, projections
from tests.support.mcp_calls import ack, continue_workflow, start_workflow
from tests.support.operator_fork import RELEASE, START_CONTEXT, install_release

pytestmark = pytest.mark.django_db


@pytest.fixture
def forked(service_catalog) -> dict:
    install_release(service_catalog["extra"])
    start = start_workflow(RELEASE, context=START_CONTEXT)
    ack(start)
    root = tokens.parse(settings.WORKRAIL_HOME, start["stateToken"], TokenKind.STATE).id
    result = fork_node(root, {"target": "production"}, "Production this time.", via="dashboard")
    ack(continue_workflow(**result.call.arguments.dump()))  # the agent went on down the new branch
    return {"session": start["session"]["sessionId"], "run": start["session"]["runId"], "fork": result}


def test_an_exported_forked_session_reimports_with_its_fork(forked):
    session_id = forked["session"]
    before = projections()
    ids_before = declared_ids(Event.objects.filter(session__public_id=session_id).first().session_id)
    data = export_session_bundle(session_id, via="command")
    document = json.loads(data)
    [run] = document["graph"]["runs"]
    assert {"from": int(forked["fork"].forked_from), "to": int(forked["fork"].node_id)} in [
        {"from": e["from"], "to": e["to"]} for e in run["edges"] if e["via"] == "fork"
    ]
    empty_the_store()

    result = import_session_bundle(data, via="command")

    assert projections(id_renaming(ids_before, declared_ids(result.session.pk), {})) == before
    [event] = Event.objects.filter(session=result.session, kind=EventKind.OPERATOR_FORKED)
    assert event.data["reason"] == "Production this time." and event.data["contextSet"] == {"target": "production"}
    child = Node.objects.get(public_id=event.data["childNodeId"])
    assert child.engine_state["context"]["target"] == "production"
    assert child.parent.public_id == event.data["nodeId"]
    shown = run_view.run_detail(forked["run"], tip=str(child.latest_child.public_id))
    assert [note.reason for note in shown.operator_forks] == ["Production this time."]


def test_a_fork_event_that_does_not_fit_its_nodes_is_refused(forked):
    data = export_session_bundle(forked["session"], via="command")

    def from_the_wrong_node(document: dict) -> None:
        for event in document["events"]:
            if event["kind"] == "operator_forked":
                event["data"]["nodeId"] = event["data"]["childNodeId"]

    with pytest.raises(WorkRailError) as caught:
        import_session_bundle(forged(data, from_the_wrong_node), via="command")
    assert caught.value.code == "BUNDLE_INVALID" and "not a child of nodeId" in caught.value.message
