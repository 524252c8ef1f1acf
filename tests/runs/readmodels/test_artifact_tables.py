"""Artifacts as tables: changed files once per path, findings by severity with a comment to paste."""

from __future__ import annotations

from runs.readmodels import fold_lines
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
    assert {f.comment for f in result.findings} == {""}  # no mrComments: nothing is made up from the finding
    assert result.findings[4].location == "y.py"
    assert [o.kind for o in result.others] == ["wr.review_verdict"]


def test_anything_else_is_kept_as_it_is_and_junk_is_ignored():
    result = tables([("s", {"kind": "custom", "x": 1}), ("s", "not an object"), (None, {"no": "kind"})])  # type: ignore[list-item]
    assert [(o.kind, o.step_id, o.data) for o in result.others] == [
        ("custom", "s", {"kind": "custom", "x": 1}),
        ("(no kind)", None, {"no": "kind"}),
    ]


def test_each_finding_gets_the_review_comment_the_agent_wrote_for_it():
    result = tables(
        [
            (
                "review",
                {
                    "kind": "mr_review.findings",
                    "findings": [
                        {"severity": "Major", "title": "Unchecked None", "location": {"file": "a.py", "line": 3}},
                        {"severity": "Minor", "title": "Name", "location": {"file": "a.py", "line": 3}},
                        {"severity": "Nit", "title": "Typo"},
                        {"severity": "Minor", "title": "No comment for me", "location": {"file": "c.py"}},
                    ],
                    "mrComments": [
                        {"location": {"file": "a.py", "line": 3}, "title": "Name", "body": "Could this be `load_row`?"},
                        {"location": {"file": "a.py", "line": 3}, "title": "None", "body": "This 500s on a bad id."},
                        {"location": {"file": "b.py"}, "title": "Typo", "body": "Nit: recieve -> receive."},
                        {"location": {"file": "z.py"}, "title": "", "body": ""},
                    ],
                },
            )
        ]
    )
    said = {f.title: f.comment for f in result.findings}
    assert said == {
        "Unchecked None": "This 500s on a bad id.",  # same place; the one with the other title went to "Name"
        "Name": "Could this be `load_row`?",
        "Typo": "Nit: recieve -> receive.",  # no location of its own: matched by title
        "No comment for me": "",
    }


def test_a_hand_off_is_said_as_fields_and_its_files_leave_summary_and_risk_out():
    handoff = {
        "kind": "wr.coding_handoff",
        "version": 1,
        "branchName": "feature/cache",
        "keyDecisions": ["Cache behind the repository."],
        "knownLimitations": [],
        "testsAdded": ["tests/test_cache.py"],
        "filesChanged": ["app/cache.py"],
        "correctedAssumptions": [{"assumed": "one reader", "actual": "two readers"}],
    }
    result = tables([("handoff", handoff)])
    (entry,) = result.others
    assert entry.title == "Coding hand-off"
    said = {f.label: (f.text, f.items, f.empty) for f in entry.fields}
    assert said == {
        "Git branch": ("feature/cache", [], False),
        "Key decisions": ("", ["Cache behind the repository."], False),
        "Known limitations": ("", [], True),
        "Tests added": ("", ["tests/test_cache.py"], False),
        # Listed once: the changed-files table holds the paths, the hand-off counts them and points there, by
        # that section's own heading (friction24b 18), a link on the run page.
        "Files changed": ("1 file, listed under 1 changed file", [], False),
        "Corrected assumptions": ("", ["Assumed one reader → actually two readers"], False),
    }
    assert next(f.link for f in entry.fields if f.label == "Files changed") == (
        "1 file, listed under ",
        fold_lines.changed_files(result).heading,
    )
    assert [f.path for f in result.changed_files] == ["app/cache.py"]
    assert result.handoffs == [entry] and result.not_handoffs == []
    assert not result.files_have_summary and not result.files_have_risk
    both = tables(
        [
            ("handoff", handoff),
            (
                "files",
                {"kind": "mr_review.changed_files", "changedFiles": [{"path": "b.py", "summary": "x", "risk": ""}]},
            ),
        ]
    )
    assert both.files_have_summary and not both.files_have_risk


def test_a_sample_comment_names_no_severity_but_its_finding_s():
    # friction62a "Severity scale": a comment opening "Nit: …" beside its finding's Minor badge read as false. The
    # badge is the finding's recorded severity; the sample's comments open with no severity word of their own.
    from tests.support.sample_session import FINDINGS

    severities = ("critical", "major", "minor", "nit")
    by_title = {f["title"]: f["severity"].lower() for f in FINDINGS["findings"]}
    comments = FINDINGS["mrComments"]
    assert comments
    for comment in comments:
        opening = comment["body"].split(":", 1)[0].strip().lower()
        assert opening not in severities or opening == by_title.get(comment["title"]), comment
