"""The line a folded findings or changed-files section shows while closed: how many, then how many of each kind."""

from __future__ import annotations

from runs.readmodels.artifact_tables import tables
from runs.readmodels.fold_lines import FoldLine, changed_files, findings


def test_findings_are_counted_by_severity_worst_first():
    review = {
        "kind": "mr_review.findings",
        "findings": [
            {"severity": "Minor", "title": "Long function"},
            {"severity": "Critical", "title": "SQL built from input"},
            {"severity": "Minor", "title": "Naming"},
        ],
    }
    line = findings(tables([("review", review)]))
    assert (line.heading, line.parts) == ("3 findings", "1 critical, 2 minor")
    # Something to act on: open from the start, the critical one named on the line (friction18a 24).
    assert line.open and line.critical == "SQL built from input"


def test_findings_with_nothing_worse_than_minor_stay_folded_and_name_none():
    minor = {"kind": "mr_review.findings", "findings": [{"severity": "Minor", "title": "Naming"}]}
    assert findings(tables([("review", minor)])) == FoldLine("1 finding", "1 minor")
    major = {"kind": "mr_review.findings", "findings": [{"severity": "Major", "title": "No test"}]}
    assert findings(tables([("review", major)])) == FoldLine("1 finding", "1 major", open=True)


def test_one_finding_is_said_in_the_singular():
    nit = {"kind": "mr_review.findings", "findings": [{"severity": "Nit", "title": "Name"}]}
    assert findings(tables([("review", nit)])) == FoldLine("1 finding", "1 nit")


def test_changed_files_are_counted_by_risk_highest_first_and_an_unknown_level_after():
    files = [
        {"path": "a.py", "risk": "L"},
        {"path": "b.py", "risk": "H"},
        {"path": "c.py", "risk": "unclear"},
        {"path": "d.py", "risk": "L"},
        {"path": "e.py"},
    ]
    listed = tables([("triage", {"kind": "mr_review.changed_files", "changedFiles": files})])
    assert changed_files(listed) == FoldLine("5 changed files", "1 high risk, 2 low risk, 1 unclear risk")


def test_files_without_a_risk_are_named_instead():
    # A hand-off lists paths alone: the folded line names them, as other folds say their kinds (friction12 15).
    handoff = {"kind": "wr.coding_handoff", "version": 1, "filesChanged": ["src/orders.py"]}
    assert changed_files(tables([("build", handoff)])) == FoldLine("1 changed file", "orders.py")
    many = ["a/x.py", "b/x.py", "c.py", "d.py", "e.py"]
    named = changed_files(tables([("build", {"kind": "wr.coding_handoff", "version": 1, "filesChanged": many})]))
    # Two files of one name by their paths; past three, how many more.
    assert named == FoldLine("5 changed files", "a/x.py, b/x.py, c.py, and 2 more")


def test_the_branch_is_named_only_when_the_run_has_several():
    nit = {"kind": "mr_review.findings", "findings": [{"severity": "Nit", "title": "Name"}]}
    files = {"kind": "wr.coding_handoff", "version": 1, "filesChanged": ["a.py", "b.py"]}
    recorded = tables([("review", nit), ("build", files)])
    # A run that never forked has no other branch to tell these from (friction10 8).
    assert findings(recorded).where == "" and changed_files(recorded).where == ""
    assert findings(recorded, 2).where == "on branch 2"
    assert changed_files(recorded, 1) == FoldLine("2 changed files", "a.py, b.py", "on branch 1")
