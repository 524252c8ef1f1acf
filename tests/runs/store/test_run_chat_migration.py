"""Migration 0027: the runs recorded before Run.client_name and Run.imported_at existed get them from the log,
as the projector keeps them from now on."""

from __future__ import annotations

import importlib

import pytest
from django.apps import apps

from runs.models import Run
from tests.support.mcp_calls import start_workflow

migration = importlib.import_module("runs.migrations.0027_run_chat")


@pytest.mark.django_db
def test_the_client_and_the_import_are_filled_in_from_the_log(service_catalog):
    from exports.bundles import export_session_bundle, import_session_bundle
    from runs.store.actors import Actor, Door, acting_as
    from tests.exports.bundle.support import empty_the_store

    with acting_as(Actor("", Door.STDIO, client_name="claude-code")):
        start = start_workflow("wr.routine-focused_plan")
    data = export_session_bundle(start["session"]["sessionId"], via="api")
    empty_the_store()
    import_session_bundle(data, via="api")
    here = start_workflow("wr.routine-focused_plan")  # no client declared
    expected = {run.public_id: (run.client_name, run.imported_at) for run in Run.objects.all()}
    assert expected[start["session"]["runId"]][0] == "claude-code"
    assert expected[here["session"]["runId"]] == ("", None)
    Run.objects.update(client_name="", imported_at=None)  # as the rows were before the migration
    migration.backfill(apps, None)
    assert {run.public_id: (run.client_name, run.imported_at) for run in Run.objects.all()} == expected
