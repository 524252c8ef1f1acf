"""Django settings. Every knob is an environment variable (or its key in WORKRAIL_HOME/config.toml, which
the environment overrides), read here and nowhere else."""

from __future__ import annotations

import os
import sys
from datetime import timedelta
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

from workrail_site.env import Env
from workrail_site.original_names import reject_original_names
from workrail_site.settings_file import read_settings_file
from workrail_site.storage import DATABASE_FILE, ensure_home, read_or_create_secret
from workrail_site.workflow_repos import parse_workflow_repos

# The checkout's root (manage.py's directory) when run from one; in an installed wheel, site-packages.
BASE_DIR = Path(__file__).resolve().parent.parent
# The site's own templates and static files live inside this package, so a wheel carries them.
SITE_DIR = Path(__file__).resolve().parent
env = Env()


def _comma_separated(value: str) -> list[str]:
    return [part.strip() for part in value.split(",") if part.strip()]


# --- Where WorkRail keeps its state ---------------------------------------------------------------
WORKRAIL_HOME_DEFAULT = Path.home() / ".workrail"
# Owner-only: the home 0700 and its files 0600, tightened (with a line on stderr) when looser; see storage.py.
WORKRAIL_HOME = ensure_home(env.path("WORKRAIL_HOME", WORKRAIL_HOME_DEFAULT), default=WORKRAIL_HOME_DEFAULT)
# Every setting below may be written in this file instead (workrail_site/settings_file.py); the
# environment wins. The connect page shows it and what it sets.
env.use_file(read_settings_file(WORKRAIL_HOME))
WORKRAIL_SETTINGS_FILE = env.file

# --- Workflow sources (see workflows_app.sources) -------------------------------------------------
WORKRAIL_PROJECT_DIR = env.path("WORKRAIL_PROJECT_DIR", Path.cwd())
WORKRAIL_WORKFLOW_PATHS = env.paths("WORKRAIL_WORKFLOW_PATHS")
# Git repositories of workflows, each pinned to a commit under WORKRAIL_HOME/workflow-repos until
# `manage.py sync_workflows` moves it (workrail_site/workflow_repos.py says how an entry is written).
WORKRAIL_WORKFLOW_REPOS = parse_workflow_repos(env.text("WORKRAIL_WORKFLOW_REPOS", "", separator=" "))

# --- Features behind flags, and the defaults a new session starts from -------------------------------
WORKRAIL_ENABLE_CHECKPOINT = env.flag("WORKRAIL_ENABLE_CHECKPOINT", True)
WORKRAIL_ENABLE_START_SESSION = env.flag("WORKRAIL_ENABLE_START_SESSION", False)
WORKRAIL_ENABLE_RESUME_SESSION = env.flag("WORKRAIL_ENABLE_RESUME_SESSION", True)
WORKRAIL_DEFAULT_PREFERENCES = {
    "autonomy": env.choice(
        "WORKRAIL_AUTONOMY", "guided", ["guided", "full_auto_stop_on_user_deps", "full_auto_never_stop"]
    ),
    "riskPolicy": env.choice("WORKRAIL_RISK_POLICY", "balanced", ["conservative", "balanced", "aggressive"]),
}
# Per-run write rate limit (token bucket): a burst, then a steady rate. Generous for people and agents,
# tight enough that a runaway loop cannot flood the store.
WORKRAIL_RATE_LIMIT_BURST = env.integer("WORKRAIL_RATE_LIMIT_BURST", 120, minimum=1, maximum=100_000)
WORKRAIL_RATE_LIMIT_PER_MINUTE = env.integer("WORKRAIL_RATE_LIMIT_PER_MINUTE", 600, minimum=1, maximum=1_000_000)
# While an MCP client is subscribed to a run or session resource, its server looks at the store this
# often (one indexed query) for changes made by any process (runs/mcp/subscriptions.py).
WORKRAIL_SUBSCRIPTION_POLL_MS = env.integer("WORKRAIL_SUBSCRIPTION_POLL_MS", 500, minimum=50, maximum=60_000)

