"""The read services behind the dashboard and the API, and the summaries the projector keeps for them."""

from __future__ import annotations

import importlib
from datetime import timedelta

import pytest
from django.apps import apps
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from harness.projections import snapshot
from runs.contract.dashboard import PreferencesChange
from runs.contract.errors import WorkRailError
from runs.contract.inputs import Preferences
from runs.execution import session_actions
from runs.models import Event, EventKind, Node, Run, RunStatus, Session, SessionKind, SessionStatus
from runs.readmodels import attention, overview, run_view
from runs.store.projections import session_status
from runs.store.rebuild import rebuild_projections
from tests.support.checks import error_code
from tests.support.mcp_calls import continue_workflow, start_workflow
from tests.support.sample_session import SESSION_KEY, advance, two_runs_one_forked_twice

pytestmark = pytest.mark.django_db


def queries(work) -> int:
    with CaptureQueriesContext(connection) as captured:
        work()
    return len(captured)


# --- summaries kept by the projector -----------------------------------------------------------------


def test_the_projector_keeps_each_session_and_run_summarised(service_catalog):
    built = two_runs_one_forked_twice()
    session = Session.objects.get(public_id=built.session_id)
    assert session.status == SessionStatus.IN_PROGRESS
    assert session.workflow_ids.split() == ["wr.risk_scaled_mr_review", "wr.routine-focused_plan"]
    assert session.run_count == 2
    review = Run.objects.get(public_id=built.review_run)
    assert review.node_count == Node.objects.filter(run=review).count() == 11
    assert review.branch_count == 3  # forked twice
    assert session.branch_count == 3 + 1


def test_a_rebuilt_store_has_the_same_summaries_and_dashboard_changes(service_catalog):
    built = two_runs_one_forked_twice()
    session_actions.change_preferences(built.session_id, PreferencesChange(mode="autopilot"))
    session_actions.cancel_run(built.plan_run)
    before = snapshot()
    rebuild_projections()
    assert snapshot() == before


def test_stores_written_before_the_summaries_are_filled_in_by_the_migration(service_catalog):
    built = two_runs_one_forked_twice()
    before = snapshot()
    Session.objects.update(status=SessionStatus.BLOCKED, run_count=0, branch_count=0, workflow_ids="")
    Run.objects.update(node_count=0, branch_count=1)
    migration = importlib.import_module("runs.migrations.0006_dashboard_summaries")
    migration.fill_summaries(apps, None)
    assert snapshot() == before
    assert Session.objects.get(public_id=built.session_id).branch_count == 4


@pytest.mark.parametrize(
    ("kind", "statuses", "expected"),
    [
        (SessionKind.WORKFLOW, [], "in_progress"),
        (SessionKind.WORKFLOW, ["complete", "blocked"], "blocked"),
        (SessionKind.WORKFLOW, ["complete", "in_progress", "blocked"], "in_progress"),
        (SessionKind.WORKFLOW, ["canceled", "complete"], "complete"),
        (SessionKind.WORKFLOW, ["canceled"], "canceled"),
        (SessionKind.CHECKPOINT_ONLY, [], "notes"),
    ],
)
def test_a_session_status_sums_up_its_runs(kind, statuses, expected):
    assert session_status(kind, statuses) == expected


# --- the sessions list -------------------------------------------------------------------------------


def _sessions(count: int) -> list[str]:
    ids = []
    for index in range(count):
        answer = start_workflow("wr.routine-focused_plan", context={"sessionKey": f"KEY-{index:03d}"})
        ids.append(answer["session"]["sessionId"])
    return ids


def test_the_sessions_list_searches_titles_workflows_and_notes(service_catalog):
    built = two_runs_one_forked_twice()
    _sessions(3)
    assert [s.session_id for s in overview.list_sessions(query="halfway").items] == [built.session_id]
    assert [s.session_id for s in overview.list_sessions(query="ticket-4242").items] == [built.session_id]
    assert [s.session_id for s in overview.list_sessions(query="mr_review").items] == [built.session_id]
    assert overview.list_sessions(query="KEY-001").total == 1
    assert overview.list_sessions(query="halfway nothing-like-this").total == 0
    assert overview.list_sessions().total == 4


