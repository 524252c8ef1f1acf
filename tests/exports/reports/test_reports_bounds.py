"""PDF reports are bounded (issue 18): fitted to a budget before layout, laid out in a child process
with a deadline and a memory cap, answered with REPORT_TOO_LARGE (never a 500) when over them.

The hostile case: one 64 KiB note holding a Markdown table of 400 columns (31,000 cells) took half a
minute and 700 MB of WeasyPrint inside the dashboard. Now the PDF keeps 12 columns and says what was
left out; the Markdown report keeps everything.
"""

from __future__ import annotations

import importlib
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from hypothesis import given, settings
from hypothesis import strategies as st

from exports.reports import note_budget, paper_budget, renderer
from exports.reports.limits import Watch
from exports.reports.pdf import stylesheet_texts
from exports.reports.produce import produce
from runs.contract.errors import ErrorCode, WorkRailError
from tests.exports.reports.support import PLAN, small_complete_session, wide_table_session
from tests.support.fuzz_budget import examples
from tests.support.mcp_calls import ack_with_notes, start_workflow
from tests.support.processes import gone

needs_poppler = pytest.mark.skipif(not shutil.which("pdftotext"), reason="poppler-utils (pdftotext) is not installed")


def has_word(word: str, text: str) -> bool:
    return re.search(rf"\b{re.escape(word)}\b", text) is not None


def pdf_text(pdf: bytes, tmp_path: Path) -> str:
    path = tmp_path / "report.pdf"
    path.write_bytes(pdf)
    return subprocess.run(["pdftotext", str(path), "-"], capture_output=True, text=True, check=True).stdout


def flat(text: str) -> str:
    return re.sub(r"\s+", " ", text)


# --- the hostile note --------------------------------------------------------------------------------


@pytest.mark.pdf
@needs_poppler
@pytest.mark.django_db
def test_a_400_column_table_note_gives_a_pdf_of_12_columns_that_says_what_was_left_out(service_catalog, tmp_path):
    wide = wide_table_session()
    produced = produce(wide.session_id, "pdf", "command")
    text = flat(pdf_text(produced.data, tmp_path))
    assert "388 columns of this note's table omitted to keep the PDF printable (it has 400 columns and 79 rows)" in text
    assert "The Markdown report has them all." in text
    # Whole words: the appendix's full ids are hex and may hold "c12" inside them.
    assert has_word("c11", text) and not has_word("c12", text) and not has_word("c399", text)

    markdown = produce(wide.session_id, "md", "command").data.decode()
    assert "more than a report formats: it is shown as written" in markdown
    assert "|c398|c399|" in markdown  # every column, as the agent wrote it


@pytest.mark.pdf
@needs_poppler
@pytest.mark.django_db
def test_a_moderately_wide_table_is_formatted_and_cut_to_12_columns_in_the_pdf(service_catalog, tmp_path):
    note = "\n".join(
        ["|" + "|".join(f"h{c}" for c in range(40)) + "|", "|" + "-|" * 40]
        + ["|" + "|".join(f"r{r}" for _ in range(40)) + "|" for r in range(20)]
    )
    start = start_workflow(PLAN, context={"sessionKey": "WIDE-40"})
    ack_with_notes(start, note)
    produced = produce(start["session"]["sessionId"], "pdf", "command")
    text = flat(pdf_text(produced.data, tmp_path))
    assert "28 columns of this table omitted to keep the PDF printable (it has 40 columns and 21 rows)" in text
    assert has_word("h11", text) and not has_word("h12", text)


# --- the budget on its own ---------------------------------------------------------------------------


def table(rows: int, columns: int, header: bool = True) -> str:
    head = "<thead><tr>" + "".join(f"<th>h{c}</th>" for c in range(columns)) + "</tr></thead>" if header else ""
    body = "".join("<tr>" + "".join(f"<td>r{r}c{c}</td>" for c in range(columns)) + "</tr>" for r in range(rows))
    return f"<table>{head}<tbody>{body}</tbody></table>"


def shape(html: str) -> list[tuple[int, int]]:
    """(rows, widest row) of each table."""
    scan = paper_budget._TableScan(html)
    scan.feed(html)
    return [(len(t.rows), max((len(r.cells) for r in t.rows), default=0)) for t in scan.tables]