# --- The dashboard ----------------------------------------------------------------------------------
# An in-progress run with no activity for this long is shown as stalled.
WORKRAIL_STALL_MINUTES = env.integer("WORKRAIL_STALL_MINUTES", 30, minimum=1, maximum=525_600)
# How many recent MCP tool calls the timings page keeps (older rows are deleted).
WORKRAIL_TOOL_TIMINGS_KEPT = env.integer("WORKRAIL_TOOL_TIMINGS_KEPT", 5000, minimum=100, maximum=1_000_000)

# --- Sharing and retention ---------------------------------------------------------------------------
# `manage.py cleanup` deletes whole sessions with no activity for this many days (and the pinned
# workflows no remaining run uses). A session touched inside the window is never deleted.
WORKRAIL_RETENTION_DAYS = env.integer("WORKRAIL_RETENTION_DAYS", 60, minimum=1, maximum=36_500)
# The largest session bundle `import_bundle` and the dashboard's import form accept: a bundle is read
# whole into memory before anything is written, so this bounds what a hostile file can cost.
WORKRAIL_BUNDLE_MAX_MB = env.integer("WORKRAIL_BUNDLE_MAX_MB", 256, minimum=1, maximum=4096)
# A report (Markdown or PDF) is made within this many seconds, or refused with REPORT_TOO_LARGE; a PDF
# is laid out in a child process that is also stopped when it needs more than WORKRAIL_REPORT_PDF_MAX_MB
# of memory (address space). The refusal names a smaller alternative (exports/reports/limits.py).
WORKRAIL_REPORT_SECONDS = env.integer("WORKRAIL_REPORT_SECONDS", 30, minimum=1, maximum=3600)
WORKRAIL_REPORT_PDF_MAX_MB = env.integer("WORKRAIL_REPORT_PDF_MAX_MB", 1024, minimum=256, maximum=65_536)

# --- The MCP server over HTTP (`manage.py mcp --http`, docs/http.md) ------------------------------------
# Loopback host names and origins are always allowed. A team that reaches the server through a name (a TLS
# reverse proxy) lists that name and the proxy's origin here: any other Host or Origin is refused (the MCP
# transport's DNS-rebinding rule), and binding a non-loopback address needs WORKRAIL_MCP_ALLOWED_HOSTS.
WORKRAIL_MCP_ALLOWED_HOSTS = _comma_separated(env.text("WORKRAIL_MCP_ALLOWED_HOSTS", "", separator=","))
WORKRAIL_MCP_ALLOWED_ORIGINS = _comma_separated(env.text("WORKRAIL_MCP_ALLOWED_ORIGINS", "", separator=","))
for _host in WORKRAIL_MCP_ALLOWED_HOSTS:
    # A host name (or name:port), as a client's Host header carries it: a URL here would match no request,
    # and every request through the proxy would be refused with a message saying to add what was added.
    if "/" in _host or "@" in _host or " " in _host:
        raise ImproperlyConfigured(
            f"WORKRAIL_MCP_ALLOWED_HOSTS: {_host!r} is not a host name: write the name alone (or name:port), "
            "e.g. workrail.example.com, comma-separated; origins (https://...) go in WORKRAIL_MCP_ALLOWED_ORIGINS."
        )
for _origin in WORKRAIL_MCP_ALLOWED_ORIGINS:
    if not _origin.startswith(("https://", "http://")) or "/" in _origin.split("://", 1)[1]:
        raise ImproperlyConfigured(
            f"WORKRAIL_MCP_ALLOWED_ORIGINS: {_origin!r} is not an origin: use scheme://host[:port], "
            "e.g. https://workrail.example.com, comma-separated."
        )
# Which proxies' X-Forwarded-For/-Proto headers are believed (uvicorn's forwarded_allow_ips): the reverse
# proxy's address, comma-separated, or "*" behind a proxy that is the only way in. None by default: any
# local process can reach a loopback port, and must not choose the address the refusals' record names.
WORKRAIL_MCP_FORWARDED_ALLOW_IPS = env.text("WORKRAIL_MCP_FORWARDED_ALLOW_IPS", "")

