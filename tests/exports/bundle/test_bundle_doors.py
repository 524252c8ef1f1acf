"""The dashboard's and the API's bundle doors: download, import form, POST /api/v1/bundles."""

from __future__ import annotations

import html
import json
import re

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client, override_settings

from runs.contract.errors import ErrorCode, WorkRailError
from runs.models import Event, EventKind, Session
from tests.exports.bundle.support import empty_the_store, session_with_everything

pytestmark = pytest.mark.django_db
API = "/api/v1"


def test_the_session_page_offers_the_bundle_and_the_list_links_the_import_form(client, service_catalog):
    built = session_with_everything()
    page = client.get(f"/sessions/{built.session_id}/").content.decode()
    assert f'href="/sessions/{built.session_id}/bundle.json"' in page
    # Named as the Import page asks for it, the file's kind, not "JSON" (friction65b 28).
    link = page.split(f'href="/sessions/{built.session_id}/bundle.json"')[1].split("</a>")[0]
    assert link == ' download><code class="nowrap">.workrail-bundle.json</code>'
    form = client.get("/sessions/import").content.decode()
    assert '<code class="nowrap">.workrail-bundle.json</code> file' in form
    listing = client.get("/sessions/").content.decode()
    assert 'id="import-link" href="/sessions/import"' in listing
    form = client.get("/sessions/import").content.decode()
    assert 'action="/sessions/import"' in form and 'enctype="multipart/form-data"' in form
    assert 'name="csrfmiddlewaretoken"' in form


def test_the_dashboard_downloads_a_bundle_and_imports_it(client, service_catalog):
    built = session_with_everything()
    download = client.get(f"/sessions/{built.session_id}/bundle.json")
    assert download.status_code == 200
    assert download["Content-Type"] == "application/json"
    assert download["Content-Disposition"] == 'attachment; filename="TICKET-4242.workrail-bundle.json"'  # its key
    data = download.content
    empty_the_store()

    answer = client.post("/sessions/import", {"bundle": SimpleUploadedFile("b.json", data)}, follow=True)

    assert answer.redirect_chain[-1][0] == f"/sessions/{built.session_id}/?imported=1"
    said = html.unescape(answer.content.decode())
    message = said.split('class="messages"')[1].split("</ul>")[0]
    assert "Imported TICKET-4242 (" in message and built.session_id not in message and "stateToken" not in message
    # In the dashboard's words (friction28a 10): steps, counted as the session's timeline counts them, not events.
    counted = re.search(r"Imported TICKET-4242 \((\d+) runs?, (\d+) steps?\)\.", message)
    assert counted is not None and "events" not in message, message
    timeline = said.split('id="timeline-title"')[1].split("</h2>")[0]
    assert f'<span class="fold-parts">{counted.group(2)} steps ' in timeline, timeline
    # No agent holds an imported run: the shown one is paused, and its own panel gives the message to carry on,
    # once, behind the copy button; no banner says it again above.
    assert 'id="resume-after-import"' not in said
    panel = said.split('class="state-panel state-paused"', 1)[1].split("</section>", 1)[0]
    # The card's status line says it is paused and since when; the panel what to do, its Details fold why (imported).
    status = said.split('id="run-status"', 1)[1].split("</p>", 1)[0]
    assert "badge state-paused" in status and "imported <time" in status and "no agent has it yet" not in status
    why = said.split('id="run-details"', 1)[1].split("</details></li>", 1)[0]  # the panel's why: the run's Details fold
    assert "This session was imported" in why and 'data-copy-target="paused-sentence-' in panel
    assert said.count('Resume the WorkRail workflow: call continue_workflow with stateToken "') == 1
    assert "Agent working on" not in said and "agent's move" not in said.lower()
    assert Event.objects.filter(kind=EventKind.SESSION_IMPORTED, data__via="dashboard").count() == 1


def test_the_import_form_needs_its_csrf_token(service_catalog):
    strict = Client(enforce_csrf_checks=True)
    answer = strict.post("/sessions/import", {"bundle": SimpleUploadedFile("b.json", b"{}")})
    assert answer.status_code == 403
    assert Session.objects.count() == 0


def test_a_bad_upload_shows_the_code_and_what_to_do(client, service_catalog):
    answer = client.post("/sessions/import", {"bundle": SimpleUploadedFile("b.json", b'{"kind": "nope"}')})
    assert answer.status_code == 400
    page = answer.content.decode()
    assert "BUNDLE_CORRUPT" in page and "Export the session again" in page
    assert client.post("/sessions/import", {}).status_code == 400
    with override_settings(WORKRAIL_BUNDLE_MAX_MB=1):
        big = client.post("/sessions/import", {"bundle": SimpleUploadedFile("b.json", b" " * (1024 * 1024 + 1))})
    assert big.status_code == 413 and "BUNDLE_TOO_LARGE" in big.content.decode()
    assert Session.objects.count() == 0


def test_the_api_downloads_and_imports_a_bundle(api, service_catalog):
    built = session_with_everything()
    download = api.get(f"{API}/sessions/{built.session_id}/bundle")
    assert download.status_code == 200
    data = download.content
    empty_the_store()

    answer = api.post(f"{API}/bundles", data=data, content_type="application/json")

    assert answer.status_code == 201, answer.content
    body = answer.json()
    assert body == {
        "sessionId": built.session_id,
        "keptIds": True,
        "runs": 3,
        "events": body["events"],
        "workflowsAdded": 3,
    }
    assert body["events"] == len(json.loads(data)["events"])


