"""Without Pango (the system library WeasyPrint needs), a PDF report answers PDF_UNAVAILABLE naming what
to install, and the Markdown report and the dashboard work as before (issue 30). The missing library is
simulated: the probe's import fails the way WeasyPrint's does when it cannot load libpango."""

from __future__ import annotations

import re

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from exports.reports import pdf_support
from tests.exports.reports.support import small_complete_session

PANGO_MISSING = "raise OSError(\"cannot load library 'libpango-1.0-0': cannot open shared object file\")"


@pytest.fixture
def without_pango(monkeypatch):
    monkeypatch.setattr(pdf_support, "PROBE", PANGO_MISSING)
    pdf_support.problem.cache_clear()
    yield
    pdf_support.problem.cache_clear()


@pytest.mark.django_db
def test_a_pdf_without_pango_names_what_to_install_and_the_markdown_report_still_works(
    service_catalog, client, bearer, without_pango
):
    small = small_complete_session()

    page = client.get(f"/sessions/{small.session_id}/report.pdf")
    assert page.status_code == 503
    body = page.content.decode()
    assert "PDF_UNAVAILABLE" in body and "libpango-1.0-0" in body and "brew install pango" in body
    assert client.get(f"/sessions/{small.session_id}/report.md").status_code == 200
    assert client.get(f"/sessions/{small.session_id}/").status_code == 200

    answer = client.get(f"/api/v1/sessions/{small.session_id}/report?format=pdf", **bearer)
    assert answer.status_code == 503
    error = answer.json()["error"]
    assert error["code"] == "PDF_UNAVAILABLE"
    debian = error["details"]["install"]["Debian or Ubuntu"]
    assert debian.endswith("libpango-1.0-0 libpangoft2-1.0-0 libharfbuzz-subset0")
    assert error["details"]["markdownReport"] == f"/api/v1/sessions/{small.session_id}/report?format=md"
    assert "cannot load library 'libpango-1.0-0'" in error["details"]["problem"]
    assert client.get(f"/api/v1/sessions/{small.session_id}/report?format=md", **bearer).status_code == 200

    with pytest.raises(CommandError, match=re.escape("apt-get install libpango-1.0-0")):
        call_command("export_report", small.session_id, "--format", "pdf", "-o", "-")


@pytest.mark.pdf
def test_with_weasyprint_loadable_the_probe_finds_no_problem():
    pdf_support.problem.cache_clear()
    assert pdf_support.problem() is None