def test_a_table_within_the_budget_is_untouched():
    html = f"<p>before</p>{table(5, 4)}<p>after</p>"
    fitted = paper_budget.fit(html)
    assert fitted.html == html and fitted.cuts == []


def test_a_long_table_keeps_its_first_rows_and_says_how_many_were_omitted():
    fitted = paper_budget.fit(f"<p>before</p>{table(500, 3)}<p>after</p>")
    assert shape(fitted.html) == [(paper_budget.MAX_TABLE_ROWS, 3)]
    assert fitted.cuts == [
        "301 rows of this table omitted to keep the PDF printable (it has 3 columns and 501 rows). "
        "The Markdown report has them all."
    ]
    assert "r198c2" in fitted.html and "r199c0" not in fitted.html
    assert fitted.html.startswith('<p>before</p><p class="report-cut">') and fitted.html.endswith("<p>after</p>")


def test_a_table_past_the_cell_budget_is_replaced_by_a_note(monkeypatch):
    monkeypatch.setattr(paper_budget, "MAX_REPORT_CELLS", 30)
    fitted = paper_budget.fit(table(9, 3) + table(9, 3) + table(9, 3))
    assert shape(fitted.html) == [(10, 3)]  # 30 cells: the first table whole (with its header)
    assert len(fitted.cuts) == 2 and fitted.cuts[1].startswith("A table was omitted (it has 3 columns and 10 rows)")


def test_too_much_text_is_refused_before_any_layout(monkeypatch):
    monkeypatch.setattr(paper_budget, "MAX_TEXT_CHARS", 1_000)
    with pytest.raises(paper_budget.TooMuchText) as refused:
        paper_budget.fit("<p>" + "word " * 300 + "</p>")
    assert refused.value.chars == 1_500 and refused.value.limit == 1_000


@settings(max_examples=examples(60), deadline=None)
@given(st.lists(st.tuples(st.integers(0, 260), st.integers(1, 30), st.booleans()), min_size=1, max_size=4))
def test_fitted_tables_stay_within_every_bound_and_whole(shapes):
    html = "".join(f"<p>t{i}</p>{table(rows, columns, header)}" for i, (rows, columns, header) in enumerate(shapes))
    fitted = paper_budget.fit(html)
    kept = shape(fitted.html)
    assert all(r <= paper_budget.MAX_TABLE_ROWS and c <= paper_budget.MAX_TABLE_COLUMNS for r, c in kept)
    assert sum(r * c for r, c in kept) <= paper_budget.MAX_REPORT_CELLS
    assert all(f"<p>t{i}</p>" in fitted.html for i in range(len(shapes)))  # the text around them stays
    assert fitted.html.count("<tr>") == fitted.html.count("</tr>")  # whole rows and cells only
    assert fitted.html.count("<td>") == fitted.html.count("</td>")


def test_a_heavy_note_is_cut_at_its_markdown_before_python_markdown_sees_it():
    wide = "\n".join(["|" + "|".join("abc" for _ in range(30)) + "|"] * 300)
    assert note_budget.is_heavy(wide)
    clipped = note_budget.for_paper("Intro.\n\n" + wide + "\n\nOutro.")
    lines = clipped.split("\n")
    assert lines[0] == (
        "**18 columns and 100 rows of this note's table omitted to keep the PDF printable (it has 30 columns "
        "and 300 rows). The Markdown report has them all.**"
    )
    assert "Intro." in lines and "Outro." in lines
    table = [line for line in lines if line.startswith("|")]
    assert len(table) == note_budget.MAX_ROWS and all(line.count("|") == 13 for line in table)
    assert not note_budget.is_heavy("| a | b |\n|---|---|\n| 1 | 2 |")
    assert not note_budget.is_heavy("\\|" * 5000)  # escaped pipes are text, not cell borders


# --- the bounds: deadline, memory, text; through every door ------------------------------------------


