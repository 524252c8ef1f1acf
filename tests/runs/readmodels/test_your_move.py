"""One whose-move rule (states.move, attention.blocked_move) everywhere: the sessions list's rows, its "Your move"
chip (how many, and which rows it keeps), and the run page's blocked panel, which leads with the message for
the agent only once the move is the person's."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db.models import F
from django.utils import timezone

from runs.models import Ack, Run, Session, SessionKind, SessionStatus
from runs.readmodels import attention, clock, overview, run_view, states
from tests.support import attention_sessions as made
from tests.support.branched_review import blocked_review
from tests.support.mcp_calls import start_workflow

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("fresh_attention_places")]


def _stopped(run_id: str, minutes: int = 45) -> None:
    """A blocked run whose agent has not tried again for `minutes`: its refusals move back too."""
    made.quiet(run_id, minutes)
    Ack.objects.filter(node__run__public_id=run_id).update(created_at=F("created_at") - timedelta(minutes=minutes))


def _row_move(row) -> states.Move:
    """Whose move a row's tag says (the template's state_chip: its where, else its state)."""
    if row.where is not None:
        return row.where.move or states.move(row.where.state)
    return states.move(row.state)


def test_a_blocked_step_is_the_agents_move_until_it_stops_or_waits_for_the_user():
    now = timezone.now()
    cutoff = now - timedelta(minutes=30)
    assert attention.blocked_move("agent", now - timedelta(minutes=5), cutoff) == "agents"
    assert attention.blocked_move("delegations", now - timedelta(minutes=5), cutoff) == "agents"
    assert attention.blocked_move("agent", now - timedelta(minutes=45), cutoff) == "yours"  # it has stopped
    assert attention.blocked_move("user", now - timedelta(minutes=5), cutoff) == "yours"


def test_the_your_move_chip_counts_and_keeps_exactly_the_rows_tagged_your_move(service_catalog, settings):
    settings.WORKRAIL_STALL_MINUTES = 30
    made.waiting_for_user(service_catalog["extra"], key="CONF-1", quiet_minutes=45)  # needs you
    blocked_review("MR-77")  # blocked, the agent's move
    _stopped(blocked_review("MR-78").run_id)  # blocked, and the agent has stopped
    made.stalled()  # STALL-1
    made.canceled()  # CANCEL-1
    start_workflow(made.PLAN, context={"sessionKey": "RUN-1"})  # running
    now = timezone.now()
    Session.objects.create(  # a session without runs, quiet: its own state (stalled) is its row's
        public_id="ses_norunsquiet0001",
        session_key="ALONE-1",
        kind=SessionKind.WORKFLOW,
        status=SessionStatus.IN_PROGRESS,
        created_at=now - timedelta(hours=2),
        updated_at=now - timedelta(hours=2),
    )

    page = overview.list_sessions(count_yours=True)
    tagged = {row.session_key for row in page.items if _row_move(row) == "yours"}
    assert tagged == {"CONF-1", "MR-78", "STALL-1", "ALONE-1"}
    assert {row.session_key: _row_move(row) for row in page.items}["MR-77"] == "agents"
    assert page.yours == len(tagged)
    kept = overview.list_sessions(move="yours", count_yours=True)
    assert {row.session_key for row in kept.items} == tagged and kept.total == len(tagged)
    # The other two filters by whose move keep exactly the rows whose pill says theirs, as many as they count.
    moves = {row.session_key: _row_move(row) for row in page.items}
    counts = overview.move_counts(page.state_counts, page.yours)
    assert counts == {"yours": 4, "agents": 2, "nobody": 1}
    for move in ("agents", "nobody"):
        kept = overview.list_sessions(move=move, count_yours=True)  # type: ignore[arg-type]
        expected = {key for key, said in moves.items() if said == move}
        assert {row.session_key for row in kept.items} == expected and kept.total == counts[move], move
    assert moves["MR-77"] == "agents" and moves["CANCEL-1"] == "nobody"
    # The API's list does not pay for the count it does not answer.
    assert overview.list_sessions().yours == 0
    # The search narrows the chip as it narrows the rows.
    assert overview.list_sessions(query="MR-7", count_yours=True).yours == 1


def test_the_list_and_the_run_page_agree_on_a_blocked_runs_move(service_catalog, settings):
    settings.WORKRAIL_STALL_MINUTES = 30
    stuck = blocked_review("MR-77")
    cutoff = clock.stall_cutoff()
    detail = run_view.run_detail(stuck.run_id)
    assert detail.branch is not None and detail.branch.blocked is not None
    page_move = attention.move_of_blocked(detail.branch.blocked, cutoff)
    [row] = overview.list_sessions().items
    assert page_move == _row_move(row) == "agents"
    guide = attention.blocked_guide(detail.branch.blocked, cutoff)
    assert guide.lead.startswith("The agent was told what to fix and normally resends the step by itself")
    # The fold's title names what it holds and when it is for; the countdown is a line of its own (friction29a 7).
    assert guide.fold == "Resume here · only if the agent stopped"  # the step page's words (friction60a 13)
    assert guide.turns_at is not None and guide.turns_around == attention.TURNS

    _stopped(stuck.run_id)
    attention._KEPT.clear()  # kept by the session's last event: moving times back records none
    cutoff = clock.stall_cutoff()
    detail = run_view.run_detail(stuck.run_id)
    assert detail.branch is not None and detail.branch.blocked is not None
    [row] = overview.list_sessions().items
    assert attention.move_of_blocked(detail.branch.blocked, cutoff) == _row_move(row) == "yours"
    guide = attention.blocked_guide(detail.branch.blocked, cutoff)
    # How long, once: in the heading a step's page shows, the run page's status line in its place; what is wrong
    # is the panel's "Why it was refused" list (friction61a 5).
    assert guide.fold == "" and guide.lead == "The message gives it the step again to resend."
    assert guide.heading == "Refused: the agent has not resent this step for 45 min."
    assert guide.lead_verdict == "It has probably stopped." and "probably" not in guide.lead
    assert Run.objects.get(public_id=stuck.run_id).status == "blocked"
