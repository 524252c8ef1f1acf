"""The small pure parts of a report: short ids, the verdict a report states, and where a note ends (verbatim.py)."""

from __future__ import annotations

import pytest

from exports.reports.short_ids import ShortIds
from exports.reports.verbatim import embed, way
from runs.readmodels.outcomes import verdict


def test_short_ids_are_8_characters_after_the_prefix_and_longer_when_two_would_read_the_same():
    ids = ShortIds()
    ids.add("ses_0123456789abcdef", "session")
    ids.add("run_fedcba9876543210", "run")
    ids.add("4611686018427387904", "node")
    assert [ids.short(full) for full in ("ses_0123456789abcdef", "run_fedcba9876543210")] == [
        "ses_01234567",
        "run_fedcba98",
    ]
    assert ids.short("4611686018427387904") == "46116860"
    ids.add("4611686099999999999", "another node")  # the same first 8 digits
    assert ids.chars == 9
    assert ids.short("4611686018427387904") == "461168601" and ids.short("4611686099999999999") == "461168609"
    assert ids.short("ses_0123456789abcdef") == "ses_012345678"  # every id of the report, the same length
    assert ids.appendix()[0] == ("ses_012345678", "ses_0123456789abcdef", "session")


def test_a_verdict_artifact_wins_over_a_line_of_notes_and_the_report_states_its_reason():
    standing = [{"kind": "wr.review_verdict", "verdict": "blocking", "summary": "One SQL injection."}]
    found = verdict(standing, [("Record findings", "**Verdict:** Approve")])
    assert found is not None and found.text == "Blocking findings"
    assert found.said == "Blocking findings: One SQL injection"
    assert found.source == "the wr.review_verdict artifact"
    gate = verdict([{"kind": "wr.gate_verdict", "verdict": "approved"}], [])
    assert gate is not None and gate.said == "Approved"


@pytest.mark.parametrize(
    ("notes", "short", "said"),
    [
        ("**Verdict:** Request changes.", "Request changes", "Request changes"),
        (
            "**Verdict:** request changes: the permission check is bypassed.",
            "Request changes",
            "Request changes: the permission check is bypassed",
        ),
        ("- verdict - approve with comments", "Approve with comments", "Approve with comments"),
        ("Verdict: approve\n\nlater\n\n## Verdict: request changes", "Request changes", "Request changes"),  # the last
        ("The verdict is pending.", None, None),
    ],
)
def test_a_verdict_line_in_the_notes(notes, short, said):
    found = verdict([], [("Step", notes)])
    assert (found.text if found else None, found.said if found else None) == (short, said)


@pytest.mark.parametrize(
    ("note", "expected"),
    [
        (
            "MR !42: `has_perm()`, has_perm() and [ ] stay.\n\n- [x] done\n\n| a | b |\n|---|---|\n| 1 | 2 |",
            "as written",
        ),
        ("[a link](https://example.com) and <https://example.com>", "as written"),
        ("# A heading\n\ntext", "quoted"),
        ("text\n---", "quoted"),  # a setext heading
        ("```\nan unclosed fence", "quoted"),
        ("<!-- an unclosed comment", "fenced"),
        ("<b>raw HTML</b>", "fenced"),
        ("Vec<String> outside code", "fenced"),
        ("![a picture](https://example.com/p.png)", "fenced"),
        ("[js](javascript:alert(1))", "fenced"),
        ("[file](file:///etc/passwd)", "fenced"),
    ],
)
def test_how_a_note_is_embedded(note, expected):
    assert way(note) == expected


def test_a_fenced_note_shows_every_character_inside_a_fence_it_cannot_close():
    note = "<script>x</script>\n````\nmore"
    embedded = embed(note)
    assert embedded == "`````markdown\n" + note + "\n`````"


def test_an_empty_note_embeds_nothing():
    assert embed("") == "" and embed("\n\n") == ""
