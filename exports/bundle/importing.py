"""Applying a verified bundle to this store, in one transaction: either the whole session is there
afterwards, or nothing of it is.

The bundle's events are replayed through the projector, exactly as `rebuild_projections` replays a
session, so an imported session's rows are what its events say, by construction. Ids: when none of
the bundle's session, run and node ids exist here, they are kept (the session reads the same on both
machines); when any does, all of them are new, so an import never merges into or touches another
session. Attempt ids (what ackTokens name) are always new: an ackToken handed out before the export
can never acknowledge anything here. A session key already used here gets " (imported)" appended.
Importing is activity: the session's retention starts again from the import.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db import connection, transaction
from django.utils import timezone

from exports.bundle import document as fmt
from exports.bundle.export import session_section
from exports.bundle.ids import IdMap, declared_ids
from exports.bundle.reading import VerifiedBundle
from runs import events as event_payloads
from runs import statements
from runs.errors import ErrorCode, WorkRailError
from runs.eventlog import Journal, random_id
from runs.models import Event, Node, Run, Session
from runs.projections import Projector
from runs.services.pinned import pin

_IN_CHUNK = 900  # ids per IN (...) lookup: under every backend's limit on bound parameters
_EVENT_BATCH = 2000


@dataclass(frozen=True)
class ImportResult:
    session: Session
    kept_ids: bool
    runs: int
    events: int
    workflows_added: int


def import_bundle(
    bundle: VerifiedBundle, *, via: str, progress: Callable[[int, int], None] | None = None
) -> ImportResult:
    now = timezone.now()
    with transaction.atomic():
        ids = _plan_ids(bundle)
        added = _pin_workflows(bundle.workflows, now)
        session = Session.objects.create(
            public_id=ids.session[1], created_at=fmt.parse_timestamp(bundle.events[0]["at"]), updated_at=now
        )
        _replay(session, bundle, ids, progress)
        _check_summary(session, bundle, ids)
        journal = Journal(session, now)
        journal.record(
            event_payloads.SessionImported(
                bundle_digest=bundle.digest,
                original_session_id=ids.session[0],
                bundle_schema_version=bundle.schema_version,
                exported_by=bundle.producer,
                via=via,
            )
        )
        journal.flush()
    return ImportResult(
        session=session,
        kept_ids=ids.session[0] == ids.session[1],
        runs=len(ids.runs),
        events=len(bundle.events),
        workflows_added=added,
    )


def _plan_ids(bundle: VerifiedBundle) -> IdMap:
    declared = declared_ids(bundle.events)
    original = bundle.session["sessionId"]
    free = (
        not Session.objects.filter(public_id=original).exists()
        and not _any_exist(Run, declared["run"])
        and not _any_exist(Node, declared["node"])
    )
    ids = IdMap(session=(original, original if free else "ses_" + secrets.token_hex(8)))
    ids.runs = {run: run if free else "run_" + f"{random_id():016x}" for run in declared["run"]}
    ids.nodes = {node: node if free else random_id() for node in declared["node"]}
    ids.attempts = {attempt: random_id() for attempt in declared["attempt"]}
    ids.session_key = _free_key(bundle.session["sessionKey"])
    return ids


def _any_exist(model: type[Run] | type[Node], public_ids: list[Any]) -> bool:
    return any(
        model.objects.filter(public_id__in=public_ids[i : i + _IN_CHUNK]).exists()
        for i in range(0, len(public_ids), _IN_CHUNK)
    )


def _free_key(key: str | None) -> str | None:
    """The session key itself when this store has no session with it; else the first free
    "<key> (imported)", "<key> (imported 2)", ... (keys join start_workflow calls to a session)."""
    if key is None or not Session.objects.filter(session_key=key).exists():
        return key
    for n in range(1, 1000):
        suffix = " (imported)" if n == 1 else f" (imported {n})"
        candidate = key[: 200 - len(suffix)] + suffix
        if not Session.objects.filter(session_key=candidate).exists():
            return candidate
    return None  # a thousand imports of one key: keep the session, drop the key


def _pin_workflows(workflows: list[dict[str, Any]], now: datetime) -> int:
    """The bundle's pinned workflows, added where this store lacks them. A snapshot is keyed by its own
    hash (checked when the bundle was read), so one already here is the same snapshot."""
    return sum(pin(w["workflowHash"], w["workflowId"], w["compiled"], now) for w in workflows)


def _replay(session: Session, bundle: VerifiedBundle, ids: IdMap, progress: Callable[[int, int], None] | None) -> None:
    events = bundle.events
    projector = Projector(session, deferred=True)  # rows inserted in bulk at flush, as a rebuild does
    data_field, at_field = Event._meta.get_field("data"), Event._meta.get_field("created_at")
    rows: list[list[Any]] = []
    stamp, at, stored_at = None, None, None
    for event in ids.events(events, bundle.events_text):
        if event["at"] != stamp:  # the events of one transaction share their time: parse it once
            stamp = event["at"]
            at = fmt.parse_timestamp(stamp)
            stored_at = at_field.get_db_prep_save(at, connection)
        assert at is not None
        projector.apply(event_payloads.parse(event["kind"], event["data"]), at)
        # The data is in its stored form already (reading.py checked it against its payload model).
        data = data_field.get_db_prep_save(event["data"], connection)
        rows.append([session.pk, event["seq"], event["kind"], data, stored_at])
        if len(rows) >= _EVENT_BATCH:
            _insert_events(rows)
            if progress is not None:
                progress(event["seq"], len(events))
    _insert_events(rows)
    projector.flush()
    session.last_seq = len(events)
    Session.objects.filter(pk=session.pk).update(last_seq=session.last_seq)
    if progress is not None:
        progress(len(events), len(events))


def _insert_events(rows: list[list[Any]]) -> None:
    statements.insert_prepared(Event, rows)  # values in Event's field order: session, seq, kind, data, created_at
    rows.clear()


def _check_summary(session: Session, bundle: VerifiedBundle, ids: IdMap) -> None:
    """The bundle's session section must be what its events project to (ids and key as renamed here);
    otherwise the transaction is rolled back."""
    session.refresh_from_db()
    projected = session_section(session, bundle.events)
    claimed = {**bundle.session, "sessionId": ids.session[1], "sessionKey": ids.session_key}
    if projected != claimed:
        wrong = sorted(name for name in claimed if claimed[name] != projected.get(name))
        raise WorkRailError(
            ErrorCode.BUNDLE_INVALID,
            f"The bundle is not a consistent session: its session section disagrees with its events "
            f"({', '.join(wrong)}). Nothing was imported.",
            "Export the session again with WorkRail and send the new file unchanged.",
            details={"pointer": "/session/" + (wrong[0] if wrong else "")},
        )