def test_the_sessions_list_filters_by_status_and_shows_stalled_sessions(service_catalog, settings):
    ids = _sessions(3)
    settings.WORKRAIL_STALL_MINUTES = 30
    Session.objects.filter(public_id=ids[0]).update(updated_at=timezone.now() - timedelta(minutes=31))
    session_actions.cancel_run(Run.objects.get(session__public_id=ids[1]).public_id)
    page = overview.list_sessions()
    assert page.status_counts == {"in_progress": 1, "stalled": 1, "canceled": 1}
    assert [s.session_id for s in overview.list_sessions(status="stalled").items] == [ids[0]]
    assert [s.status for s in overview.list_sessions(status="stalled").items] == ["stalled"]
    assert [s.session_id for s in overview.list_sessions(status="in_progress").items] == [ids[2]]
    assert [s.session_id for s in overview.list_sessions(status="canceled").items] == [ids[1]]


def test_the_sessions_list_sorts_groups_and_pages(service_catalog):
    ids = _sessions(5)
    Session.objects.filter(public_id__in=ids[:2]).update(git_branch="feature/a")
    newest_first = [s.session_id for s in overview.list_sessions().items]
    assert newest_first == list(reversed(ids))
    assert [s.title for s in overview.list_sessions(sort="title").items] == [f"KEY-{i:03d}" for i in range(5)]
    grouped = overview.list_sessions(group="branch", sort="title")
    assert [(g.label, g.first_index, g.count) for g in grouped.groups] == [("(none)", 0, 3), ("feature/a", 3, 2)]
    second = overview.list_sessions(sort="title", page=2, per_page=2)
    assert (second.page, second.pages, second.total) == (2, 3, 5)
    assert [s.title for s in second.items] == ["KEY-002", "KEY-003"]
    assert overview.list_sessions(sort="title", page=99, per_page=2).page == 3  # clamped, not empty


def test_sessions_are_grouped_by_repository_then_branch(service_catalog):
    ids = _sessions(4)
    Session.objects.filter(public_id__in=ids[:2]).update(workspace_path="/src/shop", git_branch="main")
    Session.objects.filter(public_id=ids[2]).update(workspace_path="/src/blog", git_branch="main")
    Session.objects.filter(public_id=ids[3]).update(workspace_path="/src/blog", git_branch="feature/x")
    grouped = overview.list_sessions(group="branch", sort="title")
    assert [(g.workspace_path, g.git_branch, g.count) for g in grouped.groups] == [
        ("/src/blog", "feature/x", 1),
        ("/src/blog", "main", 1),
        ("/src/shop", "main", 2),  # "main" of two repositories: two groups
    ]
    assert [g.label for g in grouped.groups] == ["feature/x · /src/blog", "main · /src/blog", "main · /src/shop"]
    by_repository = overview.list_sessions(group="workspace")
    assert [(g.label, g.git_branch, g.count) for g in by_repository.groups] == [
        ("/src/blog", None, 2),
        ("/src/shop", None, 2),
    ]


def test_the_sessions_list_costs_the_same_queries_for_few_and_many_sessions(service_catalog):
    _sessions(2)
    overview.list_sessions()  # the workflow's steps, read once per pinned workflow and kept (step counts)
    attention._KEPT.clear()
    few = queries(lambda: overview.list_sessions(query="key", group="branch"))
    _sessions(12)
    attention._KEPT.clear()
    many = queries(lambda: overview.list_sessions(query="key", group="branch"))
    # The page, the status counts, whether any session has an owner; then, for where each session is
    # (attention.py), its runs, their branches (branches.read_many: five), their workflows' names and where
    # their newest steps sit in the outline (step_places.py), and those steps' titles (step_text.titles_seen).
    assert few == many == 3 + 1 + 5 + 1 + 1 + 1
    assert queries(lambda: overview.list_sessions(query="key", group="branch")) == 3  # nothing changed: kept


# --- a session, a run, a node ------------------------------------------------------------------------


