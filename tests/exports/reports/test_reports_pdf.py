"""PDF reports: made from the dashboard's sanitized HTML, loading nothing but data: URLs.

A local HTTP server on 127.0.0.1 counts every request it gets: hostile notes (a local file, linked and
imported stylesheets, SVG resources, a Markdown image) must not make a single one. The text of the PDF
(pdftotext) holds the notes; the first page is rendered (pdftoppm) and kept under
test-artifacts/reports/ for a look.
"""

from __future__ import annotations

import base64
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from exports.reports import html_report
from exports.reports.data import build_report
from exports.reports.fetcher import BASE_URL, DataOnlyFetcher, RefusedURL
from exports.reports.pdf import render_pdf
from exports.reports.produce import produce
from runs.readmodels import graph_drawing
from tests.exports.reports.support import counting_server, hostile_session, wide_table_session
from tests.support.paths import REPO
from tests.support.sample_session import two_runs_one_forked_twice

pytestmark = [pytest.mark.django_db, pytest.mark.pdf]

ARTIFACTS = REPO / "test-artifacts" / "reports"
# A 1x1 PNG, the one kind of resource a report may embed (a data: URL).
PIXEL = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
)

needs_poppler = pytest.mark.skipif(
    not (shutil.which("pdftotext") and shutil.which("pdftoppm")),
    reason="poppler-utils (pdftotext, pdftoppm) are not installed: see scripts/system-packages.txt",
)


def pdf_text(pdf: bytes, tmp_path: Path) -> str:
    path = tmp_path / "report.pdf"
    path.write_bytes(pdf)
    return subprocess.run(["pdftotext", "-layout", str(path), "-"], capture_output=True, text=True, check=True).stdout


# --- the fetcher -------------------------------------------------------------------------------------


def test_the_fetcher_refuses_files_the_network_and_relative_urls():
    with counting_server() as (port, seen):
        fetcher = DataOnlyFetcher()
        for url in (
            "file:///etc/passwd",
            "FILE:///etc/passwd",
            f"http://127.0.0.1:{port}/x.css",
            f"https://127.0.0.1:{port}/x.css",
            f"ftp://127.0.0.1:{port}/x",
            "x.css",
            "/etc/passwd",
            "//127.0.0.1/x.css",
        ):
            with pytest.raises(RefusedURL):
                fetcher.fetch(url)
        assert seen == []
        assert len(fetcher.refused) == 8


def test_the_fetcher_loads_data_urls():
    fetcher = DataOnlyFetcher()
    response = fetcher.fetch("data:text/plain;base64," + base64.b64encode(b"hello").decode())
    assert response.read() == b"hello"
    assert fetcher.refused == []


def test_the_base_url_resolves_nothing_on_the_filesystem():
    assert BASE_URL.startswith("https://") and BASE_URL.rstrip("/").endswith(".invalid")


# --- hostile notes -----------------------------------------------------------------------------------


@needs_poppler
def test_a_pdf_of_hostile_notes_embeds_nothing_and_makes_no_request(service_catalog, tmp_path):
    with counting_server() as (port, seen):
        hostile = hostile_session(port)
        produced = produce(hostile.session_id, "pdf", "command")
        assert seen == []
    pdf = produced.data
    assert pdf.startswith(b"%PDF-")
    assert b"/Subtype /Image" not in pdf  # no picture at all: not the file, not a remote one
    text = pdf_text(pdf, tmp_path)
    assert "NOTE-MARKER-7f3a" in text  # the notes are there...
    assert "root:" not in text  # ...and /etc/passwd is not
    assert "A heading the agent wrote" in text
    assert "image: remote picture" in text  # a Markdown image is a link, never loaded

    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    prefix = ARTIFACTS / "hostile-session"
    (ARTIFACTS / "hostile-session.pdf").write_bytes(pdf)
    subprocess.run(
        ["pdftoppm", "-png", "-r", "70", "-f", "1", "-l", "1", str(ARTIFACTS / "hostile-session.pdf"), str(prefix)],
        check=True,
        capture_output=True,
    )
    pages = sorted(ARTIFACTS.glob("hostile-session-*1.png"))
    assert pages, "pdftoppm made no PNG of the first page"
    assert pages[0].read_bytes().startswith(b"\x89PNG")


