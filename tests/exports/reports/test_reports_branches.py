"""Issue 20: the report of a forked merge-request review lists every branch, the finished one first.

The session (tests/support/forked_review.py): branch 1 ran the review to its end with a Critical finding
and the verdict "Request changes"; the agent was then rewound and branch 2, the newest, is open. The
report used to list only the newest branch: branch 1's verdict and finding were missing, and the
findings table was named but never printed. Both the Markdown report and the PDF must now hold the
summary, both branches, branch 1's verdict and finding and its findings table; the Markdown keeps the
agent's notes as written; neither holds a relative time; ids are short in the text and full in an
appendix. The PDF's pages are rendered to images (pdftoppm) under test-artifacts/reports/ for a look.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from exports.reports import html_report
from exports.reports.data import build_report
from exports.reports.produce import produce
from tests.support.forked_review import CRITICAL, VERBATIM_NOTE, VERDICT, forked_review
from tests.support.looped_run import looped_and_forked
from tests.support.paths import REPO

pytestmark = pytest.mark.django_db

ARTIFACTS = REPO / "test-artifacts" / "reports"
RELATIVE = re.compile(r"\b(ago|just now|in the future|yesterday|today)\b", re.IGNORECASE)
needs_poppler = pytest.mark.skipif(
    not (shutil.which("pdftotext") and shutil.which("pdftoppm")),
    reason="poppler-utils (pdftotext, pdftoppm) are not installed: see scripts/system-packages.txt",
)


@pytest.fixture
def review(service_catalog):
    return forked_review()


def markdown_of(session_id: str) -> str:
    return produce(session_id, "md", "command").data.decode("utf-8")


def test_the_markdown_report_summarizes_then_lists_both_branches_finished_first(review):
    text = markdown_of(review.session_id)
    summary = text.split("## Summary\n")[1].split("\n## ")[0]
    assert f"| Branch 1 (complete) | {VERDICT}: the permission check is bypassed | 1 critical, 1 minor | 2 |" in summary
    assert (
        "| Branch 2 (newest, open) | Waiting at step 5 of 8, “Record Findings by Severity” | none yet |" in summary
    )  # not reached: not "found nothing"
    assert summary.index("Branch 1 (complete)") < summary.index("Branch 2 (newest, open)")

    first, second = text.split("### Branch 1 (complete): ")[1].split("### Branch 2 (newest, open): ")
    # Branch 1: its verdict, its findings table with the Critical finding, its synthesis.
    assert f"- Verdict: {VERDICT}: the permission check is bypassed" in first
    assert "#### Findings\n\n| # | Severity | Finding | Where | Why | Suggestion |" in first
    assert f"| 1 | **critical** | {CRITICAL} | `app/permissions.py:17` |" in first
    assert "#### Summary of branch 1" in first and "`mr_review.findings` from `record-findings`" in first
    assert "<h4>Summary of branch 1</h4>" in html_report.render(build_report(review.session_id))
    assert "##### Step 8 of 8 · Summarize the Review" in first
    # Branch 2: its own steps after the fork, none of branch 1's synthesis or findings.
    own = second.split("### Timeline")[0]
    assert "The steps up to step 2 of 8 are the same as Branch 1's" in own
    assert (
        "##### Step 4 of 8 (area 1 of 2) in “Review Each Focus Area” · Review api" in own
    )  # placed in the outline, as the run page does
    assert "Branch 2: did review-area." in own
    # Branch 1's answer to the shared step shows only as the labelled note (issue 20's review, point 4), a
    # footnote after this branch's own answer (not between the heading and the answer, where it read as one).
    note = "_↺ redone here; branch 1 had answered: 'Branch 1: did review-area.'_"
    assert note in own and "Branch 1: did" not in own.replace(note, "")
    assert own.index("Branch 2: did review-area.") < own.index(note)
    assert CRITICAL not in own and "Synthesis" not in own
    assert "_No findings recorded on this branch._" in own


def test_the_markdown_report_has_a_timeline_with_durations_and_the_users_confirmation(review):
    text = markdown_of(review.session_id)
    timeline = text.split("### Timeline\n")[1].split("\n## ")[0]
    rows = [line for line in timeline.splitlines() if line.startswith("| 20")]
    assert len(rows) == 8 + 2  # branch 1's eight steps, branch 2's own two
    assert all(re.search(r"\| \d+(\.\d+)? m?s \|", row) for row in rows)
    confirm = next(row for row in rows if "Confirm Before Posting" in row)
    assert "| Branch 1, step 6 of 8 |" in confirm and "asked the user" in confirm
    assert "##### Step 6 of 8 · Confirm Before Posting" in text
    assert "confirmation: asked the user, whose answer is in the step's notes" in text


def test_the_markdown_report_keeps_the_agents_notes_as_written(review):
    text = markdown_of(review.session_id)
    assert VERBATIM_NOTE in text
    assert "MR \\!42" not in text and "has\\_perm" not in text.split("#### Changed files")[0] and "\\[ \\]" not in text


def test_no_relative_time_and_short_ids_with_an_appendix(review):
    text = markdown_of(review.session_id)
    assert not RELATIVE.findall(text)
    assert re.findall(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC", text)
    body, appendix = text.split("## Appendix for developers: full ids\n")
    for full in (review.session_id, review.run_id):
        short = full[:12]  # "ses_" or "run_" and 8 characters
        assert f"| `{short}` | `{full}` |" in appendix
        assert short in body and full not in body
    # Node ids are for developers: the appendix alone has them, the text says branches and places.
    node_ids = re.findall(r"\| — \| `(\d{12,19})` \| ([^|]+) \|", appendix)
    assert len(node_ids) == 3  # the two tips and the fork point
    for full, what in node_ids:
        assert full[:8] not in body and "node" in what
    assert not re.search(r"\bnode\b", body.split("## Run 1")[1].split("### Timeline")[0])


def pdf_pages(pdf: bytes, name: str) -> tuple[list[str], list[Path]]:
    """The PDF's text page by page (pdftotext), and its pages as PNGs kept under test-artifacts/reports."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    for old in ARTIFACTS.glob(f"{name}-*.png"):
        old.unlink()
    path = ARTIFACTS / f"{name}.pdf"
    path.write_bytes(pdf)
    subprocess.run(["pdftoppm", "-png", "-r", "80", str(path), str(ARTIFACTS / name)], check=True, capture_output=True)
    text = subprocess.run(["pdftotext", "-layout", str(path), "-"], capture_output=True, text=True, check=True).stdout
    return text.split("\f"), sorted(ARTIFACTS.glob(f"{name}-*.png"))


