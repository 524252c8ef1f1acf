"""Dashboard doors for bundles: download a session's bundle, and import one from a file upload.

Both go through exports/bundles.py, as the commands and the API do. The import form posts with its
CSRF token like every dashboard form; a refused import shows the form again with the error inline (its
code, message and what to do), under the code's HTTP status. With a script (drop.js) the form posts in place,
saying so in a header, so the chosen file stays chosen: a refusal comes back as the same page, whose error the
script shows on the form, and an import as the address of its session, where the script goes."""

from __future__ import annotations

from django.contrib import messages
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect, JsonResponse
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_http_methods

from exports.bundle.importing import ImportResult
from exports.bundle.reading import too_large
from exports.bundles import (
    bundle_filename,
    export_session_bundle,
    import_session_bundle,
    max_bundle_bytes,
    session_name,
)
from exports.views import MAX_ID_CHARS, download
from runs.contract.errors import HTTP_STATUS, ErrorCode, WorkRailError
from runs.dashboard.errors import shows_errors
from runs.readmodels.overview import get_session, session_trees
from runs.readmodels.timeline_page import StepCounts

# The header drop.js posts the import form with: the page stays, and with it the chosen file.
IN_PLACE_HEADER = "X-Import-In-Place"

# Refusals of the file for what it is: sending the same file again cannot work, so the form lets go of it and
# asks for another, its Import button off until one is chosen (friction63b 10: the bad file stayed "Chosen" beside a
# blue Import). A file already here can go again as a copy, and a busy store may take it next time: those keep it.
REFUSED_FOR_WHAT_IT_IS = frozenset(
    {
        ErrorCode.BUNDLE_CORRUPT,
        ErrorCode.BUNDLE_INVALID,
        ErrorCode.BUNDLE_TOO_LARGE,
        ErrorCode.BUNDLE_VERSION_UNSUPPORTED,
    }
)


def bundle_attachment(session_id: str, data: bytes) -> HttpResponse:
    """The bundle as a download named after the session: 'MR-42.workrail-bundle.json'."""
    return download(data, "application/json", bundle_filename(get_session(session_id[:MAX_ID_CHARS])))


@require_GET  # not HEAD: a download is recorded in the session's log as an export
@shows_errors
def session_bundle(request: HttpRequest, session_id: str) -> HttpResponse:
    return bundle_attachment(session_id, export_session_bundle(session_id[:MAX_ID_CHARS], via="dashboard"))


@require_http_methods(["GET", "HEAD", "POST"])
def import_bundle(request: HttpRequest) -> HttpResponse:
    """GET: the import form on its own page. POST: the import; a refusal is shown inline on the form
    (code, message, what to do; a link to the session when it is here already) with the code's HTTP status."""
    if request.method != "POST":
        return render(request, "dashboard/import.html", {"nav": "sessions"})
    as_copy = request.POST.get("copy") == "1"
    in_place = request.headers.get(IN_PLACE_HEADER) == "1"
    try:
        result = _import(request, as_copy=as_copy)
    except WorkRailError as error:
        existing = error.details.get("url") if error.code == ErrorCode.BUNDLE_ALREADY_IMPORTED else None
        context = {"nav": "sessions", "error": error, "existing_url": existing, "as_copy": as_copy}
        context["in_place"] = in_place  # the chosen file is still chosen: nothing to ask for again
        context["file_refused"] = error.code in REFUSED_FOR_WHAT_IT_IS
        return render(request, "dashboard/import.html", context, status=HTTP_STATUS.get(error.code, 400))
    messages.success(request, imported_message(result))
    # The session's page then offers the message that sets an agent going where the work stands (?imported).
    session_url = reverse("session", args=[result.session.public_id]) + "?imported=1"
    if in_place:  # not a redirect: fetch would follow it and spend the message on a page nobody sees
        return JsonResponse({"location": session_url})
    return HttpResponseRedirect(session_url)


def imported_message(result: ImportResult) -> str:
    """What the import made, named as people know the session (how an agent carries on is the session
    page's, which shows the message to give it, ready to copy)."""
    runs = f"{result.runs} run{'s' if result.runs != 1 else ''}"
    # Counted as its timeline counts them, not as the bundle's events (friction28a 10).
    reached = StepCounts.of_runs(session_trees(result.session.public_id).values()).reached
    steps = f"{reached} step{'s' if reached != 1 else ''}"
    if result.kept_ids:
        return f"Imported {session_name(result.session)} ({runs}, {steps})."
    # friction60a 12: "tokens … still point at the original" was the store's word; a person copies messages.
    return (
        f"Imported {session_name(result.session)}, a copy with new ids ({runs}, {steps}): "
        "a message copied from the original session still resumes the original, not this copy."
    )


def _import(request: HttpRequest, *, as_copy: bool) -> ImportResult:
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
    return import_session_bundle(upload.read(limit + 1), via="dashboard", as_copy=as_copy)
