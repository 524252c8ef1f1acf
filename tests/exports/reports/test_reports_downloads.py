"""Report downloads: from the dashboard's session page, and GET /api/v1/sessions/{id}/report."""

from __future__ import annotations

import pytest

from runs.models import Event, EventKind
from tests.exports.reports.support import small_complete_session

pytestmark = pytest.mark.django_db

MD = "text/markdown; charset=utf-8"
PDF = "application/pdf"
SESSION_FILES = [("md", MD, b"# Session report: "), ("pdf", PDF, b"%PDF-")]
RUN_FILES = [("md", MD, b"# Run report: "), ("pdf", PDF, b"%PDF-")]


def recorded_via(session_id: str) -> list[tuple[str, str, str | None]]:
    rows = Event.objects.filter(session__public_id=session_id, kind=EventKind.SESSION_EXPORTED).order_by("seq")
    return [(d["via"], d["format"], d["runId"]) for d in rows.values_list("data", flat=True)]


# --- the dashboard -----------------------------------------------------------------------------------


def test_the_session_page_offers_the_downloads(service_catalog, client):
    small = small_complete_session()
    page = client.get(f"/sessions/{small.session_id}/").content.decode()
    assert f'href="/sessions/{small.session_id}/report.md"' in page
    assert f'href="/sessions/{small.session_id}/report.pdf"' in page
    # One run: its report is the session report, offered once, not also as "Report of the shown run"
    # (friction61a 5); the run's own report stays at its address.
    assert "?run=" not in page and "Report of the shown run" not in page


@pytest.mark.parametrize(
    ("suffix", "content_type", "magic"), [("md", MD, b"# Session report: "), ("pdf", PDF, b"%PDF-")]
)
def test_the_dashboard_downloads_a_session_report(service_catalog, client, suffix, content_type, magic):
    small = small_complete_session()
    response = client.get(f"/sessions/{small.session_id}/report.{suffix}")
    assert response.status_code == 200
    assert response["Content-Type"] == content_type
    assert response["Content-Disposition"] == f'attachment; filename="REPORT-1-report.{suffix}"'
    assert response.content.startswith(magic)
    assert recorded_via(small.session_id) == [("dashboard", "markdown" if suffix == "md" else "pdf", None)]


def test_the_dashboard_downloads_a_run_report(service_catalog, client):
    small = small_complete_session()
    response = client.get(f"/sessions/{small.session_id}/report.md?run={small.run_id}")
    assert response.status_code == 200
    assert response["Content-Disposition"] == 'attachment; filename="REPORT-1-run-1-report.md"'
    assert response.content.startswith(b"# Run report: ")
    assert recorded_via(small.session_id) == [("dashboard", "markdown", small.run_id)]


def test_the_dashboard_answers_unknown_ids_with_its_error_page(service_catalog, client):
    small = small_complete_session()
    missing = client.get("/sessions/ses_0000000000000000/report.pdf")
    assert missing.status_code == 404 and b"NOT_FOUND" in missing.content
    wrong_run = client.get(f"/sessions/{small.session_id}/report.md?run=run_0000000000000000")
    assert wrong_run.status_code == 404 and b"run_0000000000000000" in wrong_run.content
    assert client.post(f"/sessions/{small.session_id}/report.md").status_code == 405
    assert recorded_via(small.session_id) == []


# --- the API -----------------------------------------------------------------------------------------


def test_the_api_needs_credentials(service_catalog, client):
    small = small_complete_session()
    response = client.get(f"/api/v1/sessions/{small.session_id}/report?format=pdf")
    assert response.status_code == 401
    assert response.json()["error"]["code"] == "UNAUTHENTICATED"
    assert recorded_via(small.session_id) == []


@pytest.mark.parametrize(
    ("report_format", "content_type", "magic"), [("md", MD, b"# Run report: "), ("pdf", PDF, b"%PDF-")]
)
def test_the_api_downloads_a_report(service_catalog, client, bearer, report_format, content_type, magic):
    small = small_complete_session()
    response = client.get(
        f"/api/v1/sessions/{small.session_id}/report", {"format": report_format, "run": small.run_id}, **bearer
    )
    assert response.status_code == 200
    assert response["Content-Type"] == content_type
    assert response["Content-Disposition"] == f'attachment; filename="REPORT-1-run-1-report.{report_format}"'
    assert response.content.startswith(magic)
    assert recorded_via(small.session_id) == [("api", "markdown" if report_format == "md" else "pdf", small.run_id)]


def test_the_api_defaults_to_markdown_of_the_whole_session(service_catalog, client, bearer):
    small = small_complete_session()
    response = client.get(f"/api/v1/sessions/{small.session_id}/report", **bearer)
    assert response.status_code == 200 and response["Content-Type"] == MD
    assert response.content.startswith(b"# Session report: ")


def test_the_api_answers_errors_with_its_error_body(service_catalog, client, bearer):
    small = small_complete_session()
    missing = client.get("/api/v1/sessions/ses_0000000000000000/report", **bearer)
    assert missing.status_code == 404 and missing.json()["error"]["code"] == "NOT_FOUND"
    bad_format = client.get(f"/api/v1/sessions/{small.session_id}/report?format=docx", **bearer)
    assert bad_format.status_code == 400 and bad_format.json()["error"]["code"] == "INVALID_INPUT"
    assert bad_format.json()["error"]["details"]["parameter"] == "format"
    wrong_run = client.get(f"/api/v1/sessions/{small.session_id}/report?run=run_0000000000000000", **bearer)
    assert wrong_run.status_code == 404
    assert recorded_via(small.session_id) == []


def test_the_openapi_document_describes_the_file_answer(service_catalog, client, bearer):
    document = client.get("/api/v1/openapi.json", **bearer).json()
    answer = document["paths"]["/api/v1/sessions/{sessionId}/report"]["get"]["responses"]["200"]
    assert set(answer["content"]) == {"text/markdown", "application/pdf"}


def test_reports_of_a_session_are_rate_limited_on_their_own(service_catalog, client, bearer, settings):
    small = small_complete_session()
    settings.WORKRAIL_RATE_LIMIT_BURST = 2
    settings.WORKRAIL_RATE_LIMIT_PER_MINUTE = 1
    url = f"/api/v1/sessions/{small.session_id}/report"
    assert [client.get(url, **bearer).status_code for _ in range(2)] == [200, 200]
    refused = client.get(url, **bearer)
    assert refused.status_code == 429 and refused.json()["error"]["code"] == "RATE_LIMITED"
    assert client.get(f"/sessions/{small.session_id}/report.md").status_code == 429
    assert len(recorded_via(small.session_id)) == 2  # a refused report is not recorded
