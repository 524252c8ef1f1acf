"""The dashboard's HTTP hardening (workrail_site/settings.py): loopback Host only, a CSP without inline
script, framing and sniffing off, CSRF on, static files from WhiteNoise in every mode, and templates
that stay within the CSP."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.conf import settings as django_settings
from django.contrib.auth import get_user_model
from django.test import Client

from tests.support.paths import REPO

EXPECTED_CSP = {
    "default-src": ["'self'"],
    "script-src": ["'self'"],
    "style-src": ["'self'"],
    "img-src": ["'self'", "data:"],
    "connect-src": ["'self'"],
    "object-src": ["'none'"],
    "base-uri": ["'none'"],
    "frame-ancestors": ["'none'"],
    "form-action": ["'self'"],
}


def csp_directives(header: str) -> dict[str, list[str]]:
    directives: dict[str, list[str]] = {}
    for part in header.split(";"):
        name, *values = part.split()
        directives[name] = values
    return directives


@pytest.fixture
def home(db, service_catalog):
    """GET / (the catalog pointed at empty temporary directories)."""
    return Client().get("/")


# --- Host header ---------------------------------------------------------------------------------


@pytest.mark.parametrize("host", ["evil.example", "127.0.0.1.evil.example", "localhost.evil.example", "10.0.0.1"])
def test_a_foreign_host_header_is_refused(db, service_catalog, host):
    # DNS rebinding: another site whose name resolves to 127.0.0.1 still sends its own Host.
    assert Client().get("/", HTTP_HOST=host).status_code == 400


@pytest.mark.parametrize("host", ["evil.example", 'lM0o]X8X4"z#.H'])
def test_the_api_refuses_a_foreign_or_malformed_host_as_json_with_a_code(db, host):
    response = Client().get("/api/v1/workflows", HTTP_HOST=host)
    assert response.status_code == 400
    assert response["Content-Type"].startswith("application/json")
    error = response.json()["error"]
    assert error["code"] == "ORIGIN_REFUSED"
    assert error["details"]["host"] == host
    assert "127.0.0.1" in error["suggestion"]


def test_the_dashboard_refuses_a_foreign_host_with_its_error_page(db, service_catalog):
    response = Client().get("/sessions/", HTTP_HOST="evil.example")
    assert response.status_code == 400
    page = response.content.decode()
    assert "ORIGIN_REFUSED" in page and "evil.example" in page and "127.0.0.1" in page


@pytest.mark.parametrize("host", ["127.0.0.1:8765", "localhost:8765", "[::1]:8765"])
def test_loopback_host_headers_are_served(db, service_catalog, host):
    assert Client().get("/", HTTP_HOST=host).status_code == 200


def test_allowed_hosts_is_loopback_only():
    assert set(django_settings.ALLOWED_HOSTS) <= {"127.0.0.1", "localhost", "[::1]", "testserver"}
    assert "*" not in django_settings.ALLOWED_HOSTS


# --- Headers --------------------------------------------------------------------------------------


def test_pages_carry_the_csp_without_inline_or_eval_script(home):
    assert home.status_code == 200
    directives = csp_directives(home.headers["Content-Security-Policy"])
    assert directives == EXPECTED_CSP
    for directive in ("script-src", "default-src", "style-src"):
        assert "'unsafe-inline'" not in directives[directive]
        assert "'unsafe-eval'" not in directives[directive]
    assert "Content-Security-Policy-Report-Only" not in home.headers


def test_pages_cannot_be_framed_or_sniffed_and_send_no_referrer_elsewhere(home):
    assert home.headers["X-Frame-Options"] == "DENY"
    assert home.headers["X-Content-Type-Options"] == "nosniff"
    assert home.headers["Referrer-Policy"] == "same-origin"
    assert home.headers["Cross-Origin-Opener-Policy"] == "same-origin"


def test_the_admin_login_page_carries_the_same_headers(db):
    response = Client().get("/admin/login/")
    assert response.status_code == 200
    assert csp_directives(response.headers["Content-Security-Policy"]) == EXPECTED_CSP
    assert response.headers["X-Frame-Options"] == "DENY"


def test_error_pages_carry_the_csp_too(db):
    response = Client().get("/no-such-page/")
    assert response.status_code == 404
    assert csp_directives(response.headers["Content-Security-Policy"]) == EXPECTED_CSP


# --- Static files ---------------------------------------------------------------------------------


@pytest.mark.parametrize("debug", [False, True])
def test_static_files_are_served_in_every_mode_without_collectstatic(settings, debug):
    settings.DEBUG = debug
    client = Client()  # its handler (and WhiteNoise) is built on the first request, with this DEBUG
    response = client.get("/static/admin/css/base.css")
    assert response.status_code == 200
    assert response.headers["Content-Type"].startswith("text/css")
    assert response.headers["X-Content-Type-Options"] == "nosniff"
    assert b"".join(response.streaming_content if response.streaming else [response.content])
    assert client.get("/static/ninja/swagger-ui-bundle.js").status_code == 200  # "ninja" is installed
    assert client.get("/static/admin/css/no-such-file.css").status_code == 404


def test_whitenoise_serves_from_the_finders():
    # The product's own order (the test settings put their request counter first: tests/support/in_flight.py).
    middleware = [name for name in django_settings.MIDDLEWARE if not name.startswith("tests.")]
    # right after the security headers; only the HEAD body stripper wraps them (it must see every answer)
    assert middleware.index("whitenoise.middleware.WhiteNoiseMiddleware") == 2
    assert middleware[:2] == [
        "workrail_site.middleware.HeadWithoutBodyMiddleware",
        "django.middleware.security.SecurityMiddleware",
    ]
    assert django_settings.WHITENOISE_USE_FINDERS is True
    assert Path(django_settings.STATICFILES_DIRS[0]) == REPO / "workrail_site" / "static"


# --- CSRF and cookies -----------------------------------------------------------------------------


def test_csrf_is_enforced(db):
    get_user_model().objects.create_superuser("admin", "admin@example.com", "pw-for-tests")
    client = Client(enforce_csrf_checks=True)
    response = client.post("/admin/login/", {"username": "admin", "password": "pw-for-tests"})
    assert response.status_code == 403
    assert "_auth_user_id" not in client.session


def test_cookies_are_same_site_and_the_session_cookie_is_http_only(db):
    get_user_model().objects.create_superuser("admin", "admin@example.com", "pw-for-tests")
    client = Client(enforce_csrf_checks=True)
    page = client.get("/admin/login/")
    csrf = page.cookies["csrftoken"]
    assert csrf["samesite"] == "Strict"
    response = client.post(
        "/admin/login/?next=/admin/",
        {"username": "admin", "password": "pw-for-tests", "csrfmiddlewaretoken": csrf.value},
    )
    assert response.status_code == 302
    session = response.cookies["sessionid"]
    assert session["samesite"] == "Lax"
    assert session["httponly"] is True


# --- Templates stay within the CSP ----------------------------------------------------------------

TEMPLATE_DIRS = [
    REPO / "workrail_site" / "templates",
    *(REPO / app / "templates" for app in ("runs", "workflows_app", "exports")),
]
SCRIPT_OPEN = re.compile(r"<script\b([^>]*)>", re.IGNORECASE)
SCRIPT_TYPE = re.compile(r"""\btype\s*=\s*["']?([^"'\s>]+)""", re.IGNORECASE)
# Types a browser runs as script (https://html.spec.whatwg.org/#javascript-mime-type, plus module).
SCRIPT_TYPES = {"", "module", "text/javascript", "application/javascript", "text/ecmascript", "application/ecmascript"}
SCRIPT_TYPES |= {"text/jscript", "text/livescript", "application/x-javascript", "text/x-javascript"}
EVENT_ATTRIBUTE = re.compile(r"<[a-zA-Z][^>]*?\son[a-z]+\s*=", re.IGNORECASE)
STYLE_ATTRIBUTE = re.compile(r"<[a-zA-Z][^>]*?\sstyle\s*=", re.IGNORECASE)


def template_files() -> list[Path]:
    return sorted(path for base in TEMPLATE_DIRS if base.is_dir() for path in base.rglob("*.html"))


def template_params() -> list[object]:
    return [pytest.param(path, id=str(path.relative_to(REPO))) for path in template_files()]


def inline_script_problems(source: str) -> list[str]:
    problems = []
    for match in SCRIPT_OPEN.finditer(source):
        attributes = match.group(1)
        kind = SCRIPT_TYPE.search(attributes)
        script_type = kind.group(1).lower() if kind else ""
        if script_type in SCRIPT_TYPES and not re.search(r"\ssrc\s*=", " " + attributes, re.IGNORECASE):
            problems.append(f"inline <script> (use a file under static/ and src=): {match.group(0)}")
    problems += [
        f"event-handler attribute (use addEventListener): {m.group(0)}" for m in EVENT_ATTRIBUTE.finditer(source)
    ]
    problems += [f"javascript: URL at offset {m.start()}" for m in re.finditer("javascript:", source, re.IGNORECASE)]
    return problems


def inline_style_problems(source: str) -> list[str]:
    problems = [f"inline <style> block at offset {m.start()}" for m in re.finditer(r"<style\b", source, re.I)]
    problems += [f"style= attribute (use a class): {m.group(0)}" for m in STYLE_ATTRIBUTE.finditer(source)]
    return problems


def test_the_template_lint_catches_what_the_csp_blocks():
    assert inline_script_problems("<script>alert(1)</script>")
    assert inline_script_problems('<script type="module">import x from "./x.js"</script>')
    assert inline_script_problems("<SCRIPT type='text/javascript'>x()</SCRIPT>")
    assert inline_script_problems('<button onclick="go()">go</button>')
    assert inline_script_problems('<a href="JavaScript:void(0)">x</a>')
    assert inline_style_problems("<style>p{}</style>") and inline_style_problems('<p style="color:red">')
    assert not inline_script_problems('<script src="{% static "dashboard/app.js" %}" defer></script>')
    assert not inline_script_problems('<script type="application/json" id="data">{"a": 1}</script>')
    assert not inline_script_problems('<p class="online">monitor <a href="/x">x</a></p>')


def test_there_are_templates_to_check():
    assert template_files(), f"no templates under {[str(d) for d in TEMPLATE_DIRS]}"


@pytest.mark.parametrize("path", template_params())
def test_templates_have_no_inline_script(path):
    assert inline_script_problems(path.read_text(encoding="utf-8")) == []


@pytest.mark.parametrize("path", template_params())
def test_templates_have_no_inline_style(path):
    # style-src 'self' blocks <style> blocks and style= attributes: put CSS in static/dashboard/.
    assert inline_style_problems(path.read_text(encoding="utf-8")) == []


def test_a_refused_host_is_logged_in_one_line_without_a_traceback(client):
    import logging
    import sys

    from workrail_site.log_filters import OneLine

    logger = logging.getLogger("django.security")
    assert not logger.propagate  # the root's handler would print the traceback
    [handler] = [h for h in logger.handlers if any(isinstance(f, OneLine) for f in h.filters)]
    record = logging.LogRecord("django.security.DisallowedHost", logging.ERROR, "", 0, "Invalid host", None, None)
    try:
        raise ValueError("boom")
    except ValueError:
        record.exc_info = sys.exc_info()
    assert handler.filter(record)
    assert handler.format(record).count("\n") == 0  # the message, no traceback under it
    assert client.get("/", HTTP_HOST="evil.example").status_code == 400
