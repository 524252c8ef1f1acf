"""Owners on a shared store: a request that acts for an owner (an API token's) uses its own sessions and
those nobody owns; another owner's token or sessionKey is refused with NOT_YOUR_SESSION, nothing recorded.
A local process (owner "") and the dashboard may use every session."""

import pytest

from runs.contract.errors import WorkRailError
from runs.models import Event, Session
from runs.store.actors import Actor, Door, acting_as
from tests.support.mcp_calls import (
    ack,
    checkpoint_workflow,
    continue_workflow,
    resume_session,
    start_session,
    start_workflow,
)

pytestmark = pytest.mark.django_db

PLAN = "wr.routine-focused_plan"
ALICE = Actor("alice", Door.HTTP)
BOB = Actor("bob", Door.HTTP)


@pytest.fixture(autouse=True)
def catalog(service_catalog):
    return service_catalog


def refused(call):
    """The error code `call` raises, after checking it recorded nothing."""
    before = Event.objects.count()
    with pytest.raises(WorkRailError) as caught:
        call()
    assert Event.objects.count() == before, "a refusal records nothing"
    return caught.value


def test_a_session_is_owned_by_whoever_started_it_and_its_events_say_who():
    with acting_as(ALICE):
        start = start_workflow(PLAN, {"sessionKey": "alice-plan"})
    session = Session.objects.get(public_id=start["session"]["sessionId"])
    assert session.owner == "alice"
    assert set(Event.objects.filter(session=session).values_list("actor", "door")) == {("alice", "http")}
    local = start_workflow(PLAN)
    assert Session.objects.get(public_id=local["session"]["sessionId"]).owner == ""


def test_another_owners_tokens_are_refused_with_nothing_recorded():
    with acting_as(ALICE):
        start = start_workflow(PLAN)
    with acting_as(BOB):
        error = refused(lambda: continue_workflow(stateToken=start["stateToken"]))  # rehydrate
        assert error.code == "NOT_YOUR_SESSION"
        assert "started by alice" in error.message and "acts for bob" in error.message
        assert "resume_session" in error.suggestion
        assert refused(lambda: ack(start)).code == "NOT_YOUR_SESSION"  # advance
        assert (
            refused(
                lambda: checkpoint_workflow(stateToken=start["stateToken"], output={"notesMarkdown": "Mine now."})
            ).code
            == "NOT_YOUR_SESSION"
        )
    with acting_as(ALICE):
        assert ack(start)["kind"] in ("step", "complete")  # the owner goes on


def test_a_replayed_ack_of_another_owner_is_refused_too():
    with acting_as(ALICE):
        start = start_workflow(PLAN)
        ack(start)
    with acting_as(BOB):
        assert refused(lambda: ack(start)).code == "NOT_YOUR_SESSION"


def test_a_session_key_of_another_owner_is_refused_for_start_workflow_and_start_session(settings, caplog):
    settings.WORKRAIL_ENABLE_START_SESSION = True
    with acting_as(ALICE):
        start_workflow(PLAN, {"sessionKey": "shared-name"})
        notes = start_session(sessionKey="alice-notes", title="Notes")
    with acting_as(BOB):
        joining = refused(lambda: start_workflow(PLAN, {"sessionKey": "shared-name"}))
        assert joining.code == "NOT_YOUR_SESSION"
        # The refusal of a start names the key that led to the session, and says how to start without it; a
        # key is easy to guess, so it does not say whose session it is (only the operator's record does).
        assert "The key 'shared-name' (sessionKey or ticketId) names a session another owner started" in joining.message
        assert "alice" not in joining.message + joining.suggestion + str(joining.details)
        assert "refused NOT_YOUR_SESSION: bob" in caplog.text and "(alice's)" in caplog.text
        assert joining.suggestion.startswith("Start again with a sessionKey of your own")
        assert refused(lambda: start_session(sessionKey="alice-notes")).code == "NOT_YOUR_SESSION"
        assert (
            refused(
                lambda: checkpoint_workflow(sessionToken=notes["sessionToken"], output={"notesMarkdown": "Hi."})
            ).code
            == "NOT_YOUR_SESSION"
        )
        own = start_workflow(PLAN, {"sessionKey": "bob-own"})
        assert own["kind"] == "step"


def test_unowned_sessions_stay_usable_by_every_owner_and_local_processes_use_everything():
    local = start_workflow(PLAN)  # made on this machine, owner ""
    with acting_as(BOB):
        step = ack(local)
    assert step["kind"] in ("step", "complete")
    with acting_as(ALICE):
        alice = start_workflow(PLAN)
    # A local process (stdio, a command) and the dashboard may use every session on the store.
    for actor in (Actor("", Door.STDIO), Actor("", Door.COMMAND), Actor("carol", Door.DASHBOARD)):
        with acting_as(actor):
            assert continue_workflow(stateToken=alice["stateToken"])["kind"] == "step"
    assert continue_workflow(stateToken=alice["stateToken"])["kind"] == "step"


def test_resume_session_over_an_owner_lists_only_its_own_and_unowned_sessions():
    start_workflow(PLAN, {"sessionKey": "payments-local"})
    with acting_as(ALICE):
        start_workflow(PLAN, {"sessionKey": "payments-alice"})
    with acting_as(BOB):
        start_workflow(PLAN, {"sessionKey": "payments-bob"})
        mine = {c["sessionKey"] for c in resume_session(query="payments")["candidates"]}
        recent = {c["sessionKey"] for c in resume_session()["candidates"]}
    assert mine == recent == {"payments-local", "payments-bob"}
    everything = {c["sessionKey"] for c in resume_session(query="payments")["candidates"]}
    assert everything == {"payments-local", "payments-alice", "payments-bob"}
