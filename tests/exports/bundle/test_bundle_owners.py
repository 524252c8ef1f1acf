"""Bundles say who did what: each exported event carries its actor, door and MCP client (optional keys: a bundle from
before they were recorded imports with ""), an import keeps them, and the imported session's owner is
whoever started it. Commands record as commands."""

from __future__ import annotations

import io
import json

import pytest
from django.core.management import call_command

from exports.bundles import export_session_bundle, import_session_bundle
from runs.contract.errors import WorkRailError
from runs.models import Event, EventKind, Session
from runs.store.actors import Actor, Door, acting_as
from tests.exports.bundle.forgery import forged
from tests.exports.bundle.support import empty_the_store
from tests.support.mcp_calls import ack, start_workflow

pytestmark = pytest.mark.django_db

PLAN = "wr.routine-focused_plan"


def alices_session() -> str:
    with acting_as(Actor("alice", Door.HTTP, client_name="claude-code")):
        start = start_workflow(PLAN)
    ack(start)  # then on this machine's own stdio server: no owner
    return start["session"]["sessionId"]


def who(session_id: str) -> list[tuple[str, str, str, str]]:
    rows = Event.objects.filter(session__public_id=session_id).exclude(
        kind__in=[EventKind.SESSION_EXPORTED, EventKind.SESSION_IMPORTED]
    )
    return list(rows.order_by("seq").values_list("kind", "actor", "door", "client_name"))


def test_exported_events_carry_who_and_the_import_keeps_them(service_catalog):
    session_id = alices_session()
    before = who(session_id)
    data = export_session_bundle(session_id, via="api")
    events = json.loads(data)["events"]
    assert events[0]["actor"] == "alice" and events[0]["door"] == "http"
    assert events[0]["clientName"] == "claude-code"
    assert any(
        "actor" not in e and "door" not in e and "clientName" not in e for e in events
    )  # recorded with neither: no keys
    empty_the_store()
    import_session_bundle(data, via="api")
    assert who(session_id) == before  # the history says who did what where it was made
    # The session belongs to whoever imported it (a local command here: nobody in particular), never to
    # a name the file carries.
    assert Session.objects.get(public_id=session_id).owner == ""


def test_an_import_belongs_to_the_importer_and_a_rebuild_keeps_it_so(service_catalog):
    session_id = alices_session()
    data = export_session_bundle(session_id, via="api")
    empty_the_store()
    with acting_as(Actor("bob", Door.API)):
        import_session_bundle(data, via="api")
    assert Session.objects.get(public_id=session_id).owner == "bob"
    call_command("rebuild_projections", stdout=io.StringIO())
    assert Session.objects.get(public_id=session_id).owner == "bob"


def test_a_forged_owner_in_a_bundle_gives_no_one_the_session(service_catalog):
    """mallory writes alice's name into a bundle of her own and imports it: the session is mallory's, and
    alice's agent neither sees it nor joins it by its key."""
    with acting_as(Actor("mallory", Door.HTTP)):
        start = start_workflow(PLAN, context={"sessionKey": "ALICE-1"})
    session_id = start["session"]["sessionId"]

    def as_alice(document):
        for event in document["events"]:
            if "actor" in event:
                event["actor"] = "alice"

    data = forged(export_session_bundle(session_id, via="api"), as_alice)
    empty_the_store()
    with acting_as(Actor("mallory", Door.API)):
        import_session_bundle(data, via="api")
    assert Session.objects.get(public_id=session_id).owner == "mallory"
    with acting_as(Actor("alice", Door.HTTP)), pytest.raises(WorkRailError) as refused:
        start_workflow(PLAN, context={"sessionKey": "ALICE-1"})
    assert refused.value.code == "NOT_YOUR_SESSION"


def test_a_bundle_from_before_owners_imports_with_no_owner(service_catalog):
    session_id = alices_session()

    def as_before(document):
        for event in document["events"]:
            event.pop("actor", None)
            event.pop("door", None)
            event.pop("clientName", None)

    data = forged(export_session_bundle(session_id, via="api"), as_before)
    empty_the_store()
    import_session_bundle(data, via="api")
    assert {(actor, door, client) for _, actor, door, client in who(session_id)} == {("", "", "")}
    assert Session.objects.get(public_id=session_id).owner == ""


@pytest.mark.parametrize("key", ["actor", "clientName"])
@pytest.mark.parametrize("actor", ["x" * 65, "eve\nmallory", 7])
def test_a_bundle_with_an_impossible_actor_is_refused(service_catalog, actor, key):
    session_id = alices_session()

    def spoiled(document):
        document["events"][1][key] = actor

    data = forged(export_session_bundle(session_id, via="api"), spoiled)
    with pytest.raises(WorkRailError) as caught:
        import_session_bundle(data, via="api", as_copy=True)
    assert caught.value.code == "BUNDLE_INVALID"
    assert f"/events/1/{key}" in caught.value.message


def test_commands_record_as_commands(service_catalog, tmp_path):
    session_id = alices_session()
    target = tmp_path / "s.json"
    call_command("export_session", session_id, "--output", str(target))
    exported = Event.objects.get(kind=EventKind.SESSION_EXPORTED)
    assert (exported.actor, exported.door) == ("", "command")
    empty_the_store()
    call_command("import_bundle", str(target), stdout=io.StringIO())
    imported = Event.objects.get(kind=EventKind.SESSION_IMPORTED)
    assert (imported.actor, imported.door) == ("", "command")