def test_the_api_refuses_bad_bundles_with_the_error_body(api, service_catalog):
    bad = api.post(f"{API}/bundles", data=b"[1, 2", content_type="application/json")
    assert bad.status_code == 400 and bad.json()["error"]["code"] == "BUNDLE_CORRUPT"
    with override_settings(WORKRAIL_BUNDLE_MAX_MB=1):
        big = api.post(f"{API}/bundles", data=b" " * (1024 * 1024 + 1), content_type="application/json")
    assert big.status_code == 413 and big.json()["error"]["code"] == "BUNDLE_TOO_LARGE"
    assert api.get(f"{API}/sessions/ses_nope/bundle").status_code == 404
    assert Session.objects.count() == 0


def test_the_api_bundle_doors_need_auth(client, service_catalog):
    built = session_with_everything()
    assert client.get(f"{API}/sessions/{built.session_id}/bundle").status_code == 401
    assert client.post(f"{API}/bundles", data=b"{}", content_type="application/json").status_code == 401


def test_a_copy_is_named_after_its_session_and_says_the_original_tokens_stay_with_the_original(client, service_catalog):
    built = session_with_everything()
    data = client.get(f"/sessions/{built.session_id}/bundle.json").content
    upload = {"bundle": SimpleUploadedFile("b.json", data), "copy": "1"}
    answer = client.post("/sessions/import", upload, follow=True)
    copy = Session.objects.exclude(public_id=built.session_id).get()
    assert copy.title == "TICKET-4242 (copy)" and copy.session_key == "TICKET-4242 (copy)"
    said = html.unescape(answer.content.decode())
    assert "Imported TICKET-4242 (copy), a copy with new ids" in said
    assert "a message copied from the original session still resumes the original, not this copy" in said
    assert '<span title="session ' + copy.public_id + '">TICKET-4242 (copy)</span>' in said  # the breadcrumb
    named = client.get(f"/sessions/{copy.public_id}/bundle.json")
    assert named["Content-Disposition"] == 'attachment; filename="TICKET-4242-copy.workrail-bundle.json"'


@pytest.mark.parametrize(
    ("key", "title", "stem"),
    [
        ("MR-42", "Review", "MR-42"),
        ("ticket:REL-7", "REL-7", "REL-7"),
        (None, "Fix the login / SSO bug", "Fix-the-login-SSO-bug"),
        (None, "../../etc", "etc"),
        (None, "", "ses_1234"),
        (None, "ééé", "ses_1234"),
    ],
)
def test_bundle_file_names_use_only_safe_characters(key, title, stem):
    from runs.readmodels.naming import file_stem

    assert file_stem(key, title, "ses_1234") == stem


def test_a_refusal_asks_for_the_file_again_only_when_the_page_reloaded(client, service_catalog, monkeypatch):
    """Without a script the form posts and the page reloads, which lets go of the chosen file: a refusal that the
    same file may pass next time (a busy store) asks for it again. Posted in place (drop.js's header) the file is
    still chosen, and nothing asks for it."""

    def busy(*args, **kwargs):
        raise WorkRailError(ErrorCode.STORE_BUSY, "The store is busy.", "Try again in a moment.")

    monkeypatch.setattr("exports.bundle_views.import_session_bundle", busy)
    bad = {"bundle": SimpleUploadedFile("b.json", b"{}")}
    reloaded = client.post("/sessions/import", bad).content.decode()
    assert "Choose the file again before you import" in reloaded and "data-file-refused" not in reloaded
    assert ">No file chosen yet<" in reloaded
    bad = {"bundle": SimpleUploadedFile("b.json", b"{}")}
    in_place = client.post("/sessions/import", bad, headers={"X-Import-In-Place": "1"})
    assert 'id="import-error"' in in_place.content.decode()
    assert "Choose the file again" not in in_place.content.decode()


@pytest.mark.parametrize("headers", [{}, {"X-Import-In-Place": "1"}])
def test_a_file_refused_for_what_it_is_is_let_go_and_another_asked_for(client, service_catalog, headers):
    """Not a bundle, damaged, too large or of another version: the same file cannot pass, so the page marks the
    refusal for drop.js to let go of the file and its line asks for another (friction63b 10), not "choose the file
    again"."""
    bad = {"bundle": SimpleUploadedFile("b.json", b"not a bundle")}
    page = client.post("/sessions/import", bad, headers=headers)
    said = page.content.decode()
    assert page.status_code == 400 and "data-file-refused" in said
    assert ">Choose another file</span>" in said and "Choose the file again" not in said


def test_an_import_posted_in_place_answers_with_its_sessions_address(client, service_catalog):
    """Not a redirect, which fetch would follow and spend the "Imported …" message on: the address to go to."""
    built = session_with_everything()
    data = client.get(f"/sessions/{built.session_id}/bundle.json").content
    empty_the_store()
    upload = {"bundle": SimpleUploadedFile("b.json", data)}
    answer = client.post("/sessions/import", upload, headers={"X-Import-In-Place": "1"})
    assert answer.status_code == 200 and answer.json() == {"location": f"/sessions/{built.session_id}/?imported=1"}
    shown = html.unescape(client.get(answer.json()["location"]).content.decode())
    assert "Imported TICKET-4242 (" in shown