@pytest.mark.pdf
@needs_poppler
def test_the_pdf_pages_hold_the_summary_and_every_branchs_verdict(review):
    pages, images = pdf_pages(produce(review.session_id, "pdf", "command").data, "forked-review")
    assert images and all(image.read_bytes().startswith(b"\x89PNG") for image in images)
    assert len(images) == len([page for page in pages if page.strip()])
    flat = [" ".join(page.split()) for page in pages]
    first = flat[0]
    # The summary comes first, on the first page, with each branch's outcome or verdict.
    assert "Summary" in first and first.index("Summary") < first.index("Branch 1 (complete)")
    # (-layout text: a wrapped table cell's next line comes after the other columns of its first line)
    assert f"{VERDICT}: the permission" in first and "1 critical" in first.lower()
    assert "Branch 2 (newest, open)" in first and "Waiting at step 5" in first
    everything = " ".join(flat)
    # Each branch has its section, finished first; branch 1 with its verdict and its findings table.
    finished = everything.index("Branch 1 (complete): Request changes")
    assert finished < everything.index("Branch 2 (newest, open): Waiting")
    assert f"Verdict: {VERDICT}: the permission check is bypassed" in everything
    assert CRITICAL in everything and "Severity Finding Why, and the suggestion" in everything
    assert "The steps up to step 2 of 8 are the same as Branch 1's" in everything
    assert "Timeline" in everything and "asked the user" in everything
    assert "Appendix for developers: full ids" in everything and review.run_id in everything
    assert not RELATIVE.findall(everything)


