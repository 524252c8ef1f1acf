"""The branch graph as a picture in the PDF: a drawing (not text only) on the run's page, with the
branch labels, the step titles, the loop marks and the collapsed stretches as text pdftotext reads.
The page is rendered (pdftoppm) and kept under test-artifacts/reports/ for a look."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from exports.reports import html_report
from exports.reports.data import build_report
from exports.reports.produce import produce
from tests.support.looped_run import looped_and_forked
from tests.support.paths import REPO

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.pdf,
    pytest.mark.skipif(
        not (shutil.which("pdftotext") and shutil.which("pdftoppm")), reason="poppler-utils are not installed"
    ),
]

ARTIFACTS = REPO / "test-artifacts" / "reports"


def pages_of(pdf: bytes, tmp_path: Path) -> list[str]:
    path = tmp_path / "report.pdf"
    path.write_bytes(pdf)
    text = subprocess.run(["pdftotext", "-layout", str(path), "-"], capture_output=True, text=True, check=True)
    return text.stdout.split("\f")


def page_image(pdf: bytes, page: int, tmp_path: Path, name: str) -> Path:
    path = tmp_path / "report.pdf"
    path.write_bytes(pdf)
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    prefix = ARTIFACTS / name
    subprocess.run(
        ["pdftoppm", "-png", "-r", "80", "-f", str(page), "-l", str(page), "-singlefile", str(path), str(prefix)],
        check=True,
    )
    return prefix.with_suffix(".png")


def test_the_pdf_draws_the_branch_graph_with_its_labels(service_catalog, tmp_path):
    looped = looped_and_forked(service_catalog["extra"], iterations=3)
    pdf = produce(looped.session_id, "pdf", "command", run_id=looped.run_id).data
    pages = pages_of(pdf, tmp_path)
    with_graph = [n for n, text in enumerate(pages, start=1) if "Branch 2" in text and "One card per step" in text]
    assert with_graph, "no page holds the drawing's labels"
    text = pages[with_graph[0] - 1]
    for expected in ("Branch 1", "Branch 2", "Scope the change", "Verify slice 2", "checkpoint", "newest"):
        assert expected in text, expected
    # Told as the run page tells it (graph_story): the checkpoint a tag on its step's card, not a dashed card;
    # the step branch 2 answered again its own first card, tagged so.
    assert "redone after branching" in text and "A dashed card" not in text and "A “checkpoint” tag" in text
    # A drawing, not only words: the rendered page holds the cards' colours (the accent of the newest
    # node's tag, the green of the completed run's card).
    image = page_image(pdf, with_graph[0], tmp_path, "graph-page")
    colours = _colours(image)
    assert any(_near(colour, (0x9A, 0x5B, 0x00)) for colour in colours), "no newest tag drawn"
    assert any(_near(colour, (0x1B, 0x7F, 0x43)) for colour in colours), "no completed card drawn"


def test_a_long_run_is_drawn_with_its_straight_stretches_collapsed(service_catalog, settings):
    settings.WORKRAIL_RATE_LIMIT_BURST = 100_000
    looped = looped_and_forked(service_catalog["extra"], iterations=40)
    html = html_report.render(build_report(looped.session_id, looped.run_id))
    figure = html.split('class="graph-figure"', 1)[1].split("</figure>", 1)[0]
    assert "⋯ " in figure and " steps" in figure  # the stretch after the fork, in one chip
    assert figure.count('class="graph-node"') < 30  # of 85 nodes
    assert "Summarize the verification" in figure and "Branch 2" in figure


def _colours(image: Path) -> set[tuple[int, int, int]]:
    """The distinct colours of a PNG, read with Pillow (WeasyPrint's own dependency)."""
    from PIL import Image

    with Image.open(image) as picture:
        found = picture.convert("RGB").getcolors(maxcolors=1 << 20) or []
    return {colour for _, colour in found}


def _near(colour: tuple[int, int, int], target: tuple[int, int, int]) -> bool:
    return all(abs(a - b) <= 24 for a, b in zip(colour, target, strict=True))