# --- Django core ----------------------------------------------------------------------------------
DEBUG = env.flag("WORKRAIL_DEBUG", False)
SECRET_KEY = read_or_create_secret(WORKRAIL_HOME / "secret_key")
# The dashboard is local-only. A fixed loopback list defeats DNS rebinding: a page on another
# origin that resolves its own name to 127.0.0.1 still sends its own Host header, which is refused.
ALLOWED_HOSTS = ["127.0.0.1", "localhost", "[::1]"]
DASHBOARD_PORT = env.integer("WORKRAIL_PORT", 8765, minimum=1024, maximum=65535)

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "ninja",  # its API docs page then loads swagger-ui from our own static files, not a CDN
    "workrail_site.apps.LoginThrottleConfig",  # django-axes: admin login throttling (AXES_* below)
    "workflows_app",
    "runs",
    "exports",
]

MIDDLEWARE = [
    # First: a HEAD answer is the GET answer every other middleware made, without its body.
    "workrail_site.middleware.HeadWithoutBodyMiddleware",
    "django.middleware.security.SecurityMiddleware",
    # Static files in every mode (DEBUG or not, waitress or the test server): see STATIC_URL below.
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.middleware.csp.ContentSecurityPolicyMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    # Whom a dashboard request acts for (the events it records say so); the API sets its caller itself.
    "workrail_site.middleware.DashboardActorMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    # A NUL in the path is a 404 on every backend (PostgreSQL would fail the id lookup with an error);
    # after the header middlewares, so its answer carries their headers too.
    "workrail_site.middleware.NulPathNotFoundMiddleware",
    # Last: it turns repeated failed admin logins into a lockout (see AXES_* below).
    "axes.middleware.AxesMiddleware",
]

# --- Security headers -----------------------------------------------------------------------------
# The dashboard shows text written by agents (notes, artifacts). Besides escaping and runs/readmodels/markdown.py,
# the browser is told to run no script but our own files: no inline <script>, no on*= attributes, no
# inline <style> and no loads from other origins. tests/workrail_site/test_security_headers.py checks the templates.
# The source keywords are written out rather than taken from django.utils.csp.CSP (the same strings):
# that module loads django.utils.html and the validators, and every `manage.py mcp` reads these
# settings before it can answer the MCP handshake.
csp_self, csp_none = "'self'", "'none'"
SECURE_CSP = {
    "default-src": [csp_self],
    "script-src": [csp_self],
    "style-src": [csp_self],
    "img-src": [csp_self, "data:"],
    "connect-src": [csp_self],
    "object-src": [csp_none],
    "base-uri": [csp_none],
    "frame-ancestors": [csp_none],
    "form-action": [csp_self],
}
X_FRAME_OPTIONS = "DENY"
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
SESSION_COOKIE_HTTPONLY = True
SESSION_COOKIE_SAMESITE = "Lax"
CSRF_COOKIE_SAMESITE = "Strict"

# Admin login throttling (django-axes): after AXES_FAILURE_LIMIT failed logins for one username, that
# username is refused for AXES_COOLOFF_TIME, whoever asks; the attempts are kept in the database, so
# every dashboard process sees them. By username, not address: everyone here comes from 127.0.0.1.
AUTHENTICATION_BACKENDS = ["axes.backends.AxesStandaloneBackend", "django.contrib.auth.backends.ModelBackend"]
AXES_FAILURE_LIMIT = 5
AXES_COOLOFF_TIME = timedelta(minutes=1)
AXES_LOCKOUT_PARAMETERS = ["username"]
AXES_RESET_ON_SUCCESS = True
AXES_LOCKOUT_TEMPLATE = "dashboard/locked_out.html"
AXES_VERBOSE = False
AXES_HTTP_RESPONSE_CODE = 429
# axes.W006 asks for the address in the lockout key; every request here comes from 127.0.0.1.
SILENCED_SYSTEM_CHECKS = ["axes.W006"]

ROOT_URLCONF = "workrail_site.urls"
WSGI_APPLICATION = "workrail_site.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [SITE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

# --- Database -------------------------------------------------------------------------------------
SQLITE_BUSY_TIMEOUT_MS = 20_000


def _database_from_url(url: str) -> dict[str, object]:
    try:
        config: dict[str, object] = dict(dj_database_url.parse(url))
    except ValueError as exc:
        raise ImproperlyConfigured(
            f"DATABASE_URL is malformed ({exc}). Use sqlite:////absolute/path.sqlite3 or "
            "postgres://user:password@host:5432/name."
        ) from None
    engine = str(config.get("ENGINE", ""))
    if engine not in {"django.db.backends.sqlite3", "django.db.backends.postgresql"}:
        raise ImproperlyConfigured(
            f"DATABASE_URL uses {engine or 'an unknown engine'}: only sqlite and postgres are supported."
        )
    return config


