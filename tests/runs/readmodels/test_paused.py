"""Paused (runs/readmodels/paused.py): a run no agent has touched since it came here, imported or started by
hand, is its own state everywhere a state is read, the person's move, never "Running" nor "Stalled"; once an
agent carries on, it is running again."""

from __future__ import annotations

import html
from datetime import timedelta

import pytest
from django.conf import settings

from exports.bundle.export import export_bundle
from exports.bundle.importing import import_bundle
from exports.bundle.reading import read_bundle
from runs.execution.operator_fork import fork_node
from runs.models import Node, Run, Session
from runs.readmodels import attention, overview, run_view, states
from runs.store import tokens
from runs.store.tokens import TokenKind
from tests.exports.bundle.support import empty_the_store
from tests.support import attention_sessions as made
from tests.support.mcp_calls import ack, continue_workflow, start_workflow
from tests.support.pages import page

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("fresh_attention_places")]


def _imported_two_runs() -> str:
    """A session of two open runs, exported, the store emptied, then imported: its id."""
    first = start_workflow(made.PLAN, context={"sessionKey": "IMP-2"})
    ack(first)
    start_workflow(made.PLAN, context={"sessionKey": "IMP-2"})
    raw = export_bundle(Session.objects.get(public_id=first["session"]["sessionId"]))
    empty_the_store()
    import_bundle(read_bundle(raw, max_bytes=len(raw) + 1), via="command")
    return first["session"]["sessionId"]


def _tip_token(run: Run) -> str:
    tip = Node.objects.filter(run=run).order_by("-created_at", "-pk").first()
    assert tip is not None
    return tokens.mint(settings.WORKRAIL_HOME, TokenKind.STATE, tip.public_id)


def test_an_imported_run_is_paused_until_an_agent_carries_on(settings):
    settings.WORKRAIL_STALL_MINUTES = 30
    session_id = _imported_two_runs()
    Run.objects.update(updated_at=Run.objects.first().updated_at - timedelta(hours=3))  # quiet: nobody stalled
    Session.objects.update(updated_at=Session.objects.get().updated_at - timedelta(hours=3))
    detail = overview.session_detail(session_id)
    assert [run.state for run in detail.runs] == ["paused", "paused"]
    assert detail.session.state == "paused" and [line.place for line in detail.run_lines] == ["paused", "paused"]
    assert all(line.move == "yours" and line.words.endswith("imported") for line in detail.run_lines)
    assert all("stalled" not in (run.status_summary or "") for run in detail.runs)
    assert detail.session.status == "in_progress" and {run.status for run in detail.runs} == {"in_progress"}
    # The list says it too, counts it among the person's turns, and filters on it in SQL.
    listed = overview.list_sessions(count_yours=True)
    [row] = listed.items
    assert row.state == "paused" and listed.state_counts == {"paused": 1} and listed.yours == 1
    assert [s.session_id for s in overview.list_sessions(state="paused").items] == [session_id]
    assert overview.list_sessions(state="stalled").items == []
    # Each open run has its own panel, with its own message to give an agent.
    shown = [run_view.run_detail(run.run_id) for run in detail.runs]
    panels = [next(p for p in run.panels if p.kind == "paused") for run in shown]
    assert [p.state for p in panels] == ["paused", "paused"] and all(
        p.title.startswith("No agent yet: imported just now") for p in panels
    )
    assert len({p.sentence for p in panels}) == 2

    # An agent carries on with the first run: it runs again; the second is still nobody's.
    first, _ = Run.objects.order_by("created_at", "pk")
    resumed = continue_workflow(stateToken=_tip_token(first))
    ack(resumed)
    detail = overview.session_detail(session_id)
    assert [run.state for run in detail.runs] == ["running", "paused"]
    assert not any(p.kind == "paused" for p in run_view.run_detail(first.public_id).panels)
    assert overview.list_sessions().items[0].state == "paused"
    # With the person's turns, before a stalled one, in the list's most urgent first order.
    made.stalled()
    assert [row.state for row in overview.list_sessions(urgent_first=True).items] == ["paused", "stalled"]


def test_a_branch_started_by_hand_is_paused_until_an_agent_takes_it_up():
    start = start_workflow(made.PLAN, context={"sessionKey": "HAND-1"})
    ack(start)
    root = Node.objects.get(parent__isnull=True)
    fork_node(root.public_id, {}, "Try again.", via="dashboard")
    run = Run.objects.get()
    detail = run_view.run_detail(run.public_id)
    assert detail.run.state == "paused" and detail.branch is not None and detail.branch.state == "paused"
    assert detail.where is not None and detail.where.words.endswith("started by hand")
    [panel] = [p for p in detail.panels if p.kind == "paused"]
    assert panel.title.startswith("No agent yet: started by hand just now") and panel.sentence
    assert overview.list_sessions(state="paused").total == 1
    assert states.move("paused") == "yours"

    child = Node.objects.filter(parent=root).order_by("-created_at", "-pk").first()
    assert child is not None
    continue_workflow(
        stateToken=tokens.mint(settings.WORKRAIL_HOME, TokenKind.STATE, child.public_id),
        ackToken=tokens.mint(settings.WORKRAIL_HOME, TokenKind.ACK, child.attempts.get().public_id),
        output={"notesMarkdown": "Clarified again."},
    )
    detail = run_view.run_detail(run.public_id)
    assert detail.run.state == "running" and not any(p.kind == "paused" for p in detail.panels)
    assert overview.list_sessions(state="paused").total == 0


def test_several_imported_runs_say_which_to_start_first(client, settings):
    """friction64 (D 4): two imported runs with no agent yet, and neither panel said which to start first. The
    order the product keeps is each run's last move before the export (resume_session offers the most recently
    updated run first): the run last moved first, said in each one's panel."""
    settings.WORKRAIL_STALL_MINUTES = 30
    session_id = _imported_two_runs()
    first, second = Run.objects.order_by("created_at", "pk")
    # The first run moved last on the machine it came from: it goes first, whatever its number.
    Run.objects.filter(pk=second.pk).update(updated_at=first.updated_at - timedelta(hours=1))
    detail = overview.session_detail(session_id)
    assert [run.run_id for run in attention.start_order(detail.runs, detail.run_lines)] == [
        first.public_id,
        second.public_id,
    ]

    def said(run: Run) -> str:
        text = page(client, f"/runs/{run.public_id}/")
        panel = text.split('class="state-panel state-paused"')[1].split("</section>")[0]
        return html.unescape(panel.split('id="start-order">')[1].split("</p>")[0])

    lead = "2 runs here have no agent yet: start them in the order they last moved before the import, "
    assert said(first) == lead + "this run first, then Focused Plan Routine (run 2)."
    assert said(second) == lead + "Focused Plan Routine (run 1) first, then this run."
    # Once an agent carries on with one, the other is the only one left: nothing to order.
    ack(continue_workflow(stateToken=_tip_token(first)))
    assert 'id="start-order"' not in page(client, f"/runs/{second.public_id}/")