@pytest.mark.pdf
@pytest.mark.django_db
def test_a_pdf_past_its_deadline_is_report_too_large_on_the_dashboard_the_api_and_the_command(
    service_catalog, client, bearer, settings
):
    small = small_complete_session()
    settings.WORKRAIL_REPORT_SECONDS = 0.01

    page = client.get(f"/sessions/{small.session_id}/report.pdf")
    assert page.status_code == 422
    body = page.content.decode()
    assert "REPORT_TOO_LARGE" in body and f"/sessions/{small.session_id}/report.md" in body

    answer = client.get(f"/api/v1/sessions/{small.session_id}/report?format=pdf&run={small.run_id}", **bearer)
    assert answer.status_code == 422
    error = answer.json()["error"]
    assert error["code"] == "REPORT_TOO_LARGE" and error["retryable"] is False
    assert error["details"]["reason"] == "deadline" and error["details"]["limitSeconds"] == 0.01
    markdown = f"/api/v1/sessions/{small.session_id}/report?format=md&run={small.run_id}"
    assert error["details"]["markdownReport"] == markdown

    with pytest.raises(CommandError, match=rf"export_report {small.session_id} --format md"):
        call_command("export_report", small.session_id, "--format", "pdf", "-o", "-")
    assert renderer.live_renderers() == []  # every child killed and reaped

    # A Markdown report is bounded by the same deadline (passed at once here: it is quick); its way out
    # is the session's bundle.
    settings.WORKRAIL_REPORT_SECONDS = 0
    markdown = client.get(f"/api/v1/sessions/{small.session_id}/report?format=md", **bearer)
    assert markdown.status_code == 422
    assert markdown.json()["error"]["details"]["bundle"] == f"/api/v1/sessions/{small.session_id}/bundle"


@pytest.mark.pdf
@pytest.mark.django_db
def test_a_pdf_over_its_memory_cap_is_report_too_large(service_catalog, settings):
    small = small_complete_session()
    settings.WORKRAIL_REPORT_PDF_MAX_MB = 100  # less than WeasyPrint needs to start laying out
    with pytest.raises(WorkRailError) as refused:
        produce(small.session_id, "pdf", "dashboard")
    assert refused.value.code == ErrorCode.REPORT_TOO_LARGE
    assert refused.value.details["reason"] == "memory"


@pytest.mark.django_db
def test_a_report_with_too_much_text_is_refused_without_starting_a_renderer(service_catalog, monkeypatch):
    small = small_complete_session()
    monkeypatch.setattr(paper_budget, "MAX_TEXT_CHARS", 100)
    monkeypatch.setattr(renderer, "render", lambda *args, **kwargs: pytest.fail("a renderer was started"))
    with pytest.raises(WorkRailError) as refused:
        produce(small.session_id, "pdf", "dashboard", run_id=small.run_id)
    assert refused.value.code == ErrorCode.REPORT_TOO_LARGE
    assert refused.value.details["reason"] == "text"
    assert refused.value.details["markdownReport"] == f"/sessions/{small.session_id}/report.md?run={small.run_id}"


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("report_format", "formatter"),
    [("md", "exports.reports.markdown_report.notes"), ("pdf", "runs.templatetags.markdown.render_markdown")],
)
def test_a_report_whose_client_left_stops_between_two_steps(service_catalog, monkeypatch, report_format, formatter):
    small = small_complete_session()
    formatted: list[str] = []
    module, name = formatter.rsplit(".", 1)
    original = getattr(importlib.import_module(module), name)

    def formatting(text: str) -> object:
        formatted.append(text)
        return original(text)

    monkeypatch.setattr(formatter, formatting)
    with pytest.raises(WorkRailError) as stopped:
        produce(small.session_id, report_format, "dashboard", abandoned=lambda: bool(formatted))
    assert stopped.value.code == ErrorCode.REPORT_STOPPED and stopped.value.details == {"reason": "client"}
    assert len(formatted) == 1  # the first step's notes, and not one more
    assert renderer.live_renderers() == []


# --- stopping a renderer -----------------------------------------------------------------------------


def slow_html() -> str:
    """Seconds of layout: 300,000 characters of paragraphs."""
    return ("<p>" + "lorem ipsum dolor sit amet " * 1000 + "</p>") * 11


@pytest.mark.pdf
@pytest.mark.skipif(not Path("/proc").exists(), reason="reads /proc")
def test_a_renderer_whose_client_left_is_killed_and_reaped():
    pids: list[int] = []

    def abandoned() -> bool:
        pids.extend(renderer.live_renderers())
        return len(pids) > 2  # the client "disconnects" a few polls in

    with pytest.raises(renderer.Stopped) as stopped:
        renderer.render(slow_html(), list(stylesheet_texts()), watch=Watch(60, abandoned), memory_mb=1024)
    assert stopped.value.reason == "client"
    assert pids and all(gone(pid) for pid in set(pids))
    assert renderer.live_renderers() == []