def test_a_session_detail_lists_runs_checkpoints_and_a_timeline_lane_per_run(service_catalog):
    built = two_runs_one_forked_twice()
    detail = overview.session_detail(built.session_id)
    assert [r.run_id for r in detail.runs] == [built.review_run, built.plan_run]
    assert detail.runs[0].workflow_name == "Risk-Scaled Merge Request Review"
    assert detail.mode == "guided"
    assert [c.notes_markdown.split(".")[0] for c in detail.checkpoints] == ["Checkpoint: halfway"]
    assert [lane.run_id for lane in detail.timeline] == [built.review_run, built.plan_run]
    assert len(detail.timeline[0].points) == 11
    assert all(0 <= p <= 1 for lane in detail.timeline for p in lane.points)


def test_unknown_ids_are_not_found(service_catalog):
    assert error_code(lambda: overview.session_detail("ses_nope")) == "NOT_FOUND"
    assert error_code(lambda: run_view.run_detail("run_nope")) == "NOT_FOUND"
    assert error_code(lambda: run_view.node_detail("12345")) == "NOT_FOUND"
    assert error_code(lambda: run_view.node_detail("\uff11\uff12\uff13")) == "NOT_FOUND"  # digits, not ASCII
    assert error_code(lambda: run_view.node_detail("9" * 40)) == "NOT_FOUND"


def test_a_run_detail_draws_every_branch_and_follows_the_newest(service_catalog):
    built = two_runs_one_forked_twice()
    detail = run_view.run_detail(built.review_run)
    graph = detail.graph
    assert len(graph.nodes) == 11 and len(graph.edges) == 10
    assert graph.lanes == 3 == sum(n.is_leaf for n in graph.nodes)
    assert [n.node_id for n in graph.nodes if n.is_tip] == [graph.tip] == [detail.branch_tip]
    assert {n.via for n in graph.nodes} == {"start", "step", "checkpoint"}
    assert [s.step_id for s in detail.steps][:2] == ["triage-change", "list-changed-files"]
    assert detail.steps[-2].kind == "checkpoint"
    assert [f.path for f in detail.tables.changed_files] == ["src/alpha.py", "src/zeta.py"]
    assert [f.severity for f in detail.tables.findings] == ["critical", "major", "minor"]


def test_a_run_detail_shows_the_branch_of_the_node_asked_for(service_catalog):
    built = two_runs_one_forked_twice()
    graph = run_view.run_detail(built.review_run).graph
    fork_leaf = next(n for n in graph.nodes if n.is_leaf and n.lane == 2)
    detail = run_view.run_detail(built.review_run, tip=fork_leaf.node_id)
    assert detail.branch_tip == fork_leaf.node_id
    assert [s.notes_markdown for s in detail.steps][-1] == "A second look after a rewind."
    assert len(detail.steps) == fork_leaf.depth
    assert error_code(lambda: run_view.run_detail(built.review_run, tip="123")) == "NOT_FOUND"


def test_a_run_detail_costs_the_same_queries_for_a_short_and_a_long_run(service_catalog):
    short = start_workflow("wr.risk_scaled_mr_review", context={"changeRef": "!1"})
    advance(short, "one")
    few = queries(lambda: run_view.run_detail(short["session"]["runId"]))
    built = two_runs_one_forked_twice()
    many = queries(lambda: run_view.run_detail(built.review_run))
    assert few == many


def test_a_node_detail_gives_a_token_that_resumes_there_and_the_branches_grown_from_it(service_catalog):
    built = two_runs_one_forked_twice()
    fork_point = built.answers[1]
    node = run_view.node_detail(
        str(Node.objects.filter(run__public_id=built.review_run, depth=1).values_list("public_id", flat=True).get())
    )
    assert node.step_id == fork_point["pending"]["stepId"]
    assert len(node.branches) == 2  # the first branch and the one a rewind grew
    assert [b.notes_preview for b in node.branches][1] == "A second look after a rewind."
    assert len(node.recorded) == 2
    assert [e["stepId"] for e in node.recap["entries"]] == ["triage-change"]
    resumed = continue_workflow(stateToken=node.state_token)
    assert resumed["pending"]["stepId"] == node.step_id


