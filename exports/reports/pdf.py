"""A report as PDF: WeasyPrint over the report's HTML (html_report.py) with our print stylesheet
(workrail_site/static/reports/print.css), loading nothing but data: URLs (fetcher.py).

`bounded_pdf` is what reports use: the HTML fitted to the PDF's budget first (paper_budget.py), then
laid out in a child process within the report's deadline and a memory cap (renderer.py). `render_pdf` lays HTML
out here, in this process and without bounds: for tests and the benchmark, never for a request.
"""

from __future__ import annotations

import functools
import importlib
from pathlib import Path
from typing import TYPE_CHECKING

from django.conf import settings
from django.contrib.staticfiles import finders

from exports.reports import paper_budget, pdf_support, renderer
from exports.reports.limits import Watch
from exports.reports.pdf_child import WORK

if TYPE_CHECKING:
    from exports.reports.fetcher import DataOnlyFetcher


STYLESHEETS = ("reports/print.css",)


def _static_text(name: str) -> str:
    found = finders.find(name)
    if not isinstance(found, str):
        raise FileNotFoundError(f"The static file {name} is missing from this checkout.")
    return Path(found).read_text(encoding="utf-8")


@functools.cache
def stylesheet_texts() -> tuple[str, ...]:
    return tuple(_static_text(name) for name in STYLESHEETS)


def render_pdf(html: str, fetcher: DataOnlyFetcher | None = None) -> bytes:
    """The PDF of `html`, made in this process. `fetcher` (a fresh DataOnlyFetcher by default) sees every
    URL WeasyPrint asks for, and refuses all but data: ones."""
    pdf_support.check()
    # By name, like the renderer's child: a process that only serves bounded PDFs never loads WeasyPrint.
    pdf: bytes = importlib.import_module(WORK).pdf_of(html, stylesheet_texts(), fetcher)
    return pdf


def bounded_pdf(html: str, watch: Watch) -> bytes:
    """The PDF of `html` within the PDF's bounds. Raises paper_budget.TooMuchText before any layout,
    limits.Refused when the report's deadline or the memory cap stopped it, limits.Stopped when nobody
    waits for it any more, pdf_support.PdfUnavailable (first) when this machine lacks Pango."""
    pdf_support.check()
    fitted = paper_budget.fit(html)
    return renderer.render(
        fitted.html, list(stylesheet_texts()), watch=watch, memory_mb=settings.WORKRAIL_REPORT_PDF_MAX_MB
    ).pdf
