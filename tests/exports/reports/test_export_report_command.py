"""`manage.py export_report SESSION_ID [--run RUN_ID] --format md|pdf --output FILE|-`."""

from __future__ import annotations

import hashlib
import io
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from runs.models import Event, EventKind, Session
from tests.exports.reports.support import small_complete_session

pytestmark = pytest.mark.django_db


def export(*args: str) -> tuple[bytes, str]:
    """Runs the command; returns what it wrote to stdout (as bytes) and to stderr."""
    out = io.TextIOWrapper(io.BytesIO(), encoding="utf-8")
    err = io.StringIO()
    call_command("export_report", *args, stdout=out, stderr=err)
    out.flush()
    buffer = out.buffer
    assert isinstance(buffer, io.BytesIO)
    return buffer.getvalue(), err.getvalue()


def exports_of(session_id: str) -> list[dict]:
    return list(
        Event.objects.filter(session__public_id=session_id, kind=EventKind.SESSION_EXPORTED)
        .order_by("seq")
        .values_list("data", flat=True)
    )


@pytest.mark.parametrize(("report_format", "magic"), [("md", b"# Session report: "), ("pdf", b"%PDF-")])
def test_a_report_is_written_to_a_file(service_catalog, tmp_path: Path, report_format, magic):
    small = small_complete_session()
    target = tmp_path / f"report.{report_format}"
    out, err = export(small.session_id, "--format", report_format, "--output", str(target))
    data = target.read_bytes()
    assert data.startswith(magic)
    assert out == b""
    assert f"1 run(s), 4 step(s), {len(data):,} bytes" in err
    assert not list(tmp_path.glob("*.partial"))


@pytest.mark.parametrize(("report_format", "magic"), [("md", b"# Session report: "), ("pdf", b"%PDF-")])
def test_a_report_is_written_to_standard_output(service_catalog, report_format, magic):
    small = small_complete_session()
    out, err = export(small.session_id, "--format", report_format, "--output", "-")
    assert out.startswith(magic)
    assert "to standard output" in err
    if report_format == "pdf":
        assert out.rstrip().endswith(b"%%EOF")  # the bytes, whole, not text
    else:
        assert out.decode("utf-8").endswith("\n")


def test_a_run_report(service_catalog):
    small = small_complete_session()
    out, err = export(small.session_id, "--run", small.run_id, "--format", "md", "--output", "-")
    assert out.startswith(b"# Run report: ")
    assert f"run {small.run_id} of session {small.session_id}" in err


def test_an_export_is_recorded_but_is_not_activity(service_catalog):
    small = small_complete_session()
    before = Session.objects.get(public_id=small.session_id)
    out, _ = export(small.session_id, "--format", "md", "--output", "-")
    pdf, _ = export(small.session_id, "--run", small.run_id, "--format", "pdf", "--output", "-")
    after = Session.objects.get(public_id=small.session_id)
    assert after.updated_at == before.updated_at  # the sessions list and retention see no activity
    assert after.last_seq == before.last_seq + 2
    assert exports_of(small.session_id) == [
        {"format": "markdown", "runId": None, "digest": "sha256:" + hashlib.sha256(out).hexdigest(), "via": "command"},
        {
            "format": "pdf",
            "runId": small.run_id,
            "digest": "sha256:" + hashlib.sha256(pdf).hexdigest(),
            "via": "command",
        },
    ]


def test_the_record_does_not_change_the_next_report(service_catalog):
    small = small_complete_session()
    first, _ = export(small.session_id, "--format", "md", "--output", "-")
    second, _ = export(small.session_id, "--format", "md", "--output", "-")
    assert first == second


def test_an_unknown_session_says_where_to_find_ids(service_catalog):
    with pytest.raises(CommandError) as refused:
        export("ses_0000000000000000", "--format", "md", "--output", "-")
    assert "No session has the id 'ses_0000000000000000'" in str(refused.value)
    assert "/sessions/" in str(refused.value)


def test_an_unknown_run_names_the_sessions_runs(service_catalog):
    small = small_complete_session()
    with pytest.raises(CommandError) as refused:
        export(small.session_id, "--run", "run_0000000000000000", "--format", "pdf", "--output", "-")
    assert "run_0000000000000000" in str(refused.value) and small.run_id in str(refused.value)
    assert exports_of(small.session_id) == []


@pytest.mark.subprocess
def test_the_command_exits_non_zero_with_a_message(service_catalog, tmp_path, migrated_home):
    from tests.support.processes import run_manage

    result = run_manage(tmp_path, "export_report", "ses_missing", "--format", "md", "--output", "-")
    assert result.returncode != 0
    assert "No session has the id 'ses_missing'" in result.stderr
    assert result.stdout == ""
