"""What a branch produced, in the words of the line under a run's header, each part naming its section."""

from __future__ import annotations

from runs.readmodels.artifact_tables import tables
from runs.readmodels.produced import Produced, kind_titles, of_tables

FINDINGS = {
    "kind": "mr_review.findings",
    "findings": [
        {"severity": "Minor", "title": "Long function"},
        {"severity": "Critical", "title": "SQL built from input"},
        {"severity": "Major", "title": "Unsafe"},
    ],
}
FILES = {"kind": "mr_review.changed_files", "changedFiles": [{"path": "a.py"}, {"path": "b.py"}]}
HANDOFF = {"kind": "wr.coding_handoff", "version": 1, "branchName": "feature/x"}


def test_findings_come_first_with_the_worst_counted_then_the_hand_off_and_the_files():
    produced = of_tables(tables([("triage", FILES), ("clarify", HANDOFF), ("review", FINDINGS)]))
    assert produced == [
        Produced("findings", "findings-title"),
        Produced("coding hand-off", "handoff-1"),
        Produced("changed files", "files-title"),
    ]


def test_minor_findings_are_counted_alone_and_one_other_artifact_is_named():
    nits = {"kind": "mr_review.findings", "findings": [{"severity": "Nit", "title": "Name"}]}
    produced = of_tables(tables([("a", nits), ("b", {"kind": "wr.review_verdict", "verdict": "approve"})]))
    assert produced == [Produced("findings", "findings-title"), Produced("review verdict", "artifacts-title")]


def test_several_hand_offs_and_other_artifacts_are_counted():
    others = [("a", HANDOFF), ("b", HANDOFF), ("c", {"kind": "wr.assessment"}), ("d", {"kind": "custom.note"})]
    produced = of_tables(tables(others))
    assert [p.words for p in produced] == ["2 coding hand-offs", "2 other artifacts"]


def test_a_branch_that_produced_nothing_has_no_line():
    assert of_tables(tables([])) == []


def test_artifact_kinds_are_said_in_peoples_words_once_each():
    artifacts = [FILES, FINDINGS, FILES, {"kind": ""}, "junk"]
    assert kind_titles(artifacts) == ["Changed files", "Findings", "An artifact without a kind"]


def test_a_branch_verdict_leads_the_line_and_links_to_the_synthesis():
    produced = of_tables(tables([("review", FINDINGS)]), "Request changes")
    assert produced[0] == Produced("verdict “Request changes”", "synthesis-verdict")
    assert [p.words for p in produced[1:]] == ["findings"]
    assert of_tables(tables([]), "Approve") == [Produced("verdict “Approve”", "synthesis-verdict")]
