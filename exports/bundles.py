"""Session bundles as the commands, the dashboard and the API use them: export one session to bytes
(and record that it was), or import bytes as a new session. The format and its checks live in
`exports/bundle/`; this is the one door all three go through."""

from __future__ import annotations

from collections.abc import Callable

from django.conf import settings

from exports.bundle.already import already_imported, existing_session
from exports.bundle.document import digest_bytes
from exports.bundle.export import export_bundle
from exports.bundle.importing import ImportResult, import_bundle
from exports.bundle.reading import read_bundle
from exports.records import ExportVia, record_export
from runs.models import Session
from runs.readmodels import naming
from runs.readmodels.overview import get_session
from runs.store import ratelimit
from runs.store.journal import write


def max_bundle_bytes() -> int:
    return settings.WORKRAIL_BUNDLE_MAX_MB * 1024 * 1024


def export_session_bundle(
    session_id: str, *, via: ExportVia, progress: Callable[[int, int], None] | None = None
) -> bytes:
    """The session's bundle. NOT_FOUND for an unknown id. The export is recorded in the session's log
    (not as activity); the record itself is never part of a bundle, so exporting twice gives the same bytes."""
    session = get_session(session_id)
    data = export_bundle(session, progress)
    record_export(session, "bundle", digest_bytes(data), via)
    return data


def import_session_bundle(
    raw: bytes, *, via: ExportVia, as_copy: bool = False, progress: Callable[[int, int], None] | None = None
) -> ImportResult:
    """Verifies `raw` completely, then imports it, in short transactions that let agents write
    meanwhile (exports/bundle/importing.py). Any refusal is a WorkRailError (BUNDLE_* codes,
    STORE_BUSY) and leaves no trace of the bundle's session. A bundle whose session is here already
    is refused (BUNDLE_ALREADY_IMPORTED, naming that session) unless `as_copy`: then it is imported
    again as a separate session with new ids (exports/bundle/already.py)."""
    bundle = read_bundle(raw, max_bytes=max_bundle_bytes())
    existing = existing_session(bundle)
    if existing is not None and not as_copy:
        raise already_imported(existing)
    with write():  # the same busy handling as every other write
        ratelimit.take(ratelimit.STARTS, what="new sessions and runs")  # an import starts a session
    copy_of = _name_of(existing.session_id) if existing is not None else None
    return import_bundle(bundle, via=via, progress=progress, copy_of=copy_of)


def _name_of(session_id: str) -> str:
    session = get_session(session_id)
    return naming.session_name(session.session_key, session.title, session.public_id)


def session_name(session: Session) -> str:
    """What pages, messages and file names call a session: its key, else its title, else its id."""
    return naming.session_name(session.session_key, session.title, session.public_id)


def bundle_filename(session: Session) -> str:
    """'MR-42.workrail-bundle.json': the session's name in safe characters (its id when none is left)."""
    return f"{naming.file_stem(session.session_key, session.title, session.public_id)}.workrail-bundle.json"