def _sqlite(config: dict[str, object]) -> dict[str, object]:
    # Several MCP processes and the dashboard share one file. WAL lets readers run beside a writer;
    # IMMEDIATE transactions take the write lock up front, so a writer waits (busy_timeout) instead of
    # failing with "database is locked" when it upgrades a read lock mid-transaction.
    options = dict(config.get("OPTIONS") or {})  # type: ignore[call-overload]
    options.setdefault("transaction_mode", "IMMEDIATE")
    options.setdefault("timeout", SQLITE_BUSY_TIMEOUT_MS / 1000)
    options.setdefault(
        "init_command",
        f"PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA busy_timeout={SQLITE_BUSY_TIMEOUT_MS};",
    )
    return {**config, "OPTIONS": options}


_database_url = env.text("DATABASE_URL", "")
# The URL as given, for the connect instructions (runs/dashboard/connect.py): an agent's server must use the same
# database as the dashboard. It may hold a password; "SECRET" in the name makes Django's debug page hide it.
DATABASE_URL_SECRET = _database_url
if _database_url:
    _default_db = _database_from_url(_database_url)
else:
    _default_db = {"ENGINE": "django.db.backends.sqlite3", "NAME": str(WORKRAIL_HOME / DATABASE_FILE)}
if _default_db["ENGINE"] == "django.db.backends.sqlite3":
    # Our SQLite backend creates the file 0600 at the first connection (SQLite gives -wal and -shm the
    # same mode), not 0644: see workrail_site/sqlite_backend.
    _default_db = {**_sqlite(_default_db), "ENGINE": "workrail_site.sqlite_backend"}
# Keep connections open between MCP tool calls (opening one re-runs the PRAGMAs above, which cost
# more than the call itself); a health check replaces any that went bad.
_default_db.update(CONN_MAX_AGE=600, CONN_HEALTH_CHECKS=True)
DATABASES = {"default": _default_db}
# Read by tests/settings.py (it becomes DATABASE_URL for the test run) and documented in the README; read
# here too, unused, so that having it set in the shell does not make reject_unknown() stop `make run`.
env.text("WORKRAIL_TEST_DATABASE_URL", "")
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# --- Internationalisation and static files ---------------------------------------------------------
LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True
STATIC_URL = "static/"
STATICFILES_DIRS = [SITE_DIR / "static"]
# WhiteNoise serves straight from the finders (app static dirs and STATICFILES_DIRS), so there is no
# collectstatic step: admin CSS, django-ninja's swagger-ui and static/ work from a fresh checkout.
WHITENOISE_USE_FINDERS = True

# --- Logging: stderr only. stdout belongs to the MCP protocol when `manage.py mcp` runs. ---------------
LOG_LEVEL = env.choice("WORKRAIL_LOG_LEVEL", "INFO", ["DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"])
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"}},
    "filters": {"one_line": {"()": "workrail_site.log_filters.OneLine"}},
    "handlers": {
        "stderr": {"class": "logging.StreamHandler", "stream": sys.stderr, "formatter": "plain"},
        "stderr_one_line": {
            "class": "logging.StreamHandler",
            "stream": sys.stderr,
            "formatter": "plain",
            "filters": ["one_line"],
        },
    },
    "root": {"handlers": ["stderr"], "level": LOG_LEVEL},
    "loggers": {
        "django": {"handlers": ["stderr"], "level": LOG_LEVEL, "propagate": False},
        # Refused requests (foreign Host, CSRF): one line each, no traceback.
        "django.security": {"handlers": ["stderr_one_line"], "level": LOG_LEVEL, "propagate": False},
    },
}

# The TypeScript WorkRail's variable names (WORKFLOW_GIT_REPOS, ...) are answered with their names here.
reject_original_names(os.environ)
env.reject_unknown()
# The settings the file gave (the environment did not): the connect page lists them, and an agent's
# server started with the same WORKRAIL_HOME reads them from the same file.
WORKRAIL_SETTINGS_FROM_FILE = sorted(env.from_file)