def test_the_report_places_steps_as_the_dashboard_does_a_checkpoint_is_not_a_step(service_catalog):
    # Verify the slices: scope (1), then a loop of verify/record per slice (2.1, 2.2, three rounds),
    # summarize (3); a checkpoint during the first record and a rewind that took the second round's verify
    # again (branch 2, waiting at step 2 in round 2). Places as the dashboard says them, never the count
    # of steps taken (8 steps on a 3-step outline).
    looped = looped_and_forked(service_catalog["extra"], iterations=3)
    text = markdown_of(looped.session_id)
    graph = text.split("### Branch graph")[1].split("```", 2)[1]
    lines = [line.strip() for line in graph.strip().splitlines()[1:]]
    assert lines[0] == '● Branch 1: 8 steps, ends at "Complete" (complete)'
    # Where branch 2 grew from, as the run page's list of branches says it (fork_point): it answered round 2's
    # verify again.
    assert lines[1] == (
        "└─ Branch 2: redoes Verify slice 2 · step 2a of 3 (round 2 of 3), from branch 1, 1 step, "
        'ends at "Record what the slice showed" (waiting at step 2b of 3 (round 2 of 3) in '
        "“Verify each slice”, newest)"
    )
    summary = text.split("## Summary\n")[1].split("\n## ")[0]
    assert (
        "Waiting at step 2b of 3 (round 2 of 3) in “Verify each slice”, “Record what the slice showed”" in summary
    )  # as the run page
    first = text.split("### Branch 1 (complete)")[1].split("### Branch 2")[0]
    # The checkpoint saved during round 1's record is a mark after that step's answer, as on the run page: no
    # heading of its own, so it never reads as another step.
    record = "##### Step 2b of 3 (round 1 of 3) in “Verify each slice” · Record what the slice showed"
    after = first.split(record)[1].split("#####")[0]
    assert "**Checkpoint** saved before the step was answered · recorded " in after and "Halfway." in after
    assert "Checkpoint during" not in first
    assert "##### Step 2b of 3 (round 1 of 3) in “Verify each slice” · Record what the slice showed" in (first)
    assert "##### Step 2a of 3 (round 3 of 3) in “Verify each slice” · Verify slice 3" in first
    assert "##### Step 3 of 3 · Summarize the verification" in first
    second = text.split("### Branch 2 (newest, open)")[1].split("### Timeline")[0]
    assert "- Redoes Verify slice 2 · step 2a of 3 (round 2 of 3), from branch 1" in second
    # The step it answered again is its own first step, after the ones it shares with branch 1.
    own = second.split("this branch's own steps follow.")[1]
    assert own.lstrip().startswith("##### Step 2a of 3 (round 2 of 3) in “Verify each slice” · Verify slice 2")
    assert "Pending step 2b of 3 (round 2 of 3) in “Verify each slice”: Record what the slice showed" in second
    # The PDF's pages say the same: the checkpoint a mark inside its step's entry, the fork in the same words.
    html = html_report.render(build_report(looped.session_id))
    entries = html.split('<li class="step step-kind-')
    assert not any(entry.startswith("checkpoint") for entry in entries)
    [marked] = [entry for entry in entries if 'class="checkpoint-mark"' in entry]
    assert "Record what the slice showed" in marked.split("</h5>")[0] and "Halfway." in marked
    assert "<li>redoes Verify slice 2 · step 2a of 3 (round 2 of 3), from branch 1</li>" in html