def test_hostile_html_that_got_past_the_sanitizer_still_loads_nothing(tmp_path):
    """The second line of defence alone: HTML as if the sanitizer had let everything through."""
    with counting_server() as (port, seen):
        base = f"http://127.0.0.1:{port}"
        html = (
            "<html><head>"
            f'<link rel="stylesheet" href="{base}/linked.css">'
            f'<style>@import url("{base}/imported.css"); body {{ background: url({base}/bg.png) }}</style>'
            "</head><body><p>DIRECT-MARKER</p>"
            '<img src="file:///etc/passwd"><img src="relative.png">'
            f'<svg width="20" height="20"><image href="{base}/svg-image.png" width="10" height="10"/></svg>'
            f'<img src="data:image/png;base64,{base64.b64encode(PIXEL).decode()}">'
            "</body></html>"
        )
        fetcher = DataOnlyFetcher()
        pdf = render_pdf(html, fetcher)
        assert seen == []
    refused = set(fetcher.refused)
    assert "file:///etc/passwd" in refused
    assert f"{base}/linked.css" in refused
    assert f"{base}/imported.css" in refused
    assert f"{base}/svg-image.png" in refused
    assert BASE_URL + "relative.png" in refused
    assert b"/Subtype /Image" in pdf  # the data: pixel (with its alpha mask) is embedded


# --- the PDF's content -------------------------------------------------------------------------------


def test_the_pdf_is_made_from_the_dashboards_partials_with_the_graph_drawn(service_catalog):
    built = two_runs_one_forked_twice()
    html = html_report.render(build_report(built.session_id, built.review_run))
    assert 'class="graph-figure"' in html and "<style>text{" in html  # the graph drawn for paper, coloured in itself
    assert 'class="steps"' in html and 'class="changed-files"' in html  # dashboard/_run.html
    assert "<script" not in html.split("</title>", 1)[1].replace("&lt;script", "")
    assert "<link" not in html and "Cancel run" not in html


@needs_poppler
def test_the_pdf_holds_the_session_notes_tables_and_branches(service_catalog, tmp_path):
    built = two_runs_one_forked_twice()
    text = pdf_text(produce(built.session_id, "pdf", "command").data, tmp_path)
    for expected in (
        "Session report: TICKET-4242",
        "Step 1 of the review. Looked at the diff.",
        "Went on after the checkpoint.",
        "Planned the follow-up.",
        "Changed files",
        "SQL built from input",
        "● Branch 1: ",  # the branch tree in words
        "└─ Branch 3: redoes ",
        "Page 1 of",
    ):
        assert expected in text, expected


def test_a_run_too_big_to_draw_legibly_is_listed_instead(service_catalog, monkeypatch):
    built = two_runs_one_forked_twice()
    monkeypatch.setattr(graph_drawing, "PAPER_WIDTH_MM", 60)  # the review run is wider, the plan run is not
    html = html_report.render(build_report(built.session_id))
    assert html.count('class="run-graph"') == 1
    assert 'class="legend"' not in html  # the dashboard's legend and script are replaced by the figure
    assert "This run has too many branches to draw legibly on a page" in html
    assert re.search(r"● Branch 1: \d+ steps, ", html)  # the list of branches stays


@needs_poppler
def test_a_step_longer_than_the_rest_of_a_page_starts_on_it_instead_of_leaving_it_blank(service_catalog, tmp_path):
    built = wide_table_session()
    text = pdf_text(produce(built.session_id, "pdf", "command").data, tmp_path)
    pages = text.split("\f")
    heading = next(number for number, page in enumerate(pages) if re.search(r"^\s*Steps\s*$", page, re.MULTILINE))
    assert "columns of this note's table omitted" in pages[heading]  # the step follows its heading


def test_severities_in_print_are_a_graded_meter_in_no_states_colour():
    # As on the dashboard (friction12 12): a report's severity never wears a state's colour (red is Blocked,
    # amber a person's move), and each grade has its own marks; Critical and Major filled, red and orange, as on the
    # dashboard (friction26b 15: a black Critical read against instinct).
    css = (REPO / "workrail_site" / "static" / "reports" / "print.css").read_text(encoding="utf-8")
    css = re.sub(r"/\*.*?\*/", "", css, flags=re.S)
    state_colours = set(re.findall(r"\.status-\w+ \{ color: (#[0-9a-f]{6}); \}", css))
    assert {"#b42318", "#9a5b00"} <= state_colours
    rules = dict(re.findall(r"([^{}]*\.sev[^{}]*)\{([^}]*)\}", css))
    assert rules and not any(colour in body for body in rules.values() for colour in state_colours), rules
    marks = {grade: re.search(rf"\.sev-{grade}::before \{{ content: \"([■□]+)\"", css) for grade in GRADES}
    assert [m.group(1).count("■") if m else None for m in marks.values()] == [3, 2, 1, 0]
    filled = [g for g in GRADES if "background" in next(b for s, b in rules.items() if f".sev-{g} " in s + " ")]
    assert filled == ["critical", "major"]
    assert "#a3170e" in rules[next(s for s in rules if ".sev-critical " in s + " ")]


GRADES = ("critical", "major", "minor", "nit")
