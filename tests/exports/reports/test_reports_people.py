"""Both reports say who did what: a summary line naming everyone who worked on the session, who started it,
and who made each step; a session made entirely on this machine reads as before."""

from __future__ import annotations

import html
import re
import shutil
import subprocess

import pytest

from exports.reports import html_report, markdown_report
from exports.reports.data import build_report
from exports.reports.produce import produce
from tests.support.mcp_calls import ack, start_workflow
from tests.support.team_session import team_sessions

pytestmark = pytest.mark.django_db


def flat(text: str) -> str:
    return html.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", text)))


def test_the_markdown_report_says_who_made_each_step(service_catalog):
    team = team_sessions()
    text = markdown_report.render(build_report(team.alice_session))
    assert "## Summary\n\nPeople: alice, bob\n" in text
    assert ", by alice |" in text  # the header's Started row
    assert "· by alice's agent (over HTTP)" in text
    assert "· by alice (HTTP API)" in text  # her checkpoint, on the branch it made


def test_the_html_behind_the_pdf_says_who_made_each_step(service_catalog):
    team = team_sessions()
    text = flat(html_report.render(build_report(team.alice_session)))
    assert "People: alice, bob" in text
    assert "started by alice" in text
    assert "by alice's agent (over HTTP)" in text


@pytest.mark.pdf
@pytest.mark.skipif(not shutil.which("pdftotext"), reason="poppler-utils (pdftotext) is not installed")
def test_the_pdf_names_the_people(service_catalog, tmp_path):
    team = team_sessions()
    path = tmp_path / "report.pdf"
    path.write_bytes(produce(team.local_session, "pdf", "command").data)
    text = flat(subprocess.run(["pdftotext", str(path), "-"], capture_output=True, text=True, check=True).stdout)
    assert "People: bob" in text and "by bob's agent (over HTTP)" in text


def test_a_session_made_on_this_machine_names_nobody(service_catalog):
    start = start_workflow("wr.routine-focused_plan")
    ack(start)
    report = build_report(start["session"]["sessionId"])
    text = markdown_report.render(report)
    assert "People:" not in text and "· by " not in text and ", by " not in text
    assert "People:" not in flat(html_report.render(report))