def test_session_events_are_paged_by_seq(service_catalog):
    built = two_runs_one_forked_twice()
    first = overview.session_events(built.session_id, limit=10)
    assert [e.seq for e in first.items] == list(range(1, 11))
    assert first.next_after == 10
    everything = Event.objects.filter(session__public_id=built.session_id).count()
    last = overview.session_events(built.session_id, after=everything - 3, limit=10)
    assert [e.seq for e in last.items] == [everything - 2, everything - 1, everything]
    assert last.next_after is None


# --- actions -----------------------------------------------------------------------------------------


def test_a_mode_change_is_recorded_and_taken_by_the_next_step_not_by_older_nodes(service_catalog):
    start = start_workflow("wr.risk_scaled_mr_review", context={"changeRef": "!1", "sessionKey": SESSION_KEY})
    first = advance(start, "Triaged.")
    result = session_actions.change_preferences(start["session"]["sessionId"], PreferencesChange(mode="unattended"))
    assert result.mode == "unattended"
    assert result.runs_changed == [start["session"]["runId"]]
    changes = Event.objects.filter(kind=EventKind.PREFERENCES_CHANGED).order_by("seq")
    assert [(e.data["runId"] is None, e.data["source"]) for e in changes] == [(True, "dashboard"), (False, "dashboard")]
    assert continue_workflow(stateToken=first["stateToken"])["mode"] == "unattended"  # the tip takes it
    assert continue_workflow(stateToken=start["stateToken"])["mode"] == "guided"  # history keeps its own
    assert advance(first, "Listed the files.")["mode"] == "unattended"
    later = start_workflow("wr.routine-focused_plan", context={"sessionKey": SESSION_KEY})
    assert later["mode"] == "unattended"  # the session's baseline changed too


def test_a_preferences_change_refuses_nothing_and_unknown_sessions(service_catalog):
    start = start_workflow("wr.routine-focused_plan")
    session_id = start["session"]["sessionId"]
    assert error_code(lambda: session_actions.change_preferences(session_id, PreferencesChange())) == "INVALID_INPUT"
    change = PreferencesChange(preferences=Preferences(risk_policy="conservative"))
    assert error_code(lambda: session_actions.change_preferences("ses_nope", change)) == "NOT_FOUND"
    assert session_actions.change_preferences(session_id, change).preferences["riskPolicy"] == "conservative"


def test_cancel_stops_a_run_once_and_refuses_a_complete_one(service_catalog):
    start = start_workflow("wr.routine-focused_plan")
    run_id = start["session"]["runId"]
    assert session_actions.cancel_run(run_id).status == "canceled"
    assert session_actions.cancel_run(run_id).status == "canceled"  # again: no error, nothing new
    assert Event.objects.filter(kind=EventKind.RUN_STATUS_CHANGED, data__to="canceled").count() == 1
    with pytest.raises(WorkRailError) as refused:
        advance(start, "Too late.")
    assert refused.value.code.value == "RUN_CANCELED"
    assert Session.objects.get(public_id=start["session"]["sessionId"]).status == SessionStatus.CANCELED
    Run.objects.filter(public_id=run_id).update(status=RunStatus.COMPLETE)
    assert error_code(lambda: session_actions.cancel_run(run_id)) == "INVALID_INPUT"
    assert error_code(lambda: session_actions.cancel_run("run_nope")) == "NOT_FOUND"


def test_titles_and_prompts_are_shown_as_the_agent_saw_them(service_catalog):
    built = two_runs_one_forked_twice()
    detail = run_view.run_detail(built.review_run)
    titles = [n.title for n in detail.graph.nodes]
    assert "Review api" in titles and "Review storage" in titles
    assert not any("{{" in title for title in titles)  # loop variables filled in, open leaves included
    leaf = next(n for n in detail.graph.nodes if n.is_leaf and n.lane == 1)
    node = run_view.node_detail(leaf.node_id)
    assert "{{" not in node.title and "{{" not in node.prompt
    assert node.title == leaf.title
