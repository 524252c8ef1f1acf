"""Which branch a synthesis, an artifact, a finding or a status belongs to (runs/readmodels/branches.py),
and every reader answering it the same way: the run page and the API, the run resource, the reports.

The story: the focused-plan routine run to its end (branch 1: changed files on its first step, a
checkpoint, a finding, "Verdict: ready."), then the agent rewound to the second step and went another
way without a finding (branch 2, the newest, open).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from exports.reports import branch_tree, markdown_report
from exports.reports.data import build_report
from runs.execution import session_actions
from runs.models import Node, Run, RunSynthesis
from runs.readmodels import branches, run_view
from runs.readmodels.resources import read_run
from tests.exports.reports.support import small_complete_session
from tests.support.mcp_calls import ack_with_notes, continue_workflow, start_workflow

pytestmark = pytest.mark.django_db

PLAN = "wr.routine-focused_plan"


@dataclass
class Forked:
    session_id: str
    run_id: str
    done_node: str  # where branch 1 completed (the tip of branch 1)
    open_node: str  # the tip of branch 2, the newest node
    synthesis: dict[str, Any]  # branch 1's, as its completion recorded it
    answers: list[dict[str, Any]]  # branch 1's answers, from the start


def forked_after_completion() -> Forked:
    small = small_complete_session("FORKED-1")
    second = small.answers[1]  # pending draft-plan; branch 1 went on from here through a checkpoint
    rewound = continue_workflow(stateToken=second["stateToken"])  # a fresh ackToken: acknowledging forks
    other = ack_with_notes(rewound, "A different plan, no finding this time.")
    assert other["isComplete"] is False
    run = Run.objects.get(public_id=small.run_id)
    done = Node.objects.get(run=run, is_complete=True)
    newest = Node.objects.filter(run=run).order_by("-created_at", "-pk").first()
    assert newest is not None and not newest.is_complete
    synthesis = RunSynthesis.objects.get(node=done).synthesis
    return Forked(small.session_id, small.run_id, str(done.public_id), str(newest.public_id), synthesis, small.answers)


@pytest.fixture
def forked(service_catalog) -> Forked:
    return forked_after_completion()


def tree_of(run_id: str) -> branches.RunBranches:
    return branches.read(Run.objects.get(public_id=run_id))


# --- the read model --------------------------------------------------------------------------------------


def test_each_branch_owns_its_status_synthesis_and_findings(forked):
    tree = tree_of(forked.run_id)
    first, second = tree.branches
    assert (first.number, first.status, first.is_newest) == (1, "complete", False)
    assert (second.number, second.status, second.is_newest) == (2, "open", True)
    assert str(tree.public(first.tip)) == forked.done_node and str(tree.public(second.tip)) == forked.open_node
    assert second.forked_from is not None and second.forked_from in tree.path(first.tip)

    newest = tree.view()
    assert newest is not None and newest.branch == second
    assert newest.synthesis is None  # branch 1's synthesis is not branch 2's
    assert newest.findings == []  # the finding was recorded on branch 1, after the fork
    assert [f.path for f in newest.tables.changed_files] == ["src/orders.py"]  # before the fork: shared
    assert [r.notes_markdown for r in newest.records][-1] == "A different plan, no finding this time."

    finished = tree.view(first.tip)
    assert finished is not None and finished.synthesis == forked.synthesis
    assert [(f.severity, f.title) for f in finished.findings] == [("major", "Unbounded query")]

    outcomes = tree.outcomes()  # what branch 2's page can say about branch 1 (issue 20's callouts)
    assert [(o.branch.number, o.status, o.synthesis is not None, len(o.findings)) for o in outcomes] == [
        (1, "complete", True, 1),
        (2, "open", False, 0),
    ]


def test_the_latest_artifact_of_a_kind_is_the_one_that_stands(service_catalog):
    files = {"kind": "mr_review.changed_files", "changedFiles": [{"path": "old.py", "summary": "", "risk": "L"}]}
    again = {"kind": "mr_review.changed_files", "changedFiles": [{"path": "new.py", "summary": "", "risk": "L"}]}
    start = start_workflow(PLAN)
    ack_with_notes(ack_with_notes(start, "First list.", [files]), "Second list.", [again])
    view = tree_of(start["session"]["runId"]).view()
    assert view is not None
    assert [kind for _, a in view.standing for kind in [a["kind"]]] == ["mr_review.changed_files"]
    assert [f.path for f in view.tables.changed_files] == ["new.py"]


def test_a_refused_answer_at_the_tip_blocks_that_branch_only(service_catalog):
    start = start_workflow(PLAN)
    second = ack_with_notes(start, "Goal set.")
    finished = ack_with_notes(ack_with_notes(second, "Plan."), "Verdict.")
    assert finished["isComplete"] is True
    rewound = continue_workflow(stateToken=second["stateToken"])
    refused = continue_workflow(stateToken=rewound["stateToken"], ackToken=rewound["ackToken"], output={})
    assert refused["kind"] == "blocked"
    # The refusal was at second's node, which had already stepped on: no branch is blocked by it.
    assert [b.status for b in tree_of(start["session"]["runId"]).branches] == ["complete"]

    forked = ack_with_notes(continue_workflow(stateToken=second["stateToken"]), "Another plan.")
    blocked = continue_workflow(stateToken=forked["stateToken"], ackToken=forked["ackToken"], output={})
    assert blocked["kind"] == "blocked"
    assert [b.status for b in tree_of(start["session"]["runId"]).branches] == ["complete", "blocked"]
    ack_with_notes(blocked, "Verdict after all.")
    assert [b.status for b in tree_of(start["session"]["runId"]).branches] == ["complete", "complete"]


def test_a_canceled_run_cancels_its_open_branches_not_its_finished_ones(forked):
    session_actions.cancel_run(forked.run_id)
    assert [b.status for b in tree_of(forked.run_id).branches] == ["complete", "canceled"]


# --- every reader says the same ----------------------------------------------------------------------------


def test_the_run_page_shows_a_branch_its_own_synthesis_and_findings(forked):
    newest = run_view.run_detail(forked.run_id)
    assert newest.branch_tip == forked.open_node
    assert newest.synthesis is None
    assert newest.tables.findings == []
    assert newest.pending_step_id == "self-check-plan"

    finished = run_view.run_detail(forked.run_id, tip=forked.done_node)
    assert finished.synthesis == forked.synthesis
    assert [f.title for f in finished.tables.findings] == ["Unbounded query"]
    assert finished.pending_step_id is None


def test_the_dashboard_page_shows_the_synthesis_on_the_completed_branch_only(forked, client: Client):
    newest = client.get(f"/runs/{forked.run_id}/").content.decode()
    assert 'id="synthesis-title"' not in newest and 'id="findings-title"' not in newest
    finished = client.get(f"/runs/{forked.run_id}/?tip={forked.done_node}").content.decode()
    assert 'id="synthesis-title"' in finished and 'id="findings-title"' in finished


def test_the_api_run_endpoint_attributes_the_synthesis_to_its_branch(forked, client: Client, django_user_model):
    client.force_login(django_user_model.objects.create_user("admin", password="pw", is_staff=True))
    newest = client.get(f"/api/v1/runs/{forked.run_id}").json()
    assert newest["branchTip"] == forked.open_node
    assert newest["synthesis"] is None and newest["tables"]["findings"] == []
    finished = client.get(f"/api/v1/runs/{forked.run_id}", {"tip": forked.done_node}).json()
    assert finished["synthesis"] == forked.synthesis
    assert [f["title"] for f in finished["tables"]["findings"]] == ["Unbounded query"]


def test_the_run_resource_gives_the_tip_its_own_synthesis_only(forked):
    view = read_run(forked.run_id)
    assert view["tip"]["isComplete"] is False and view["tip"]["pendingStepId"] == "self-check-plan"
    assert view["synthesis"] is None  # the newest tip's branch has not completed
    assert view["branchCount"] == 1  # one node forked

    finished = start_workflow(PLAN)
    ack_with_notes(ack_with_notes(ack_with_notes(finished, "Goal."), "Plan."), "Verdict.")
    assert read_run(finished["session"]["runId"])["synthesis"]["steps"][-1]["notesMarkdown"] == "Verdict."


def test_the_report_lists_each_branch_with_its_own_status_and_synthesis(forked):
    report = build_report(forked.session_id)
    [detail] = report.runs
    tree = report.branches[forked.run_id]
    assert [b.status for b in tree.branches] == ["complete", "open"]
    lines = branch_tree.lines(detail, tree)
    assert lines[0].startswith("● Branch 1: ") and "(complete)" in lines[0]
    assert lines[1].startswith("  └─ Branch 2: ") and "waiting at step 3 of 3, newest)" in lines[1]

    # Every branch is in the report, each with its own synthesis, notes and findings: branch 1 (finished)
    # first, with its synthesis and finding; branch 2 after it, with neither.
    text = markdown_report.render(report)
    first, second = text.split("### Branch 1 (complete)")[1].split("### Branch 2 (newest, open)")
    assert "#### Summary of branch 1" in first and "Verdict: ready." in first and "Unbounded query" in first
    assert "A different plan, no finding this time." in second
    assert "Synthesis" not in second.split("### Timeline")[0] and "Unbounded query" not in second

    one = markdown_report.render(build_report(forked.session_id, forked.run_id))
    assert "#### Summary of branch 1" in one and "### Branch 2 (newest, open)" in one


def test_the_graph_drawing_numbers_branches_as_the_read_model_does(forked):
    detail = run_view.run_detail(forked.run_id)
    drawn = branches.lanes((n.node_id, n.parent_id, n.lane) for n in detail.graph.nodes)
    tree = tree_of(forked.run_id)
    assert [(lane.number, lane.tip) for lane in drawn] == [(b.number, str(tree.public(b.tip))) for b in tree.branches]


# --- cheap enough for a dashboard page ---------------------------------------------------------------------


def queries(call: Any) -> int:
    with CaptureQueriesContext(connection) as captured:
        call()
    return len(captured)


def test_reading_a_run_costs_the_same_queries_whatever_its_branches(service_catalog):
    small = start_workflow(PLAN)
    ack_with_notes(small, "One step.")
    small_id = small["session"]["runId"]
    cost = [
        queries(lambda: tree_of(small_id).outcomes()),
        queries(lambda: run_view.run_detail(small_id)),
        queries(lambda: read_run(small_id)),
    ]

    big = forked_after_completion()
    elsewhere = start_workflow(PLAN, context={"sessionKey": "FORKED-1"})  # another run of the session
    ack_with_notes(elsewhere, "Elsewhere.")
    root = big.answers[0]
    for notes in ("A third way.", "A fourth way."):  # two more branches from the start, one completed
        tip = ack_with_notes(continue_workflow(stateToken=root["stateToken"]), notes)
    ack_with_notes(ack_with_notes(tip, "Its plan."), "Its verdict.")
    assert len(tree_of(big.run_id).branches) == 4
    assert [
        queries(lambda: tree_of(big.run_id).outcomes()),
        queries(lambda: run_view.run_detail(big.run_id)),
        queries(lambda: read_run(big.run_id)),
    ] == cost
