"""Dashboard doors for bundles: download a session's bundle, and import one from a file upload.

Both go through exports/bundles.py, as the commands and the API do. The import form posts with its
CSRF token like every dashboard form; an error shows the error page with the code and what to do.
"""

from __future__ import annotations

from django.contrib import messages
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from exports.bundle.reading import too_large
from exports.bundles import export_session_bundle, import_session_bundle, max_bundle_bytes
from exports.views import MAX_ID_CHARS, download
from runs.contract.errors import ErrorCode, WorkRailError
from runs.dashboard.errors import shows_errors


def bundle_filename(session_id: str) -> str:
    return f"{session_id[:MAX_ID_CHARS]}.workrail-bundle.json"


def bundle_attachment(session_id: str, data: bytes) -> HttpResponse:
    return download(data, "application/json", bundle_filename(session_id))


@require_GET
@shows_errors
def session_bundle(request: HttpRequest, session_id: str) -> HttpResponse:
    return bundle_attachment(session_id, export_session_bundle(session_id[:MAX_ID_CHARS], via="dashboard"))


@require_POST
@shows_errors
def import_bundle(request: HttpRequest) -> HttpResponse:
    upload = request.FILES.get("bundle")
    if upload is None:
        raise WorkRailError(
            ErrorCode.INVALID_INPUT,
            "No bundle file was sent.",
            "Choose a .workrail-bundle.json file (from 'Download bundle' or `manage.py export_session`) and import it.",
        )
    limit = max_bundle_bytes()
    if (upload.size or 0) > limit:  # Django spooled it to a temporary file: refused without reading it
        raise too_large(upload.size or 0, limit)
    raw = upload.read(limit + 1)
    result = import_session_bundle(raw, via="dashboard")
    session_id = result.session.public_id
    ids = "with its original ids" if result.kept_ids else "as a new session (its ids were in use here)"
    messages.success(
        request, f"Imported {session_id} {ids}: {result.runs} run(s), {result.events} events. Agents can resume it."
    )
    return HttpResponseRedirect(reverse("session", args=[session_id]))
