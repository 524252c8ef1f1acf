"""Importing a bundle whose session is here already (issue 20): refused with BUNDLE_ALREADY_IMPORTED,
naming and linking the existing session, at every door; an explicit copy imports it anyway."""

from __future__ import annotations

import io
import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command

from exports.bundles import export_session_bundle, import_session_bundle
from runs.contract.errors import ErrorCode, WorkRailError
from runs.models import Session
from tests.exports.bundle.support import empty_the_store
from tests.support.mcp_calls import start_workflow
from tests.support.sample_session import advance

pytestmark = pytest.mark.django_db
API = "/api/v1"


def a_session() -> str:
    started = start_workflow("wr.routine-focused_plan", context={"sessionKey": "DUP-1"})
    advance(started, "Planned.")
    return str(started["session"]["sessionId"])


def refusal(raw: bytes, **options: bool) -> WorkRailError:
    with pytest.raises(WorkRailError) as raised:
        import_session_bundle(raw, via="command", **options)
    assert raised.value.code == ErrorCode.BUNDLE_ALREADY_IMPORTED
    return raised.value


def test_the_session_a_bundle_was_exported_from_is_recognised_and_a_copy_is_asked_for(service_catalog):
    original = a_session()
    data = export_session_bundle(original, via="command")

    error = refusal(data)
    assert error.details == {"sessionId": original, "url": f"/sessions/{original}/", "sameBundle": False}
    assert Session.objects.count() == 1  # nothing was imported

    copy = import_session_bundle(data, via="command", as_copy=True)
    assert not copy.kept_ids and copy.session.public_id != original
    assert refusal(data).details["sessionId"] == original  # the original still answers, not the copy


def test_a_second_import_of_the_same_bundle_points_at_the_first(service_catalog):
    original = a_session()
    data = export_session_bundle(original, via="command")
    empty_the_store()  # as on another machine
    first = import_session_bundle(data, via="command")
    assert first.kept_ids
    error = refusal(data)
    assert error.details["sessionId"] == original and error.details["sameBundle"] is True
    assert "This very bundle was imported before" in error.message


def test_a_copy_imported_with_new_ids_is_recognised_by_its_recorded_origin(service_catalog):
    original = a_session()
    data = export_session_bundle(original, via="command")
    copy = import_session_bundle(data, via="command", as_copy=True)
    Session.objects.filter(public_id=original).update(public_id="ses_00000000000000aa")  # the original gone
    error = refusal(data)
    assert error.details["sessionId"] == copy.session.public_id and error.details["sameBundle"] is True


def test_the_api_answers_409_with_the_existing_session_and_imports_a_copy_on_request(api, service_catalog):
    original = a_session()
    data = export_session_bundle(original, via="api")
    refused = api.post(f"{API}/bundles", data=data, content_type="application/json")
    assert refused.status_code == 409
    error = refused.json()["error"]
    assert error["code"] == "BUNDLE_ALREADY_IMPORTED" and error["details"]["sessionId"] == original
    copied = api.post(f"{API}/bundles?copy=true", data=data, content_type="application/json")
    assert copied.status_code == 201 and copied.json()["keptIds"] is False


def test_the_command_refuses_and_imports_a_copy_with_copy(service_catalog, tmp_path):
    original = a_session()
    path = tmp_path / "b.json"
    path.write_bytes(export_session_bundle(original, via="command"))
    with pytest.raises(CommandError, match=rf"\[BUNDLE_ALREADY_IMPORTED\].*{original}.*--copy"):
        call_command("import_bundle", str(path), stdout=io.StringIO(), stderr=io.StringIO())
    out = io.StringIO()
    call_command("import_bundle", str(path), "--copy", stdout=out, stderr=io.StringIO())
    assert "new ids" in out.getvalue() and Session.objects.count() == 2


def test_the_form_shows_the_refusal_inline_with_a_link_and_the_copy_option(client, service_catalog):
    original = a_session()
    data = export_session_bundle(original, via="dashboard")
    answer = client.post("/sessions/import", {"bundle": SimpleUploadedFile("b.json", data)})
    assert answer.status_code == 409
    page = answer.content.decode()
    form = page[page.index('<form class="card import-form"') : page.index("</form>")]
    assert "BUNDLE_ALREADY_IMPORTED" in form and f'href="/sessions/{original}/"' in form
    assert 'name="copy"' in form and "import it as a separate copy" in form
    copied = client.post("/sessions/import", {"bundle": SimpleUploadedFile("b.json", data), "copy": "1"})
    assert copied.status_code == 302 and copied["Location"] != f"/sessions/{original}/"
    assert Session.objects.count() == 2


def test_a_tampered_upload_is_refused_on_the_form_not_a_bare_error_page(client, service_catalog):
    original = a_session()
    document = json.loads(export_session_bundle(original, via="dashboard"))
    document["events"][0]["at"] = "2001-01-01T00:00:00.000000Z"  # edited: no longer matches its digest
    answer = client.post("/sessions/import", {"bundle": SimpleUploadedFile("b.json", json.dumps(document).encode())})
    assert answer.status_code == 400
    page = answer.content.decode()
    form = page[page.index('<form class="card import-form"') : page.index("</form>")]
    assert "BUNDLE_CORRUPT" in form and "What to do:" in form and 'type="file"' in form
    assert client.get("/sessions/import").status_code == 200  # the form has a page of its own


def test_an_imported_session_keeps_its_recorded_times_and_sorts_by_them(client, service_catalog, monkeypatch):
    from datetime import UTC, datetime

    from django.utils import timezone

    then = datetime(2024, 3, 5, 9, 30, tzinfo=UTC)
    with monkeypatch.context() as past:
        past.setattr(timezone, "now", lambda: then)
        original = a_session()
    data = export_session_bundle(original, via="command")
    empty_the_store()
    newer = start_workflow("wr.routine-focused_plan", context={"sessionKey": "NEWER-1"})["session"]["sessionId"]

    imported = import_session_bundle(data, via="command").session
    assert imported.created_at == then and imported.updated_at == then  # not the import's time
    listed = client.get("/sessions/?sort=-activity").content.decode()
    assert listed.index(f"/sessions/{newer}/") < listed.index(f"/sessions/{original}/")
    assert "2024-03-05" in listed
