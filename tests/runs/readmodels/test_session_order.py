"""The sessions list puts the sessions that need someone first (runs/readmodels/states.py's URGENCY): needs
you, blocked, stalled, the blocks the agent resends, running, then the settled ones (done, canceled) by last
activity alone; within each group of the list, and only when asked (the API keeps its stored-field sorts)."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from django.db.models import F
from django.utils import timezone

from exports.bundle.export import export_bundle
from exports.bundle.importing import import_bundle
from exports.bundle.reading import read_bundle
from runs.models import Ack, AckOutcome, Run, Session
from runs.readmodels import attention, overview, states
from runs.templatetags.dashboard import move_of
from tests.exports.bundle.support import empty_the_store
from tests.support import attention_sessions as made
from tests.support.branched_review import blocked_review
from tests.support.mcp_calls import ack, start_workflow

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("fresh_attention_places")]


def _age(session_id: str, minutes: int) -> None:
    """The session last moved `minutes` ago (older than every other one the test makes)."""
    Session.objects.filter(public_id=session_id).update(updated_at=timezone.now() - timedelta(minutes=minutes))


def _stopped(run_id: str) -> None:
    """Nothing recorded on a blocked run for the stall window, its refusal included: its agent has stopped."""
    made.quiet(run_id)
    Ack.objects.filter(node__run__public_id=run_id).update(created_at=F("created_at") - timedelta(minutes=45))
    attention._KEPT.clear()  # the list keeps where each session is by its last event: none was recorded


def test_the_urgency_follows_the_states_order_and_the_settled_states_share_the_last_place():
    ranks = [states.URGENCY[state] for state in ("needs_you", "blocked", "stalled", "running")]
    assert ranks == sorted(ranks) and len(set(ranks)) == 4
    # Yours first, then the block the agent is still resending, then running: one place each.
    yours = [states.urgency(state, "yours") for state in ("needs_you", "blocked", "paused", "stalled")]
    assert max(yours) < states.urgency("blocked", "agents") < states.urgency("running", "agents")
    last = states.URGENCY["done"]
    assert states.URGENCY["canceled"] == states.URGENCY["left_behind"] == states.URGENCY["notes"] == last
    assert last > states.URGENCY["running"]
    assert {"done", "canceled"} <= states.SETTLED
    assert not {"needs_you", "blocked", "stalled", "running"} & states.SETTLED


def test_the_sessions_that_need_someone_come_first_then_the_settled_ones_by_activity(service_catalog, settings):
    settings.WORKRAIL_STALL_MINUTES = 30
    done = start_workflow(made.PLAN, context={"sessionKey": "DONE-1"})
    made.run_to_the_end(done)
    _age(done["session"]["sessionId"], 5)  # finished before the canceled one was canceled
    waiting = made.waiting_for_user(service_catalog["extra"], quiet_minutes=45)  # the oldest activity of all
    stalled = made.stalled()
    canceled = made.canceled()
    running = start_workflow(made.PLAN, context={"sessionKey": "RUN-1"})["session"]["sessionId"]
    stuck = blocked_review("MR-77")  # the newest
    urgent = overview.list_sessions(urgent_first=True).items
    # The block the agent is still retrying is the agent's move: after every session that is yours (friction11
    # 7), before the running ones.
    assert [item.state for item in urgent] == ["needs_you", "stalled", "blocked", "running", "canceled", "done"]
    assert [item.session_id for item in urgent] == [
        waiting.session_id,
        stalled.session_id,
        stuck.session_id,
        running,
        canceled.session_id,
        done["session"]["sessionId"],
    ]
    # Asked for by the state chips, the sessions of one state keep the same order.
    assert [item.state for item in overview.list_sessions(urgent_first=True, state="running").items] == ["running"]
    # Not asked (the API), the list keeps the latest activity first.
    latest = overview.list_sessions().items
    assert latest[0].session_id == stuck.session_id and latest[-1].session_id == waiting.session_id
    # Once nothing has been recorded for the stall window the agent has stopped: the block is yours, up front.
    _stopped(stuck.run_id)
    urgent = overview.list_sessions(urgent_first=True).items
    assert [item.state for item in urgent][:3] == ["needs_you", "blocked", "stalled"]


@pytest.mark.parametrize("blocked_newer", [True, False])
def test_the_agents_block_sorts_above_running_whichever_moved_last(service_catalog, settings, blocked_newer):
    """One rank, whatever the activity: a block the agent is resending never swaps places with a running
    session from one screen to the next (friction15b 4)."""
    settings.WORKRAIL_STALL_MINUTES = 30
    stuck = blocked_review("MR-77")
    running = start_workflow(made.PLAN, context={"sessionKey": "RUN-1"})["session"]["sessionId"]
    _age(running if blocked_newer else stuck.session_id, 5)
    urgent = overview.list_sessions(urgent_first=True).items
    assert [item.session_id for item in urgent] == [stuck.session_id, running]
    assert move_of(urgent[0].where) == "agents"


def test_the_urgency_orders_each_group_and_never_moves_a_session_to_another(service_catalog, settings):
    settings.WORKRAIL_STALL_MINUTES = 30
    ids = made.two_repositories()  # blog: feature/x and main; shop: main, each running
    stalled = made.stalled()
    Session.objects.filter(public_id=stalled.session_id).update(workspace_path="/src/shop", git_branch="main")
    canceled = made.canceled()
    Session.objects.filter(public_id=canceled.session_id).update(workspace_path="/src/shop", git_branch="main")
    items = overview.list_sessions(urgent_first=True, group="branch").items
    shop = [item.session_id for item in items if item.workspace_path == "/src/shop"]
    assert shop == [stalled.session_id, ids["SHOP-MAIN"], canceled.session_id]
    paths = [item.workspace_path for item in items]
    assert paths == sorted(paths)  # the groups themselves stay in their order


def _imported_paused() -> None:
    """A session exported, the store emptied, then imported: no agent has touched its run here (paused)."""
    ack(start_workflow(made.PLAN, context={"sessionKey": "PAUSED-1"}))
    raw = export_bundle(Session.objects.get())
    empty_the_store()
    import_bundle(read_bundle(raw, max_bytes=len(raw) + 1), via="command")
    Run.objects.update(updated_at=timezone.now() - timedelta(hours=3))
    Session.objects.update(updated_at=timezone.now() - timedelta(hours=3))


def _held_by_the_user(run_id: str) -> None:
    """The run's refusal turned into one only the user can answer (context they alone can give)."""
    refused = Ack.objects.get(node__run__public_id=run_id, outcome=AckOutcome.BLOCKED)
    answer = json.loads(refused.response_json)
    for issue in answer["blocked"]["issues"]:
        issue["code"] = "USER_DEPENDENCY_UNMET"
    Ack.objects.filter(pk=refused.pk).update(response_json=json.dumps(answer))


