"""Who made what, in the store: each event keeps the actor and door of the request that recorded it, a
session's owner is its creator's (projected from session_created), and a rebuild reads them back."""

import pytest

from harness.projections import snapshot
from runs.models import Event, Session
from runs.store.actors import Actor, Door, acting_as
from runs.store.rebuild import rebuild_projections
from tests.support.mcp_calls import ack, start_workflow

pytestmark = pytest.mark.django_db

PLAN = "wr.routine-focused_plan"


def test_a_rebuilt_store_keeps_each_sessions_owner(service_catalog):
    with acting_as(Actor("alice", Door.HTTP)):
        alice = start_workflow(PLAN)
    with acting_as(Actor("bob", Door.API)):
        ack(start_workflow(PLAN))
    local = start_workflow(PLAN)
    with acting_as(Actor("bob", Door.HTTP)):
        ack(local)  # bob works on an unowned session: it stays unowned
    owners = dict(Session.objects.values_list("public_id", "owner"))
    assert owners[alice["session"]["sessionId"]] == "alice"
    assert owners[local["session"]["sessionId"]] == ""
    assert sorted(owners.values()) == ["", "alice", "bob"]
    before = snapshot()
    Session.objects.update(owner="")  # a projection lost: the log still says who
    rebuild_projections()
    assert snapshot() == before
    assert dict(Session.objects.values_list("public_id", "owner")) == owners


def test_the_events_of_a_request_record_its_owner_and_door(service_catalog):
    local = start_workflow(PLAN)
    with acting_as(Actor("bob", Door.HTTP)):
        ack(local)
    stamped = list(Event.objects.order_by("seq").values_list("kind", "actor", "door"))
    assert stamped[0] == ("session_created", "", "")
    assert ("step_acked", "bob", "http") in stamped
