"""How each branch ended, in words (runs/readmodels/outcomes.py), and why a branch is blocked
(runs/readmodels/blocked.py): issue 20's forked merge-request review and blocked run."""

from __future__ import annotations

import pytest

from runs.models import Run
from runs.readmodels import blocked, branches, outcomes
from tests.support.branched_review import blocked_review, forked_review
from tests.support.mcp_calls import continue_workflow

pytestmark = pytest.mark.django_db


# --- the verdict rule (pure) -------------------------------------------------------------------------------


def test_a_standing_verdict_artifact_wins_over_the_notes():
    review = {"kind": "wr.review_verdict", "verdict": "blocking", "confidence": "high", "findings": [], "summary": "x"}
    found = outcomes.verdict([review], [("Summary", "Verdict: approve")])
    assert found is not None and (found.text, found.source) == ("Blocking findings", "the wr.review_verdict artifact")
    gate = outcomes.verdict([{"kind": "wr.gate_verdict", "verdict": "rejected"}], [])
    assert gate is not None and gate.text == "Rejected"
    own = outcomes.verdict([{"kind": "team.decision", "recommendation": "ship it after the fix"}], [])
    assert own is not None and own.text == "Ship it after the fix"


@pytest.mark.parametrize(
    ("notes", "words"),
    [
        ("Findings: 1 Critical.\n\n**Verdict:** Request changes — the query is built from input.", "Request changes"),
        ("## Verdict: approve with comments", "Approve with comments"),
        ("- verdict: *request changes*; one blocker", "Request changes"),
        ("Recommendation: approve. Nothing blocks it.", "Approve"),
    ],
)
def test_a_verdict_line_in_the_notes_is_the_agents_own_words(notes, words):
    found = outcomes.verdict([], [("Record Findings by Severity", notes)])
    assert found is not None and found.text == words
    assert found.source == "the notes of step “Record Findings by Severity”"


def test_no_verdict_is_made_up():
    assert outcomes.verdict([{"kind": "mr_review.findings", "findings": []}], [("Plan", "All good, I think.")]) is None


def test_the_newest_verdict_line_on_the_path_stands():
    found = outcomes.verdict([], [("Findings", "Verdict: request changes"), ("Summary", "Verdict: approve")])
    assert found is not None and found.text == "Approve"


# --- a forked review ---------------------------------------------------------------------------------------


@pytest.fixture
def review(service_catalog):
    return forked_review()


def test_each_branch_of_the_forked_review_says_how_it_ended(review):
    tree = branches.read(Run.objects.get(public_id=review.run_id), records=False)
    first, second = outcomes.of_run(tree)
    assert first.headline == "Branch 1 completed: Request changes, 1 critical finding"
    assert (first.status, first.verdict, first.findings, first.tip_node_id) == (
        "complete",
        "Request changes",
        {"critical": 1},
        review.done_tip,
    )
    assert first.verdict_source == "the notes of step “Record Findings by Severity”"
    assert second.headline == "Branch 2 open at step 4: Review storage"
    assert (second.status, second.is_newest, second.tip_node_id) == ("open", True, review.open_tip)
    assert outcomes.summary_words([first, second]) == "completed on branch 1 (Request changes) · branch 2 open"


def test_the_run_status_keeps_its_value_and_adds_the_words(review):
    from runs.readmodels import overview, run_view

    detail = run_view.run_detail(review.run_id)
    assert detail.run.status == "in_progress"  # API clients filter on it: unchanged
    assert detail.run.status_summary == "completed on branch 1 (Request changes) · branch 2 open"
    assert detail.branch is not None and detail.branch.number == 2
    assert [o.headline for o in detail.other_branches] == ["Branch 1 completed: Request changes, 1 critical finding"]
    assert detail.synthesis is None and detail.tables.findings == []  # branch 1's are not branch 2's

    first = run_view.run_detail(review.run_id, tip=review.done_tip)
    assert first.branch is not None and first.branch.number == 1
    assert [f.severity for f in first.tables.findings] == ["critical"]
    assert [o.headline for o in first.other_branches] == ["Branch 2 open at step 4: Review storage"]

    session = overview.session_detail(review.session_id)
    assert session.session.status_summary == "completed on branch 1 (Request changes) · branch 2 open"
    [listed] = overview.list_sessions().items
    assert listed.status == "in_progress" and listed.status_summary == session.session.status_summary


# --- a blocked run -----------------------------------------------------------------------------------------


@pytest.fixture
def stuck(service_catalog):
    return blocked_review()


def test_a_blocked_branch_says_why_what_to_resend_and_since_when(stuck):
    tree = branches.read(Run.objects.get(public_id=stuck.run_id), records=False)
    [refusal] = blocked.refusals(tree).values()
    assert (refusal.branch, str(refusal.node_id), refusal.step_id, refusal.step_title) == (
        1,
        stuck.node_id,
        "list-changed-files",
        "Record the Changed Files",
    )
    [issue] = refusal.issues
    assert (issue["code"], issue["pointer"]) == ("ARTIFACT_MISSING", "/output/artifacts")
    assert "output.artifacts (mr_review.changed_files)" in refusal.resend
    assert "context: reviewAreas" in refusal.resend
    assert refusal.refusals == 1 and refusal.since == refusal.last_refused_at

    [told] = outcomes.of_run(tree)
    assert told.headline.startswith("Branch 1 blocked at step 2 (Record the Changed Files) since ")
    assert told.headline.endswith(": " + issue["message"])
    assert told.blocked is not None and told.blocked.issues[0].pointer == "/output/artifacts"
    assert outcomes.summary_words([told]).startswith("blocked at step 2 (Record the Changed Files) since ")


def test_blocked_since_is_the_first_refusal_that_still_stands(stuck):
    again = continue_workflow(
        stateToken=stuck.refused["stateToken"], ackToken=stuck.refused["ackToken"], output={"notesMarkdown": "Again."}
    )
    assert again["kind"] == "blocked"
    tree = branches.read(Run.objects.get(public_id=stuck.run_id), records=False)
    [refusal] = blocked.refusals(tree).values()
    assert refusal.refusals == 2 and refusal.since < refusal.last_refused_at


# --- the workrail://runs/{id} resource ----------------------------------------------------------------------


def test_the_run_resource_names_every_branch_and_says_why_it_is_blocked(review):
    from runs.readmodels.resources import read_run

    answer = read_run(review.run_id)
    assert answer["status"] == "in_progress"
    assert answer["statusSummary"] == "completed on branch 1 (Request changes) · branch 2 open"
    assert answer["branch"] is not None and answer["branch"]["number"] == 2 and answer["blocked"] is None
    assert [o["headline"] for o in answer["otherBranches"]] == [
        "Branch 1 completed: Request changes, 1 critical finding"
    ]

    stuck = blocked_review("MR-78")
    refused = read_run(stuck.run_id)
    assert refused["blocked"] is not None
    assert refused["blocked"]["issues"] == [
        {
            "code": "ARTIFACT_MISSING",
            "message": stuck.refused["blocked"]["issues"][0]["message"],
            "pointer": "/output/artifacts",
            "reason": None,
        }
    ]
    assert refused["blocked"]["stepTitle"] == "Record the Changed Files"
    assert "output.artifacts (mr_review.changed_files)" in refused["blocked"]["resend"]
