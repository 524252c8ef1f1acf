"""The PDF itself, with WeasyPrint: stylesheets parsed and the document written, every URL through the
refusing fetcher. Loaded in the renderer's child process (pdf_child.py names it) and by pdf.py for a
PDF made in-process; the dashboard's own process never imports it, so WeasyPrint's memory stays out.
"""

from __future__ import annotations

from collections.abc import Sequence

from weasyprint import CSS, HTML

from exports.reports.fetcher import BASE_URL, DataOnlyFetcher

# PDF/UA-1: a tagged PDF (a structure tree of headings, paragraphs, lists and tables, marked content) with
# the document's language and title, so that screen readers and reflowing viewers read it in order.
PDF_VARIANT = "pdf/ua-1"


def stylesheets_of(texts: Sequence[str], fetcher: DataOnlyFetcher) -> list[CSS]:
    """Parsed stylesheets. They come from this checkout, but go through the same refusing fetcher: a url()
    or @import in them would load nothing either."""
    return [CSS(string=text, base_url=BASE_URL, url_fetcher=fetcher) for text in texts]


def write_pdf(html: str, stylesheets: Sequence[CSS], fetcher: DataOnlyFetcher) -> bytes:
    """The PDF of `html`. `fetcher` sees every URL WeasyPrint asks for, and refuses all but data: ones."""
    document = HTML(string=html, base_url=BASE_URL, url_fetcher=fetcher)
    pdf: bytes = document.write_pdf(stylesheets=list(stylesheets), pdf_variant=PDF_VARIANT)
    return pdf


def pdf_of(html: str, stylesheet_texts: Sequence[str], fetcher: DataOnlyFetcher | None = None) -> bytes:
    """The PDF of `html` with the given stylesheets, through `fetcher` (a fresh one by default)."""
    fetcher = fetcher or DataOnlyFetcher()
    return write_pdf(html, stylesheets_of(stylesheet_texts, fetcher), fetcher)
