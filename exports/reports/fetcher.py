"""What WeasyPrint may load while making a PDF: `data:` URLs, and nothing else.

The report's HTML is the dashboard's sanitized HTML, which already loads nothing from elsewhere; this
is the second line of defence. Every other URL WeasyPrint asks for (file: paths such as
file:///etc/passwd, http and https, ftp, a relative reference joined to the base URL) is refused
before any handler sees it, so no file is read and no request leaves the machine. Each refusal is kept
in `refused`, for the tests and for a warning in the log.
"""

from __future__ import annotations

import logging
from typing import Any

from weasyprint.urls import URLFetcher, URLFetcherResponse

logger = logging.getLogger("workrail.reports")

ALLOWED_SCHEME = "data:"
# The PDF's base URL: relative references (a link, a stylesheet) resolve under it instead of under the
# working directory. The .invalid top-level domain never resolves (RFC 2606), and the fetcher refuses
# https anyway: it only gives relative URLs an absolute, harmless form.
BASE_URL = "https://report.workrail.invalid/"


class RefusedURL(ValueError):
    """WeasyPrint catches fetcher errors and leaves the resource out (an image, a stylesheet)."""


class DataOnlyFetcher(URLFetcher):
    def __init__(self, **kwargs: Any) -> None:
        super().__init__(allowed_protocols=("data",), allow_redirects=False, **kwargs)
        self.refused: list[str] = []

    def fetch(self, url: str, headers: Any = None) -> URLFetcherResponse:
        if not str(url).lower().startswith(ALLOWED_SCHEME):
            self.refused.append(str(url))
            logger.warning("A report asked for %s; only data: URLs are loaded, it was left out.", str(url)[:200])
            raise RefusedURL(f"Only data: URLs are loaded in a report: {str(url)[:200]}")
        return super().fetch(url, headers)
