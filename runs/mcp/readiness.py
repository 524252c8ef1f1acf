"""Background preparation of a freshly started MCP process: Django apps, migrations, catalog.

Tools that need the database call `wait_until_ready()`; the catalog tools do not need to, but the
first scan is done here too so the first list_workflows is fast. The code that needs Django's apps is
loaded by name through runs/mcp/deferred.py, only once they are ready.
"""

from __future__ import annotations

import logging
import threading
import time

import django
from django.conf import settings

from runs.mcp import deferred

logger = logging.getLogger("workrail.mcp")

_ready = threading.Event()
_started = threading.Event()
_failure: list[BaseException] = []
_configuration: list[str] = []  # why the settings could not be read, when they could not


def refuse_all_calls(problem: str) -> None:
    """The settings are unusable: the server still answers the handshake (so the client can show
    why), and every call returns CONFIGURATION_ERROR with `problem`."""
    _configuration[:] = [problem]


def configuration_problem() -> str | None:
    return _configuration[0] if _configuration else None


def start_background_setup() -> threading.Thread:
    _started.set()
    worker = threading.Thread(target=_setup, name="workrail-setup", daemon=True)
    worker.start()
    return worker


HANDSHAKE_HEAD_START_S = 0.05

WEB_ONLY_APPS = frozenset({"ninja", "django.contrib.staticfiles"})
"""Apps that serve only the dashboard and the HTTP API, with no tables and no system checks that the
admin's depend on (it requires django.contrib.messages: that one stays). The MCP server leaves them
out: `ninja` alone loads django.test (and unittest, xml.dom) through its settings module."""
ADMIN = "django.contrib.admin"
ADMIN_WITHOUT_AUTODISCOVERY = "django.contrib.admin.apps.SimpleAdminConfig"


def server_apps(installed: list[str]) -> list[str]:
    """The apps an MCP server loads: every app with tables (the server applies their pending migrations
    at start-up), without the web-only ones, and the admin without autodiscovery (which would load
    every app's admin.py, and Django's forms with them). The same app labels, so the same tables."""
    return [ADMIN_WITHOUT_AUTODISCOVERY if app == ADMIN else app for app in installed if app not in WEB_ONLY_APPS]


def _setup() -> None:
    # Django's set-up is CPU-bound and would share the GIL with the handshake the client is waiting
    # for; give the handshake a head start (tool calls that need the database wait on `_ready`).
    time.sleep(HANDSHAKE_HEAD_START_S)
    try:
        settings.INSTALLED_APPS = server_apps(settings.INSTALLED_APPS)  # before the registry is populated
        django.setup()
        # Migrations quietly (stdout belongs to the protocol) and one process at a time (servers started
        # together on a new store would otherwise race to create its tables), then the typed models of
        # the tools and the catalog, before the first tools/list: runs/mcp/services.py.
        applied = deferred.service("prepare")()
        if applied:
            logger.info("applied %d migrations", applied)
    except BaseException as exc:  # reported to every tool that waits, never lost
        logger.exception("start-up failed")
        _failure.append(exc)
    finally:
        _ready.set()
    if not _failure:
        fetch_unpinned_repos()


def fetch_unpinned_repos() -> None:
    """A workflow repository never pinned is fetched once ready: the network never delays the handshake
    or a tool call, and until it is pinned the catalog says so (REPO_NOT_SYNCED)."""
    try:
        deferred.service("fetch_workflow_repos")()
    except Exception:  # the catalog reports the repository as not synced; the server carries on
        logger.exception("fetching workflow repositories failed")


def wait_until_ready(timeout: float = 60.0) -> None:
    """Blocks until start-up finished; returns at once where no background set-up runs (tests, dashboard)."""
    if not _started.is_set():
        return
    if not _ready.wait(timeout):
        raise TimeoutError("WorkRail is still preparing its database")
    if _failure:
        raise RuntimeError("WorkRail could not prepare its database") from _failure[0]
