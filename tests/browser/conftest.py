"""The browser harness (see tests/browser/__init__.py): headless Chromium from Debian, one for each stretch
of browser tests a process runs in a row, a fresh context per test, and every Content Security Policy
violation a test failure.

Chromium is /usr/bin/chromium (the `chromium` package, which scripts/bootstrap installs from
scripts/system-packages.txt); Playwright only drives it, so `playwright install` is never needed.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Generator, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tests.browser import screenshot
from tests.browser.layout import VIEWPORTS, Viewport
from tests.support import in_flight
from tests.support.sample_session import Built, two_runs_one_forked_twice

# Playwright's sync API runs an asyncio loop in this thread, and Django refuses database calls from a
# thread with a running loop unless told that this is fine (it is: the calls are synchronous).
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

HERE = Path(__file__).resolve().parent
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
DEFAULT_TIMEOUT_MS = 15_000
# How long a test's teardown waits for the live server to finish what its page asked for (a PDF report is the
# slowest: WORKRAIL_REPORT_SECONDS bounds it at 30 s).
IDLE_WAIT_S = 45
# Chromium's own wording for a blocked load or script ("Refused to load the stylesheet ... because it
# violates the following Content Security Policy directive ...").
CSP_MARKERS = ("Content Security Policy", "Refused to")
# Also reported from inside the page, in case a violation is not logged (reports are, e.g. for eval).
REPORT_VIOLATIONS = """
document.addEventListener("securitypolicyviolation", (event) => {
  const blocked = event.blockedURI || "inline";
  console.error(`Content Security Policy violation: ${event.violatedDirective} blocked ${blocked}`);
});
"""


def chromium_path() -> str | None:
    found = shutil.which("chromium") or "/usr/bin/chromium"
    return found if os.access(found, os.X_OK) else None


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if is_browser_test(item):
            item.add_marker(pytest.mark.browser)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Generator[None, Any, Any]:
    report = yield
    if report.when == "call":
        item.stash[CALL_FAILED] = report.failed
    return report


CALL_FAILED = pytest.StashKey[bool]()


@dataclass
class ConsoleLog:
    """What one page logged: console messages ("type: text (url:line)") and uncaught exceptions."""

    messages: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    _csp_allowed: bool = False

    def on_console(self, message: Any) -> None:
        location = message.location or {}
        text = f"{message.type}: {message.text} ({location.get('url', '?')}:{location.get('lineNumber', '?')})"
        self.messages.append(text)
        if message.type == "error":  # /favicon.ico included: the dashboard serves one (pages.favicon)
            self.errors.append(text)

    def on_page_error(self, error: Any) -> None:
        text = f"uncaught: {error}"
        self.messages.append(text)
        self.errors.append(text)

    @property
    def csp_violations(self) -> list[str]:
        return [text for text in self.messages if any(marker in text for marker in CSP_MARKERS)]

    def allow_csp_violations(self) -> None:
        """For a test that causes violations on purpose: the page fixture then does not fail on them."""
        self._csp_allowed = True

    def assert_clean(self) -> None:
        """No console errors, no uncaught exceptions, no CSP violations so far."""
        assert self.errors == [], "\n".join(self.errors)
        assert self.csp_violations == [], "\n".join(self.csp_violations)


class SharedChromium:
    """One headless Chromium (and the Playwright driver behind it) for a stretch of browser tests that run one
    after the other in this process: starting them is the costly part (seconds), so they are started at the
    first such test and stopped after the last one (see pytest_runtest_teardown below), not once per module.
    Each test still gets a fresh context. Not kept beyond the stretch: while Playwright's sync API is running
    it holds an asyncio loop on this thread, and a test from elsewhere (anyio.run for the MCP client, say)
    would find it "already running"."""

    def __init__(self) -> None:
        self._playwright: Any = None
        self._chromium: Any = None

    def get(self) -> Any:
        if self._chromium is not None and not self._chromium.is_connected():
            self.close()  # gone with a failed test: started again for the next one
        if self._chromium is None:
            self._chromium = self._start()
        return self._chromium

    def _start(self) -> Any:
        executable = chromium_path()
        if executable is None:
            pytest.fail(
                "Chromium is not installed (no `chromium` on PATH, no /usr/bin/chromium). The browser tests use "
                "Debian's chromium package: run scripts/bootstrap (or `make test`), which installs the packages "
                "listed in scripts/system-packages.txt, or `sudo apt-get install chromium`.",
                pytrace=False,
            )
        from playwright.sync_api import sync_playwright

        self._playwright = sync_playwright().start()
        try:
            return self._playwright.chromium.launch(executable_path=executable, headless=True, args=CHROMIUM_ARGS)
        except BaseException:
            self.close()
            raise

    def close(self) -> None:
        chromium, playwright = self._chromium, self._playwright
        self._chromium = self._playwright = None
        try:
            if chromium is not None and chromium.is_connected():
                chromium.close()
        finally:
            if playwright is not None:
                playwright.stop()


SHARED_CHROMIUM = SharedChromium()


def is_browser_test(item: pytest.Item | None) -> bool:
    return item is not None and HERE in item.path.parents


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None) -> Generator[None, Any, Any]:
    """After the test's own fixtures are torn down: the shared Chromium stops unless this process's next test
    (pytest-xdist says which, or None at the end) is a browser test too."""
    try:
        return (yield)
    finally:
        if not is_browser_test(nextitem):
            SHARED_CHROMIUM.close()


@pytest.fixture
def browser() -> Any:
    """The headless Chromium of this stretch of browser tests (SharedChromium); make contexts in it, never
    close it."""
    return SHARED_CHROMIUM.get()


@pytest.fixture(params=VIEWPORTS, ids=[viewport.name for viewport in VIEWPORTS])
def viewport(request: pytest.FixtureRequest) -> Viewport:
    """Runs the test once at desktop size (1440x900) and once at phone size (390x844)."""
    viewport: Viewport = request.param
    return viewport


@pytest.fixture
def sized_page(page: Any, viewport: Viewport) -> Any:
    """The `page` fixture at the `viewport` size: use it with tests.browser.layout's `assert_fits` and
    `keep_screenshot` in one test per dashboard page, parametrized by size through `viewport`."""
    page.set_viewport_size(viewport.size)
    return page


@pytest.fixture
def console_log() -> ConsoleLog:
    return ConsoleLog()


@pytest.fixture
def page(browser: Any, console_log: ConsoleLog, request: pytest.FixtureRequest) -> Iterator[Any]:
    """A page in a fresh browser context (no cookies from other tests). Fails the test at teardown if a
    Content Security Policy violation was logged; saves a screenshot when the test failed."""
    # Reduced motion: a screenshot taken right after an input shows the page settled, not a button mid-way
    # through its colour transition (friction29a 3: an enabled "Preview the change" caught pale read as off).
    context = browser.new_context(
        viewport={"width": 1280, "height": 900}, locale="en-US", timezone_id="UTC", reduced_motion="reduce"
    )
    context.set_default_timeout(DEFAULT_TIMEOUT_MS)
    context.add_init_script(REPORT_VIOLATIONS)
    new_page = context.new_page()
    new_page.on("console", console_log.on_console)
    new_page.on("pageerror", console_log.on_page_error)
    try:
        yield new_page
        if request.node.stash.get(CALL_FAILED, False):
            with_path = screenshot(new_page, f"FAILED-{request.node.name}")
            print(f"screenshot of the failed test: {with_path}")
    finally:
        context.close()
        # What the page asked for may still be answered by the live server's thread; the database is flushed
        # after this teardown, and must not meet it (tests/support/in_flight.py).
        in_flight.wait_idle(IDLE_WAIT_S)
    if console_log.csp_violations and not console_log._csp_allowed:
        pytest.fail("Content Security Policy violations:\n" + "\n".join(console_log.csp_violations), pytrace=False)


@pytest.fixture
def dirs(tmp_path: Path, settings: Any, monkeypatch: pytest.MonkeyPatch) -> dict[str, Path]:
    """The catalog's directories (tests/plugins/catalog.py's `dirs`) where a user has them: WORKRAIL_HOME is the
    default, ~/.workrail, of a home of the test's own, so the pages show what a user sees ("~/.workrail/config.toml",
    commands without WORKRAIL_HOME), not /tmp/pytest-of-root/... paths (friction62a 12). Path.home() only: the
    environment's HOME, which Chromium and git read, stays as it is."""
    user = tmp_path / "user"
    paths = {"home": user / ".workrail", "project": user / "project", "extra": user / "workflows"}
    for path in paths.values():
        path.mkdir(parents=True)
    monkeypatch.setattr(Path, "home", classmethod(lambda cls: user))
    settings.WORKRAIL_HOME_DEFAULT = paths["home"]
    return paths


@pytest.fixture
def site(live_server: Any) -> str:
    """The live server's address; a test that asks for it runs against the test database's rows."""
    return str(live_server.url)


@pytest.fixture
def forked(live_server: Any, service_catalog: Any) -> Built:
    """A review with a second run, forked twice (tests/support/sample_session.py)."""
    return two_runs_one_forked_twice()
