"""Whether a bundle's session is in this store already, so that importing it again does not silently
make a duplicate.

A bundle is recognised by the id of the session it was exported from (`session.sessionId`), not by
its bytes: an export made after more work on the same session is still that session (its digest
differs), and a second import of it would be a duplicate all the same. The session it names is here
when a session has that id (the original, or an import that kept its ids) or when an import recorded
it as its origin (the `session_imported` event's `originalSessionId`, kept in the log, so a rebuild
keeps the answer). Session ids are 64 random bits: two sessions never share one by chance. The import's
digest tells the message whether it is the very same file.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.urls import reverse

from exports.bundle.reading import VerifiedBundle
from runs.contract.errors import ErrorCode, WorkRailError
from runs.models import Event, EventKind
from runs.store.staged import visible_sessions


@dataclass(frozen=True)
class Existing:
    session_id: str
    same_bundle: bool  # this very file was imported to make it
    name: str = ""  # its title or key, what people know it by

    def named(self) -> Existing:
        row = visible_sessions().filter(public_id=self.session_id).values_list("title", "session_key").first()
        name = (row[0] or row[1] or "") if row else ""
        return Existing(self.session_id, self.same_bundle, name)


def existing_session(bundle: VerifiedBundle) -> Existing | None:
    original = str(bundle.session["sessionId"])
    visible = visible_sessions()
    if visible.filter(public_id=original).exists():
        same = Event.objects.filter(
            session__public_id=original, kind=EventKind.SESSION_IMPORTED, data__bundleDigest=bundle.digest
        ).exists()
        return Existing(original, same).named()
    # Imports are few; the log is read by kind, the oldest import first (the one people met first).
    imports = Event.objects.filter(kind=EventKind.SESSION_IMPORTED, data__originalSessionId=original)
    found = (
        imports.filter(session__in=visible)
        .order_by("created_at", "pk")
        .values_list("session__public_id", "data__bundleDigest")
        .first()
    )
    return Existing(found[0], found[1] == bundle.digest).named() if found else None


def already_imported(existing: Existing) -> WorkRailError:
    url = reverse("session", args=[existing.session_id])
    what = "This very bundle was imported before" if existing.same_bundle else "This bundle's session is here already"
    return WorkRailError(
        ErrorCode.BUNDLE_ALREADY_IMPORTED,
        f"{what}: session {_called(existing)}. Importing it again would make a duplicate, so nothing was imported.",
        f"Open the existing session at {url}. To import a separate copy with new ids anyway, import it as a copy "
        "('import it as a separate copy' on the dashboard's import page, ?copy=true in the API, --copy for "
        "manage.py import_bundle).",
        details={"sessionId": existing.session_id, "url": url, "sameBundle": existing.same_bundle},
    )


def _called(existing: Existing) -> str:
    return f"“{existing.name}” ({existing.session_id})" if existing.name else existing.session_id
