"""A run card's one status line (runs/readmodels/status_line.py): the state and where the agent is, said once;
what canceling stops, counted from the branches still open; and a forked branch's box counting the steps it
shares apart from its own, so that the boxes add up to the Steps card's count."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db.models import F

from runs.execution import session_actions
from runs.models import Ack
from runs.readmodels import branches, graph_page, run_view, status_line
from tests.support import attention_sessions as made
from tests.support.branched_review import blocked_review
from tests.support.mcp_calls import continue_workflow, start_workflow
from tests.support.sample_session import advance

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("fresh_attention_places")]


def line_of(run_id: str, tip: str | None = None) -> status_line.StatusLine:
    return status_line.of_run(run_view.run_detail(run_id, tip=tip))


def test_a_cancel_nobody_recorded_says_so_rather_than_naming_a_place(service_catalog):
    # A cancel through no door that records who (a process that set none): the line says who is unknown, never
    # "from this machine" (friction14), and keeps the moment between its two parts.
    start = start_workflow("wr.routine-focused_plan")
    advance(start, "Clarified.")
    session_actions.cancel_run(start["session"]["runId"])
    line = line_of(start["session"]["runId"])
    expected = ("Draft Plan with Risks · step 2 of 3 · canceled ", " (by whom was not recorded)", "ago")
    assert line.timed == expected, line.timed
    assert "machine" not in line.words


def test_each_state_says_where_the_agent_is_in_one_sentence(service_catalog, settings):
    settings.WORKRAIL_STALL_MINUTES = 30
    waiting = line_of(made.waiting_for_user(service_catalog["extra"], quiet_minutes=45).run_id)
    assert waiting.state == "needs_you"
    assert waiting.timed == ("Approve the plan · step 2 of 3 · waiting for your confirmation ", "", "for")
    stalled = line_of(made.stalled().run_id)
    assert stalled.state == "stalled"
    assert stalled.timed == ("Draft Plan with Risks · step 2 of 3 · stalled ", "", "for")
    stuck = line_of(blocked_review("MR-1").run_id)
    assert stuck.state == "blocked"
    assert stuck.timed == ("Record the Changed Files · step 2 of 8 · refused ", ", the agent must resend it", "ago")
    canceled = line_of(made.canceled().run_id)
    assert canceled.words == "Draft Plan with Risks · step 2 of 3 · canceled in the dashboard"
    finished = start_workflow(made.PLAN)
    made.run_to_the_end(finished)
    done = line_of(finished["session"]["runId"])
    assert done.state == "done" and done.timed == ("Finished ", " · 3 steps answered", "ago")
    assert all(line.since is not None for line in (waiting, stalled, stuck, canceled, done))


def test_a_blocked_step_whose_agent_stopped_no_longer_says_the_agent_must_resend_it(service_catalog, settings):
    settings.WORKRAIL_STALL_MINUTES = 30
    stuck = blocked_review("MR-2")
    Ack.objects.filter(node__run__public_id=stuck.run_id).update(created_at=F("created_at") - timedelta(minutes=45))
    made.quiet(stuck.run_id)
    line = line_of(stuck.run_id)
    assert line.chip is not None and line.chip.move == "yours"
    assert line.timed == ("Record the Changed Files · step 2 of 8 · refused ", ", the agent has not resent it", "ago")


def test_a_forked_run_says_the_branch_the_agent_works_on_and_names_the_shown_one_once(service_catalog):
    rewound = made.left_behind()
    newest = line_of(rewound.run_id)
    assert newest.words.startswith("Draft Plan with Risks · step 2 of 3 · branch 2 · agent working ")
    assert newest.timed is not None and newest.timed.form == "for"  # "agent working for 10 min"
    assert newest.showing is None
    detail = run_view.run_detail(rewound.run_id)
    behind = next(o for o in detail.other_branches if o.number == 1)
    shown = line_of(rewound.run_id, tip=behind.tip_node_id)
    # The line stays about where the agent works; the banner names its branch before it ("The agent works on
    # branch 2: …"), so the line leaves out the branch and how long the agent has worked (friction24a 9).
    assert shown.words == "Draft Plan with Risks · step 2 of 3" and shown.timed is None
    assert shown.latest == 2 and shown.agent_works and newest.latest is None
    assert shown.showing is not None and shown.showing.number == 1 and shown.showing.state == "left_behind"


def test_canceling_counts_only_the_branches_it_would_stop(service_catalog):
    one = run_view.run_detail(made.stalled().run_id)
    assert status_line.cancel_stops(one).button == "Cancel run…"
    assert status_line.cancel_stops(one).confirm == (
        "Are you sure? This cannot be undone: the run stops, and an agent still on it is told the run was canceled."
        " Steps already answered stay recorded."
    )
    both = run_view.run_detail(made.left_behind().run_id)
    stops = status_line.cancel_stops(both)
    assert stops.open_branches == [1, 2]
    # Told apart as the branch cards tell them: the one in progress, the one left behind (friction16b 7).
    assert (stops.in_progress, stops.left_behind) == ([2], [1])
    # On a branched run the button says it covers the whole run (friction22a B5), with no count: a count of every
    # branch read as undoing finished work (friction23a A2); the branches it stops, the confirmation names
    # (friction17b 18), that it cannot be undone, and that answered steps stay.
    # friction28b 14: on a run of several branches the label says it is the whole run, not the branch in view.
    assert stops.button == "Cancel run (all branches)…"
    assert stops.confirm.endswith("Steps already answered stay recorded.")
    assert stops.confirm.startswith("Are you sure? This cannot be undone: every branch of the run stops, with branch 2")
    assert ", with branch 2 in progress and branch 1 left behind, and an agent" in stops.confirm
    # A branch that finished stops nothing, but the run has two branches: it is still the whole run.
    start = start_workflow(made.PLAN, context={"sessionKey": "DONE-THEN-AGAIN"})
    made.run_to_the_end(start)
    advance(continue_workflow(stateToken=start["stateToken"]), "Clarified again.")
    detail = run_view.run_detail(start["session"]["runId"])
    assert detail.run.status != "complete"
    assert sorted(o.status for o in [detail.branch, *detail.other_branches] if o) == ["complete", "open"]
    stops = status_line.cancel_stops(detail)
    assert len(stops.open_branches) == 1 and stops.button == "Cancel run (all branches)…"
    assert "branch 1" not in stops.confirm and "every branch of the run stops, and an agent" in stops.confirm


def test_a_branch_rewound_at_step_2_counts_its_shared_step_apart_and_the_counts_add_up(service_catalog):
    start = start_workflow(made.PLAN, context={"sessionKey": "REWIND-2"})
    first = advance(start, "Clarified.")
    advance(first, "Drafted.")
    advance(continue_workflow(stateToken=first["stateToken"]), "Drafted again.")
    detail = run_view.run_detail(start["session"]["runId"])
    assert detail.branch is not None and detail.branch.number == 2
    lanes = branches.lanes((n.node_id, n.parent_id, n.lane) for n in detail.graph.nodes)
    branch_of = {node_id: lane.number for lane in lanes for node_id in lane.nodes}
    split = graph_page.answered_split(detail, 2, branch_of)
    assert split.own.answered == 1 and {n: c.answered for n, c in split.shared.items()} == {1: 1}
    # The box's figures add up to the Steps card's, which lists the shared step and the branch's own.
    assert split.total == graph_page.steps_counted(detail).answered == 2
    assert split.words == "2 steps answered: 1 shared with branch 1, 1 on this branch"
    # Branch 1's box holds the shared step as its own: the shared one is counted in one box only.
    behind = next(o for o in detail.other_branches if o.number == 1)
    shown_1 = run_view.run_detail(start["session"]["runId"], tip=behind.tip_node_id)
    assert graph_page.answered_split(shown_1, 1, branch_of).words == "2 steps answered"


def test_cancel_names_each_kind_of_branch_it_stops_in_the_cards_words_in_its_confirmation_only():
    assert status_line.CancelStops([3], [1, 2], branches=3).button == "Cancel run (all branches)…"
    assert status_line.CancelStops([3], [1, 2], branches=3).confirm.startswith(
        "Are you sure? This cannot be undone: every branch of the run stops, with branch 3 in progress and "
        "branches 1 and 2 left behind, and "
    )
    assert status_line.CancelStops([1, 2], branches=2).confirm.startswith(
        "Are you sure? This cannot be undone: every branch of the run stops, with branches 1 and 2 in progress, and "
    )
    assert status_line.CancelStops([], [1]).button == status_line.CancelStops([1]).button == "Cancel run…"


def test_the_line_comes_in_typed_parts_the_name_then_the_counters_and_state_on_one_line(service_catalog, settings):
    # friction25a 8: the step's name leads, in bold; friction28b 5: step, round, part and branch follow it on the
    # same line, before the state ("Approve the plan · step 2 of 3 · waiting for …"), not on a line of their
    # own under it. From the same fields, never split out of the joined sentence.
    settings.WORKRAIL_STALL_MINUTES = 30
    waiting = line_of(made.waiting_for_user(service_catalog["extra"], quiet_minutes=45).run_id)
    assert (waiting.title, waiting.said_timed) == (
        "Approve the plan",
        ("step 2 of 3 · waiting for your confirmation ", "", "for"),
    )
    assert waiting.words == f"{waiting.title} · {waiting.said}"
    newest = line_of(made.left_behind().run_id)
    assert newest.title == "Draft Plan with Risks"
    assert newest.said.startswith("step 2 of 3 · branch 2 · agent working") and newest.said_timed is not None
    canceled = line_of(made.canceled().run_id)
    assert (canceled.title, canceled.said) == ("Draft Plan with Risks", "step 2 of 3 · canceled in the dashboard")
    finished = start_workflow(made.PLAN)
    made.run_to_the_end(finished)
    done = line_of(finished["session"]["runId"])
    assert (done.title, done.said_timed) == ("", ("Finished ", " · 3 steps answered", "ago"))
