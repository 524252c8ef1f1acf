"""The HTTP API tells the truth about branches and blocked runs (issue 20): `status` keeps its values
(clients filter on them) and `statusSummary`, `branch`, `otherBranches` and `blocked` say the rest."""

from __future__ import annotations

import json

import pytest

from tests.support.branched_review import blocked_review, forked_review

pytestmark = pytest.mark.django_db

API = "/api/v1"
SUMMARY = "Branch 2 open at step 4 (newest, where the agent works) · branch 1 finished earlier: Request changes"


def test_a_forked_review_through_the_api(api):
    review = forked_review()
    listed = api.get(f"{API}/sessions", {"status": "in_progress"}).json()["items"]
    assert [(s["status"], s["statusSummary"]) for s in listed] == [("in_progress", SUMMARY)]

    session = api.get(f"{API}/sessions/{review.session_id}").json()
    assert session["session"]["statusSummary"] == SUMMARY
    assert [(r["status"], r["statusSummary"]) for r in session["runs"]] == [("in_progress", SUMMARY)]

    newest = api.get(f"{API}/runs/{review.run_id}").json()
    assert newest["run"]["statusSummary"] == SUMMARY
    assert newest["branch"]["number"] == 2 and newest["branch"]["status"] == "open"
    assert newest["branch"]["stepTitle"] == "Review storage" and newest["branch"]["stepNumber"] == 4
    [first] = newest["otherBranches"]
    assert first["headline"] == "Branch 1 completed: Request changes, 1 critical finding"
    assert (first["verdict"], first["findings"], first["tipNodeId"]) == (
        "Request changes",
        {"critical": 1},
        review.done_tip,
    )
    assert newest["synthesis"] is None and newest["tables"]["findings"] == []

    finished = api.get(f"{API}/runs/{review.run_id}", {"tip": first["tipNodeId"]}).json()
    assert finished["branch"]["number"] == 1 and finished["synthesis"] is not None
    assert [f["severity"] for f in finished["tables"]["findings"]] == ["critical"]
    assert [o["headline"] for o in finished["otherBranches"]] == ["Branch 2 open at step 4: Review storage"]

    node = api.get(f"{API}/nodes/{review.open_tip}").json()
    assert node["onBranch"]["number"] == 2 and node["blocked"] is None
    assert [o["number"] for o in node["otherBranches"]] == [1]


def test_a_blocked_run_through_the_api(api):
    stuck = blocked_review()
    run = api.get(f"{API}/runs/{stuck.run_id}").json()
    assert run["run"]["status"] == "blocked"
    refusal = run["branch"]["blocked"]
    assert (refusal["stepId"], refusal["stepTitle"], refusal["nodeId"]) == (
        "list-changed-files",
        "Record the Changed Files",
        stuck.node_id,
    )
    assert [(i["code"], i["pointer"]) for i in refusal["issues"]] == [("ARTIFACT_MISSING", "/output/artifacts")]
    assert refusal["resend"] == [
        "output.notesMarkdown (the step's notes)",
        "output.artifacts (mr_review.changed_files)",
        "context: reviewAreas",
    ]
    assert refusal["since"] and refusal["refusals"] == 1 and refusal["retry"].startswith("Fix what the issues say")
    assert run["run"]["statusSummary"].startswith("blocked at step 2 (Record the Changed Files) since ")
    # The same developer-first words and the call to give a stuck agent as the pages show.
    assert refusal["whoseMove"] == "agent" and refusal["forYou"].startswith("Nothing for you to do unless")
    assert json.loads(refusal["call"])["arguments"]["ackToken"] == stuck.refused["ackToken"]
    assert refusal["sent"]["notesPreview"] == "Listed the files in my head."
    assert refusal["expectedArtifact"]["kind"] == "mr_review.changed_files"
    assert [item["part"] for item in refusal["resendItems"]][-1] == "context.reviewAreas"

    node = api.get(f"{API}/nodes/{stuck.node_id}").json()
    assert node["blocked"] == refusal

    session = api.get(f"{API}/sessions/{stuck.session_id}").json()
    assert session["session"]["statusSummary"] == run["run"]["statusSummary"]
