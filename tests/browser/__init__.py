"""Browser tests: the dashboard in headless Chromium, driven by Playwright's sync API.

Fixtures (tests/browser/conftest.py): `browser` (one Chromium for the browser tests a process runs in a
row, /usr/bin/chromium from scripts/bootstrap), `page` (a fresh context per test; the test fails if the
page logged a Content Security Policy violation), `console_log` (what that page logged), `viewport` (runs
a test at desktop and at phone size) with `sized_page` (the page at that size), and pytest-django's
`live_server` for the site. tests/browser/layout.py has `assert_fits(page)` and `keep_screenshot(page, name)` for them.
Every test here gets the `browser` marker: `pytest -m browser` runs them, `-m "not browser"` skips them.
`screenshot(page, "name")` saves test-artifacts/screenshots/name.png (git-ignored).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

ARTIFACTS_DIR = Path(__file__).resolve().parents[2] / "test-artifacts"
SCREENSHOTS_DIR = ARTIFACTS_DIR / "screenshots"


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
    return path
