"""export_session and import_bundle as a person runs them: files, standard streams, counts, errors."""

from __future__ import annotations

import io
import sys

import pytest
from django.core.management import CommandError, call_command

from runs.models import Event, EventKind, Session
from tests.exports.bundle.support import empty_the_store, session_with_everything

pytestmark = pytest.mark.django_db


def test_it_exports_to_a_file_and_imports_it_back(service_catalog, tmp_path, capsys):
    built = session_with_everything()
    target = tmp_path / "session.bundle.json"
    call_command("export_session", built.session_id, "--output", str(target))
    assert target.read_bytes().startswith(b'{"bundleSchemaVersion":1,')
    assert not (tmp_path / "session.bundle.json.partial").exists()
    empty_the_store()

    out = io.StringIO()
    call_command("import_bundle", str(target), stdout=out)

    assert f"Imported session {built.session_id} with its ids kept: 3 run(s)" in out.getvalue()
    assert Session.objects.get().public_id == built.session_id


def test_it_streams_through_standard_output_and_input(service_catalog, monkeypatch, capsysbinary):
    built = session_with_everything()
    call_command("export_session", built.session_id, "--output", "-")
    data = capsysbinary.readouterr().out
    assert data.endswith(b"}\n") and b'"kind":"workrail.session-bundle"' in data
    empty_the_store()
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
    call_command("import_bundle", "-", stdout=io.StringIO())
    assert Event.objects.filter(kind=EventKind.SESSION_IMPORTED, data__via="command").count() == 1


def test_a_damaged_file_fails_with_the_code_and_what_to_do(service_catalog, tmp_path):
    built = session_with_everything()
    target = tmp_path / "b.json"
    call_command("export_session", built.session_id, "--output", str(target))
    target.write_bytes(target.read_bytes().replace(b"Looked at the diff", b"Looked at the dig", 1))
    sessions = Session.objects.count()
    with pytest.raises(CommandError, match=r"\[BUNDLE_CORRUPT\].*Export the session again"):
        call_command("import_bundle", str(target))
    assert Session.objects.count() == sessions


def test_unknown_ids_and_unreadable_files_are_command_errors(service_catalog, tmp_path):
    with pytest.raises(CommandError, match="No session has the id"):
        call_command("export_session", "ses_nope", "--output", str(tmp_path / "x.json"))
    with pytest.raises(CommandError, match="Could not read"):
        call_command("import_bundle", str(tmp_path / "missing.json"))
    with pytest.raises(CommandError, match="a directory"):
        call_command("import_bundle", str(tmp_path))
