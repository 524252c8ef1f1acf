"""Reports open with each run's conclusion: its verdict or what it did, and why a blocked run is held;
a hand-off reads as sections; downloads are named after the session; the PDF is tagged and its first
page is not left mostly blank."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from exports.reports import html_report, markdown_report
from exports.reports.data import build_report
from exports.reports.pdf import render_pdf
from exports.reports.produce import filename_for
from tests.exports.reports.support import PLAN, small_complete_session
from tests.support.branched_review import blocked_review, forked_review
from tests.support.mcp_calls import ack_with_notes, start_workflow

pytestmark = pytest.mark.django_db

HANDOFF = {
    "kind": "wr.coding_handoff",
    "version": 1,
    "branchName": "feature/orders-paging",
    "keyDecisions": ["Page with a cursor, not an offset."],
    "knownLimitations": [],
    "testsAdded": ["tests/test_orders_paging.py"],
    "filesChanged": ["src/orders.py", "src/api.py"],
}
needs_poppler = pytest.mark.skipif(
    not (shutil.which("pdftotext") and shutil.which("pdfinfo")),
    reason="poppler-utils (pdftotext, pdfinfo) are not installed: see scripts/system-packages.txt",
)


def _without_verdict(key: str = "PLAIN-1") -> str:
    """The focused plan run to its end with notes that give no verdict, and a coding hand-off."""
    start = start_workflow(PLAN, context={"sessionKey": key})
    second = ack_with_notes(start, "Clarified the goal.", [HANDOFF])
    third = ack_with_notes(second, "Drafted the plan.")
    done = ack_with_notes(third, "Checked the plan against the goal.")
    assert done["isComplete"] is True
    return str(start["session"]["sessionId"])


def _conclusion(text: str) -> str:
    return text.split("**Conclusion:** ", 1)[1].split("\n", 1)[0]


def test_a_blocked_run_opens_with_why_it_is_blocked(service_catalog):
    stuck = blocked_review()
    text = markdown_report.render(build_report(stuck.session_id))
    conclusion = _conclusion(text)
    assert text.index("**Conclusion:**") < text.index("## Summary")
    assert "is blocked at step 2 of 8, “Record the Changed Files”" in conclusion  # the dashboard's place
    # What is missing, named as people call it, not by its artifact kind.
    assert "did not attach the list of changed files" in conclusion and "refused once since" in conclusion
    assert "the agent must answer the step again" in conclusion
    why = re.findall(r"^Why: (.+)$", text, flags=re.MULTILINE)
    assert len(why) == 1 and "refused once" in why[0]  # under "Blocked at step 2 of 8", in the branch's section
    assert "Blocked at step 2 of 8: Record the Changed Files (`list-changed-files`)" in text
    html = html_report.render(build_report(stuck.session_id))
    assert "<strong>Why:</strong>" in html and "refused once since" in html
    assert "<strong>Blocked at step 2 of 8:</strong> Record the Changed Files" in html


def test_a_run_without_a_verdict_says_what_it_did_and_its_hand_off_reads_as_sections(service_catalog):
    text = markdown_report.render(build_report(_without_verdict()))
    conclusion = _conclusion(text)
    assert (
        conclusion == "Focused Plan Routine completed after 3 steps, recording 2 changed files and a coding hand-off."
    )
    assert "no verdict" not in text.lower()
    assert "##### Coding hand-off (`wr.coding_handoff`) from `clarify-goal`" in text
    assert "**Key decisions**\n\n- Page with a cursor, not an offset." in text
    assert "**Known limitations**: _none_" in text
    assert '"keyDecisions"' not in text  # not the raw JSON
    # The hand-off lists paths only: no empty Summary column, no dash in every Risk cell.
    files = text.split("#### Changed files", 1)[1].split("####", 1)[0]
    assert "| Path |\n|---|\n| `src/api.py` |\n| `src/orders.py` |" in files
    html = html_report.render(build_report(_without_verdict("PLAIN-2")))
    assert "<dt>Key decisions</dt>" in html and '<th scope="col">Risk</th>' not in html


def test_a_forked_run_concludes_with_its_newest_branch_then_the_others(service_catalog):
    review = forked_review()
    conclusion = _conclusion(markdown_report.render(build_report(review.session_id)))
    assert conclusion.startswith("Risk-Scaled Merge Request Review, on branch 2 (the newest), is in progress")
    assert "Branch 1 completed with the verdict “Request changes" in conclusion


def test_downloads_are_named_after_the_sessions_key(service_catalog):
    small = small_complete_session("MR 42/paging")
    report = build_report(small.session_id)
    assert filename_for(report, "md") == "MR-42-paging-report.md"
    assert filename_for(build_report(small.session_id, small.run_id), "pdf") == "MR-42-paging-run-1-report.pdf"


@needs_poppler
def test_the_pdf_is_tagged_and_its_first_page_is_filled(service_catalog, tmp_path: Path):
    review = forked_review()
    path = tmp_path / "report.pdf"
    path.write_bytes(render_pdf(html_report.render(build_report(review.session_id))))
    info = subprocess.run(["pdfinfo", str(path)], capture_output=True, text=True, check=True).stdout
    assert re.search(r"^Tagged:\s+yes$", info, flags=re.MULTILINE)  # MarkInfo: marked
    tree = subprocess.run(["pdfinfo", "-struct", str(path)], capture_output=True, text=True, check=True).stdout
    assert tree.startswith("Document") and "H1" in tree and "Table" in tree  # a StructTreeRoot to read
    assert re.search(r"^Title:\s+Session report: MR-42$", info, flags=re.MULTILINE)
    # Page 1's text reaches far down the page (the branch graph's drawing no longer moves whole to
    # page 2 and leaves it mostly blank): the lowest line of text above the page's foot.
    boxes = subprocess.run(
        ["pdftotext", "-f", "1", "-l", "1", "-bbox", str(path), "-"], capture_output=True, text=True, check=True
    ).stdout
    height = float(re.search(r'<page width="[\d.]+" height="([\d.]+)"', boxes).group(1))  # type: ignore[union-attr]
    lows = [float(y) for y, word in re.findall(r'yMax="([\d.]+)">([^<]*)<', boxes)]
    foot = max(lows)  # the page number line
    body = [y for y in lows if y < foot - 1]
    assert max(body) / height > 0.75, f"page 1's text ends at {max(body) / height:.0%} of the page"
