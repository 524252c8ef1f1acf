"""A report as PDF: WeasyPrint over the report's HTML (html_report.py) with our print stylesheet
(static/reports/print.css), loading nothing but data: URLs (fetcher.py)."""

from __future__ import annotations

import functools
from pathlib import Path

from django.contrib.staticfiles import finders
from weasyprint import CSS, HTML

from exports.reports.fetcher import BASE_URL, DataOnlyFetcher

STYLESHEETS = ("reports/print.css",)


def _static_text(name: str) -> str:
    found = finders.find(name)
    if not isinstance(found, str):
        raise FileNotFoundError(f"The static file {name} is missing from this checkout.")
    return Path(found).read_text(encoding="utf-8")


@functools.cache
def _stylesheets() -> tuple[CSS, ...]:
    """Parsed once per process (about a tenth of a second each). They come from this checkout, but go
    through the same refusing fetcher: a url() or @import in them would load nothing either."""
    fetcher = DataOnlyFetcher()
    return tuple(CSS(string=_static_text(name), base_url=BASE_URL, url_fetcher=fetcher) for name in STYLESHEETS)


def render_pdf(html: str, fetcher: DataOnlyFetcher | None = None) -> bytes:
    """The PDF of `html`. `fetcher` (a fresh DataOnlyFetcher by default) sees every URL WeasyPrint asks
    for, and refuses all but data: ones."""
    document = HTML(string=html, base_url=BASE_URL, url_fetcher=fetcher or DataOnlyFetcher())
    pdf: bytes = document.write_pdf(stylesheets=list(_stylesheets()))
    return pdf
