"""Browser tests: the dashboard in headless Chromium, driven by Playwright's sync API.

Fixtures (tests/browser/conftest.py): `browser` (one Chromium for the browser tests a process runs in a
row, /usr/bin/chromium from scripts/bootstrap), `page` (a fresh context per test; the test fails if the
page logged a Content Security Policy violation), `console_log` (what that page logged), `viewport` (runs
a test at desktop and at phone size) with `sized_page` (the page at that size), and pytest-django's
`live_server` for the site. tests/browser/layout.py has `assert_fits(page)` and `keep_screenshot(page, name)` for them.
Every test here gets the `browser` marker: `pytest -m browser` runs them, `-m "not browser"` skips them.
`screenshot(page, "name")` saves test-artifacts/screenshots/name.png (git-ignored), and beside it in
test-artifacts/page_text/name.json what a reader of that picture reads: bench/page_text.py sums those up.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

ARTIFACTS_DIR = Path(__file__).resolve().parents[2] / "test-artifacts"
SCREENSHOTS_DIR = ARTIFACTS_DIR / "screenshots"
PAGE_TEXT_DIR = ARTIFACTS_DIR / "page_text"

# What a reader of a full-page screenshot reads: the rendered text (innerText leaves out closed folds, hidden
# elements and scripts), its runs of white space counted as one, and how many window heights the page is.
READ_TEXT_SCRIPT = """
() => ({
  chars: document.body.innerText.replace(/\\s+/g, " ").trim().length,
  height: document.documentElement.scrollHeight,
  window: innerHeight,
  width: innerWidth,
})
"""


def screenshot(page: Any, name: str, *, full_page: bool = True) -> Path:
    """Saves a PNG of `page` as test-artifacts/screenshots/<name>.png and returns its path. A full page is taken
    from its top, as a reader first sees it: a page the test had scrolled drew the sticky runs column where the
    scroll left it, half-way down the picture (friction21a D1); the test's scroll is put back after."""
    SCREENSHOTS_DIR.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS_DIR / (re.sub(r"[^A-Za-z0-9_.-]+", "-", name).strip("-") + ".png")
    if not full_page:
        page.screenshot(path=str(path))
        return path
    scrolled = page.evaluate("() => { const at = [scrollX, scrollY]; scrollTo(0, 0); return at; }")
    page.screenshot(path=str(path), full_page=True)
    page.evaluate("([x, y]) => scrollTo(x, y)", scrolled)
    keep_page_text(page, path.stem)
    return path


def keep_page_text(page: Any, stem: str) -> None:
    """Writes test-artifacts/page_text/<stem>.json: the characters a reader of the page reads and its height."""
    PAGE_TEXT_DIR.mkdir(parents=True, exist_ok=True)
    (PAGE_TEXT_DIR / f"{stem}.json").write_text(json.dumps(page.evaluate(READ_TEXT_SCRIPT)))
