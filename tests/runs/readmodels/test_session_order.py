"""The sessions list puts the sessions that need someone first (runs/readmodels/states.py's URGENCY): needs
you, blocked, stalled, running, then the settled ones (done, canceled) by last activity alone; within each
group of the list, and only when asked (the API keeps its stored-field sorts)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from runs.models import Session
from runs.readmodels import overview, states
from tests.support import attention_sessions as made
from tests.support.branched_review import blocked_review
from tests.support.mcp_calls import start_workflow

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("fresh_attention_places")]


def _age(session_id: str, minutes: int) -> None:
    """The session last moved `minutes` ago (older than every other one the test makes)."""
    Session.objects.filter(public_id=session_id).update(updated_at=timezone.now() - timedelta(minutes=minutes))


def test_the_urgency_follows_the_states_order_and_the_settled_states_share_the_last_place():
    ranks = [states.URGENCY[state] for state in ("needs_you", "blocked", "stalled", "running")]
    assert ranks == sorted(ranks) and len(set(ranks)) == 4
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
    # The block the agent is still retrying is the agent's move: with the running ones (newest first), after
    # every session that is yours (friction11 7).
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
    _age(stuck.session_id, 45)
    urgent = overview.list_sessions(urgent_first=True).items
    assert [item.state for item in urgent][:3] == ["needs_you", "blocked", "stalled"]


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