def test_the_lists_order_and_its_chips_agree_for_every_state(service_catalog, settings):
    """One rule (states.urgency) sorts the rows and reads the move their chips show: a blocked step sorts as
    yours exactly when its chip says so (agent stopped, or held by the user), else with the running ones."""
    settings.WORKRAIL_STALL_MINUTES = 30
    _imported_paused()
    done = start_workflow(made.PLAN, context={"sessionKey": "DONE-1"})
    made.run_to_the_end(done)
    made.waiting_for_user(service_catalog["extra"])
    made.stalled()
    made.canceled()
    made.left_behind()
    start_workflow(made.PLAN, context={"sessionKey": "RUN-1"})
    retrying = blocked_review("MR-1")  # the agent's move: it is still resending
    stopped = blocked_review("MR-2")
    _stopped(stopped.run_id)  # its agent stopped: yours
    held = blocked_review("MR-3")  # recent, but only the user can give what it needs: yours
    _held_by_the_user(held.run_id)
    items = overview.list_sessions(urgent_first=True).items
    chips = [(item.state, move_of(item.where if item.where is not None else item.state)) for item in items]
    ranks = [states.urgency(state, move) for state, move in chips]
    assert ranks == sorted(ranks), chips
    assert {state for state, _ in chips} >= {"needs_you", "blocked", "paused", "stalled", "running", "done", "canceled"}
    blocked = {item.session_id: move for item, (state, move) in zip(items, chips, strict=True) if state == "blocked"}
    assert blocked == {retrying.session_id: "agents", stopped.session_id: "yours", held.session_id: "yours"}
