"""Bundles carry the traces of why each step was chosen (they are part of the event log): an exported
and imported session keeps them, and a bundle made before traces were recorded still imports, its
nodes saying that the trace was not recorded."""

from __future__ import annotations

import json
from typing import Any

import pytest

from exports.bundle import document as fmt
from exports.bundles import export_session_bundle, import_session_bundle
from runs.models import Node
from runs.readmodels.trace import NOT_RECORDED, node_trace
from tests.exports.bundle.support import empty_the_store
from tests.support.traced_run import install, traced_run

pytestmark = pytest.mark.django_db


def traces(run_id: str) -> dict[int, Any]:
    return dict(Node.objects.filter(run__public_id=run_id).values_list("public_id", "trace"))


def without_traces(data: bytes) -> bytes:
    """The bundle as WorkRail wrote it before traces: no `trace` in any node_created event."""
    document = json.loads(data)
    for event in document["events"]:
        if event["kind"] == "node_created":
            event["data"].pop("trace", None)
    del document[fmt.MANIFEST]
    document[fmt.MANIFEST] = fmt.manifest_for(document)
    return fmt.dumps(document)


def test_an_exported_and_imported_session_keeps_its_traces(service_catalog):
    install(service_catalog["extra"])
    run = traced_run()
    before = traces(run.run_id)
    words = {node: node_trace(node).text for node in before}
    assert all(before.values())
    data = export_session_bundle(run.session_id, via="command")
    empty_the_store()

    result = import_session_bundle(data, via="command")

    assert result.kept_ids
    assert traces(run.run_id) == before
    assert {node: node_trace(node).text for node in before} == words
    assert "Skipped Phase 0b:" in words[int(run.node_at("phase-1"))]


def test_a_bundle_from_before_traces_still_imports_and_says_the_trace_was_not_recorded(service_catalog):
    install(service_catalog["extra"])
    run = traced_run()
    old = without_traces(export_session_bundle(run.session_id, via="command"))
    assert b'"trace"' not in old
    empty_the_store()

    import_session_bundle(old, via="command")

    assert set(traces(run.run_id).values()) == {None}
    assert node_trace(run.node_at("phase-1")).text == NOT_RECORDED


def test_a_bundle_with_a_hostile_trace_is_refused(service_catalog):
    from runs.contract.errors import WorkRailError

    install(service_catalog["extra"])
    run = traced_run(until="phase-1")
    document = json.loads(export_session_bundle(run.session_id, via="command"))
    node_created = next(e for e in document["events"] if e["kind"] == "node_created")
    node_created["data"]["trace"] = {"entries": [{"kind": "selected", "stepId": "x", "title": "A" * 100_000}]}
    del document[fmt.MANIFEST]
    document[fmt.MANIFEST] = fmt.manifest_for(document)
    empty_the_store()
    with pytest.raises(WorkRailError, match=r"\(node_created\) is malformed"):
        import_session_bundle(fmt.dumps(document), via="command")
