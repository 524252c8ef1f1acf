"""The API's bundle doors: GET /api/v1/sessions/{sessionId}/bundle downloads a session's bundle, and
POST /api/v1/bundles imports one sent as the request body. Mounted by workrail_site/api.py with the other
routes of the exports app; both go through exports/bundles.py, as the commands and the dashboard do."""

from __future__ import annotations

from typing import Annotated

from django.http import HttpRequest, HttpResponse
from ninja import Path, Query, Router
from ninja.responses import Status
from pydantic import Field

from exports.bundle.reading import too_large
from exports.bundle_views import bundle_attachment
from exports.bundles import export_session_bundle, import_session_bundle, max_bundle_bytes
from exports.views import MAX_ID_CHARS
from runs.api.errors import described, error_results
from runs.contract.base import Shape

router = Router(tags=["bundles"])
BUNDLE_ANSWER = {
    "description": "The bundle (Content-Disposition: attachment).",
    "content": {"application/json": {"schema": {"type": "object"}}},
}


class BundleImported(Shape):
    session_id: str = Field(description="The imported session's id here (the original's when it was free).")
    kept_ids: bool = Field(description="Whether the session, run and node ids are those of the bundle.")
    runs: int
    events: int = Field(description="Events imported from the bundle (the import itself adds one more).")
    workflows_added: int = Field(description="Pinned workflows this store did not have yet.")


@router.get(
    "/sessions/{sessionId}/bundle",
    response=error_results(403, 404),
    by_alias=True,
    summary="Download a session's bundle",
    description=(
        "The session as one JSON file that POST /bundles (or `manage.py import_bundle`) on another store "
        "imports, to carry on where it stopped. Deterministic; never holds tokens. Recorded in the session's "
        "log as a session_exported event (not activity)."
    ),
    openapi_extra=described(403, 404, ok=BUNDLE_ANSWER),
)
def session_bundle(
    request: HttpRequest,
    session_id: Annotated[str, Path(alias="sessionId", description="An id from GET /sessions (sessionId).")],
) -> HttpResponse:
    session_id = session_id[:MAX_ID_CHARS]
    return bundle_attachment(session_id, export_session_bundle(session_id, via="api"))


@router.post(
    "/bundles",
    response={201: BundleImported, **error_results(403, 409, 413, 429)},
    by_alias=True,
    summary="Import a session bundle",
    description=(
        "The request body is a bundle file, unchanged (`curl --data-binary @file.json`). It is checked whole "
        "before anything is written and imported in one transaction, as a new session: a damaged, edited, "
        "newer or inconsistent bundle is refused (BUNDLE_* codes) and nothing changes. A bundle whose session is "
        "here already (the session it was exported from, or an earlier import of it) is refused with "
        "BUNDLE_ALREADY_IMPORTED (409), naming that session in details.sessionId; `copy=true` imports it again "
        "as a separate session with new ids."
    ),
    openapi_extra={
        "requestBody": {
            "required": True,
            "content": {"application/json": {"schema": {"type": "object"}}},
        },
        **described(403, 409, 413, 429),
    },
)
def import_bundle(
    request: HttpRequest,
    as_copy: Annotated[
        bool,
        Query(alias="copy", description="Import a bundle whose session is here already as a separate copy (new ids)."),
    ] = False,
) -> Status[BundleImported]:
    limit = max_bundle_bytes()
    declared = request.headers.get("Content-Length") or ""
    if declared.isdigit() and int(declared) > limit:  # refused before the body is read
        raise too_large(int(declared), limit)
    result = import_session_bundle(request.read(limit + 1), via="api", as_copy=as_copy)
    return Status(
        201,
        BundleImported(
            session_id=result.session.public_id,
            kept_ids=result.kept_ids,
            runs=result.runs,
            events=result.events,
            workflows_added=result.workflows_added,
        ),
    )
