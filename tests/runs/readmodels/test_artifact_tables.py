"""Artifacts as tables: changed files once per path, findings by severity with a comment to paste."""

from __future__ import annotations

from runs.readmodels.artifact_tables import tables


def test_changed_files_are_listed_once_per_path_sorted_with_the_latest_report():
    result = tables(
        [
            ("a", {"kind": "wr.coding_handoff", "version": 1, "filesChanged": ["b.py", "a.py"]}),
            (
                "b",
                {
                    "kind": "mr_review.changed_files",
                    "changedFiles": [
                        {"path": "b.py", "summary": "first", "risk": "L"},
                        {"path": "c.py", "summary": "new", "risk": "H"},
                        {"path": "b.py", "summary": "second", "risk": "M"},
                        {"summary": "no path"},
                        "junk",
                    ],
                },
            ),
            ("c", {"kind": "wr.coding_handoff", "version": 1, "filesChanged": ["a.py", 7]}),
        ]
    )
    assert [(f.path, f.summary, f.risk) for f in result.changed_files] == [
        ("a.py", "", ""),
        ("b.py", "second", "medium"),
        ("c.py", "new", "high"),
    ]
    assert [o.kind for o in result.others] == ["wr.coding_handoff", "wr.coding_handoff"]


def test_findings_are_ordered_by_severity_keeping_their_order_within_one():
    result = tables(
        [
            (
                "review",
                {
                    "kind": "mr_review.findings",
                    "findings": [
                        {"severity": "Nit", "title": "naming"},
                        {"severity": "Major", "title": "first major", "location": {"file": "x.py", "line": 3}},
                        {"severity": "Critical", "title": "injection", "rationale": "why", "suggestion": "fix"},
                        {"severity": "Major", "title": "second major"},
                        {"severity": "weird", "title": "unknown severity"},
                    ],
                },
            ),
            (
                "verdict",
                {
                    "kind": "wr.review_verdict",
                    "verdict": "minor",
                    "findings": [{"severity": "minor", "summary": "from a verdict", "file": "y.py"}],
                },
            ),
        ]
    )
    assert [(f.severity, f.title) for f in result.findings] == [
        ("critical", "injection"),
        ("major", "first major"),
        ("major", "second major"),
        ("minor", "unknown severity"),
        ("minor", "from a verdict"),
        ("nit", "naming"),
    ]
    assert result.findings[0].comment == "**Critical**: injection\n\nwhy\n\nSuggestion: fix"
    assert result.findings[1].comment == "**Major**: first major (x.py:3)"
    assert result.findings[4].location == "y.py"
    assert [o.kind for o in result.others] == ["wr.review_verdict"]


def test_anything_else_is_kept_as_it_is_and_junk_is_ignored():
    result = tables([("s", {"kind": "custom", "x": 1}), ("s", "not an object"), (None, {"no": "kind"})])  # type: ignore[list-item]
    assert [(o.kind, o.step_id, o.data) for o in result.others] == [
        ("custom", "s", {"kind": "custom", "x": 1}),
        ("(no kind)", None, {"no": "kind"}),
    ]
