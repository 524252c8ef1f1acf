"""The small pure parts of a report: short ids, verdicts, and where a note ends (verbatim.py)."""

from __future__ import annotations

import pytest

from exports.reports.outcome import from_artifacts, from_notes, verdict
from exports.reports.short_ids import ShortIds
from exports.reports.verbatim import embed, way


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


def test_a_verdict_artifact_wins_over_a_line_of_notes():
    standing = [("review", {"kind": "wr.review_verdict", "verdict": "blocking", "summary": "One SQL injection."})]
    notes = [("Record findings", "**Verdict:** Approve")]
    found = verdict(standing, notes)
    assert found is not None and found.text == "blocking: One SQL injection."
    assert found.source == "the wr.review_verdict artifact of step review"
    assert from_artifacts([("gate", {"kind": "wr.gate_verdict", "verdict": "approved"})]).text == "approved"


@pytest.mark.parametrize(
    ("notes", "expected"),
    [
        ("**Verdict:** Request changes.", "Request changes"),
        ("- verdict - approve with comments", "Approve with comments"),
        ("Verdict: approve\n\nlater\n\n## Verdict: request changes", "Request changes"),  # the last one
        ("The verdict is pending.", None),
    ],
)
def test_a_verdict_line_in_the_notes(notes, expected):
    found = from_notes([("Step", notes)])
    assert (found.text if found else None) == expected


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
