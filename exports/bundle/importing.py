"""Applying a verified bundle to this store: afterwards the whole session is there, or nothing of it.

The bundle's events are replayed through the projector, exactly as `rebuild_projections` replays a
session, so an imported session's rows are what its events say, by construction. Ids: when none of
the bundle's session, run and node ids exist here, they are kept (the session reads the same on both
machines); when any does, all of them are new, so an import never merges into or touches another
session. Attempt ids (what ackTokens name) are always new: an ackToken handed out before the export
can never acknowledge anything here. A session key already used here gets " (imported)" appended.
Times are the bundle's: its events keep theirs, the session its creation and its last activity (the
sessions list sorts and shows them as on the machine it came from). Importing is not activity (as an
export is not): retention counts from the session's own last activity, so `manage.py cleanup` may
take an old session soon after its import (its dry run says so first).

Agents keep writing while a large bundle is imported: the session is written in short transactions,
CHUNK_EVENTS events each, as a staged session nothing shows (runs/store/staged.py), and one last short
transaction publishes it, with its own ids and key and the record of the import. What can be done
without the write lock is done before each transaction: renaming the ids, parsing the payloads,
preparing the event rows. Any failure (a check at the end, a lost race for an id, the store staying
busy) removes the staged rows again; a killed import leaves a staged session that cleanup removes.
"""

from __future__ import annotations

import gc
import logging
import re
import secrets
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db import IntegrityError, connection

from exports.bundle import document as fmt
from exports.bundle.export import session_section
from exports.bundle.ids import IdMap, declared_ids
from exports.bundle.reading import VerifiedBundle
from runs.contract.errors import ErrorCode, WorkRailError
from runs.models import Event, EventKind, Node, Run, Session
from runs.store import events as event_payloads
from runs.store import staged, statements
from runs.store.journal import Journal, lock_session_key, random_id, write
from runs.store.pinned import pin
from runs.store.projections import Projector
from runs.store.retention import delete_unused_pinned_workflows

# Events per transaction. Measured on SQLite (bench/bundles.py --concurrent, a 252 MiB bundle of
# 300,755 events on a busy machine): 35-55 ms of the write lock at the median, 100-120 ms at p99, so
# an agent writing meanwhile waits tens of milliseconds, not for the import (it waited 20 s for one
# transaction of 41 s, then gave up with STORE_BUSY). One very large event (a long run's synthesis)
# still takes its own time to write.
CHUNK_EVENTS = 500
CHUNK_BYTES = 2_000_000  # and at most about this much event data per transaction (snapshots can be large)
IMPORT_TRIES = 3  # tries of a whole import that loses a race for its ids or session key
_IN_CHUNK = 900  # ids per IN (...) lookup: under every backend's limit on bound parameters

logger = logging.getLogger("workrail")


@dataclass(frozen=True)
class ImportResult:
    session: Session
    kept_ids: bool
    runs: int
    events: int
    workflows_added: int


class _Taken(Exception):
    """An id or the session key this import planned to use was taken meanwhile (another import, a new
    run with that key): the import starts again and picks others."""


def import_bundle(
    bundle: VerifiedBundle,
    *,
    via: str,
    progress: Callable[[int, int], None] | None = None,
    chunk_events: int | None = None,
    copy_of: str | None = None,
) -> ImportResult:
    """Imports `bundle` as a new session, or raises and leaves no trace of it. It makes its own short
    transactions: called inside another one, they are only savepoints of it, and the lock is held
    throughout. `progress` is told (events written, events in all) after each, outside it. `copy_of`,
    the name of the session here that the bundle is a copy of, makes a copy: titled "<name> (copy)", its
    key (when taken) "<key> (copy)"."""
    for attempt in range(1, IMPORT_TRIES + 1):
        try:
            with _bundle_left_alone_by_the_gc():
                return _import(bundle, via, progress, chunk_events or CHUNK_EVENTS, copy_of)
        except (IntegrityError, _Taken):
            # Two imports of one bundle at once, or a run started with the bundle's session key: the ids
            # and key are checked once, before writing, and may be taken before they are published.
            # The staged rows are removed; the next try sees the others' and picks other ids or key.
            if attempt == IMPORT_TRIES:
                raise
    raise AssertionError("unreachable")


@contextmanager
def _bundle_left_alone_by_the_gc() -> Iterator[None]:
    """A large verified bundle is millions of objects that live until the import ends, and a full
    collection walks them all: seconds each (4 s measured on a 250 MB bundle), and one that fell
    inside a transaction held the write lock that long. Frozen, they are left out of collections,
    which then walk only what the import makes. Process-wide, and harmless to other threads: what
    they leave meanwhile is collected once the import ends."""
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()


def _import(
    bundle: VerifiedBundle,
    via: str,
    progress: Callable[[int, int], None] | None,
    chunk_events: int,
    copy_of: str | None = None,
) -> ImportResult:
    ids = _plan_ids(bundle, copy_of)
    with write() as now:
        session = Session.objects.create(
            public_id=staged.stand_in_id(),
            importing=True,
            created_at=fmt.parse_timestamp(bundle.events[0]["at"]),
            updated_at=now,
        )
    stand_in = session.public_id
    stage = _Stage(session, bundle, ids)
    try:
        stage.write_events(progress, chunk_events)
        _check_summary(session, bundle, ids)
        _publish(stage, bundle, ids, via)
    except BaseException:
        _remove(session.pk, stand_in, stage.pinned)
        raise
    return ImportResult(
        session=Session.objects.get(pk=session.pk),
        kept_ids=ids.session[0] == ids.session[1],
        runs=len(ids.runs),
        events=len(bundle.events),
        workflows_added=len(stage.pinned),
    )


def _plan_ids(bundle: VerifiedBundle, copy_of: str | None = None) -> IdMap:
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
    ids.session_key = _free_key(bundle.session["sessionKey"], "copy" if copy_of is not None else "imported")
    if copy_of is not None:  # numbered as its key is: "MR-42 (copy 2)"
        numbered = re.search(r" \(copy(?: \d+)?\)$", ids.session_key or "")
        ids.session_title = copy_of[:180] + (numbered.group(0) if numbered else " (copy)")
    return ids


def _any_exist(model: type[Run] | type[Node], public_ids: list[Any]) -> bool:
    return any(
        model.objects.filter(public_id__in=public_ids[i : i + _IN_CHUNK]).exists()
        for i in range(0, len(public_ids), _IN_CHUNK)
    )


def _free_key(key: str | None, word: str = "imported") -> str | None:
    """The session key itself when this store has no session with it; else the first free
    "<key> (imported)", "<key> (imported 2)", ... ("(copy)" for a copy asked for; keys join
    start_workflow calls to a session)."""
    if key is None or not Session.objects.filter(session_key=key).exists():
        return key
    for n in range(1, 1000):
        suffix = f" ({word})" if n == 1 else f" ({word} {n})"
        candidate = key[: 200 - len(suffix)] + suffix
        if not Session.objects.filter(session_key=candidate).exists():
            return candidate
    return None  # a thousand imports of one key: keep the session, drop the key


@dataclass
class _Chunk:
    last_seq: int
    payloads: list[tuple[event_payloads.EventPayload, datetime, str, str]]  # each with its owner and client
    rows: list[list[Any]]  # the events' rows, values prepared in Event's field order
    run_hashes: list[str]  # the workflows the chunk's runs are pinned to


class _Stage:
    """The staged session being written, and the one projector that replays the bundle into it: its
    rows (runs, and the newest nodes and attempts) carry over from one transaction to the next."""

    def __init__(self, session: Session, bundle: VerifiedBundle, ids: IdMap) -> None:
        self.session = session
        self.stand_in = session.public_id
        self.bundle = bundle
        self.ids = ids
        self.projector = Projector(session, deferred=True)  # rows inserted in bulk at flush, as a rebuild does
        self.workflows = {w["workflowHash"]: w for w in bundle.workflows}
        self.pinned: list[str] = []  # the workflows this import added to the store

    def write_events(self, progress: Callable[[int, int], None] | None, chunk_events: int) -> None:
        total = len(self.bundle.events)
        for chunk in self._chunks(chunk_events):
            with write() as now:
                self.claim()
                self._apply(chunk, now)
            # What the projector remembers of the rows written so far is in the database now: it
            # reads back the few it needs again instead of keeping the whole session in memory.
            self.projector.nodes.clear()
            self.projector.attempts.clear()
            if progress is not None:
                progress(chunk.last_seq, total)

    def _chunks(self, chunk_events: int) -> Iterator[_Chunk]:
        """The bundle's events in chunks, ids renamed and payloads parsed: all of it outside the lock."""
        data_field, at_field = Event._meta.get_field("data"), Event._meta.get_field("created_at")
        chunk, size = _Chunk(0, [], [], []), 0
        stamp, at, stored_at = None, None, None
        for event in self._renamed(chunk_events):
            if event["at"] != stamp:  # the events of one transaction share their time: parse it once
                stamp = event["at"]
                at = fmt.parse_timestamp(stamp)
                stored_at = at_field.get_db_prep_save(at, connection)
            assert at is not None
            # The data is in its stored form already (reading.py checked it against its payload model).
            data = data_field.get_db_prep_save(event["data"], connection)
            # Who made it and through which door, as recorded where it was made ("" in a bundle from
            # before owners were recorded: made on that machine).
            by, door, client = event.get("actor", ""), event.get("door", ""), event.get("clientName", "")
            chunk.payloads.append((event_payloads.parse(event["kind"], event["data"]), at, by, client))
            chunk.rows.append([self.session.pk, event["seq"], event["kind"], data, stored_at, by, door, client])
            chunk.last_seq = event["seq"]
            if event["kind"] == EventKind.RUN_STARTED:
                chunk.run_hashes.append(event["data"]["workflowHash"])
            size += len(data) if isinstance(data, str | bytes) else 0
            if len(chunk.rows) >= chunk_events or size >= CHUNK_BYTES:
                yield chunk
                chunk, size = _Chunk(0, [], [], []), 0
        if chunk.rows:
            yield chunk

    def _renamed(self, block: int) -> Iterator[dict[str, Any]]:
        """The events with this store's ids, renamed a block at a time: never a second copy of them all."""
        events = self.bundle.events
        for start in range(0, len(events), block):
            yield from self.ids.events(events[start : start + block])

    def claim(self) -> None:
        """Under the write lock (the session row's lock elsewhere): the session is still staged for
        this import. A cleanup that took it as abandoned (the import was paused for long) stops it."""
        mine = Session.objects.select_for_update().filter(pk=self.session.pk, public_id=self.stand_in, importing=True)
        if mine.values_list("pk", flat=True).first() is None:  # evaluated, so that the row is locked
            raise WorkRailError(
                ErrorCode.STORE_BUSY,
                "The import was paused for so long that a cleanup removed what it had written.",
                "Import the bundle again.",
                retryable=True,
                details={"abandoned": True},
            )

    def _apply(self, chunk: _Chunk, now: datetime) -> None:
        for workflow_hash in dict.fromkeys(chunk.run_hashes):
            workflow = self.workflows[workflow_hash]
            # Pinned in the transaction that starts its runs, as a start does: a cleanup between two
            # transactions may remove a snapshot no run uses yet.
            if pin(workflow_hash, workflow["workflowId"], workflow["compiled"], now):
                self.pinned.append(workflow_hash)
        known = set(self.projector.runs)
        for payload, at, by, client in chunk.payloads:
            self.projector.apply(payload, at, by, client)
        # The rows' values are in Event's field order: session, seq, kind, data, created_at, actor, door.
        statements.insert_prepared(Event, chunk.rows)
        self.projector.flush()
        # Hidden until published: new runs get stand-in ids, the session no key (the projector set it
        # from the first event), so no lookup and no start_workflow with that key reaches them.
        for run_id in self.projector.runs.keys() - known:
            statements.update(Run, self.projector.runs[run_id].pk, public_id=staged.stand_in_id())
        self.session.last_seq = chunk.last_seq
        statements.update(Session, self.session.pk, last_seq=chunk.last_seq, updated_at=now, session_key=None)


def _check_summary(session: Session, bundle: VerifiedBundle, ids: IdMap) -> None:
    """The bundle's session section must be what its events project to (ids and key as renamed here);
    otherwise the staged session is removed."""
    stored = Session.objects.get(pk=session.pk)
    stored.public_id, stored.session_key = ids.session[1], ids.session_key
    projected = session_section(stored, bundle.events)
    claimed = {**bundle.session, "sessionId": ids.session[1], "sessionKey": ids.session_key}
    if ids.session_title is not None:
        claimed["title"] = ids.session_title
    if projected != claimed:
        wrong = sorted(name for name in claimed if claimed[name] != projected.get(name))
        raise WorkRailError(
            ErrorCode.BUNDLE_INVALID,
            f"The bundle is not a consistent session: its session section disagrees with its events "
            f"({', '.join(wrong)}).",
            "Export the session again with WorkRail and send the new file unchanged.",
            details={"pointer": "/session/" + (wrong[0] if wrong else "")},
        )


def _publish(stage: _Stage, bundle: VerifiedBundle, ids: IdMap, via: str) -> None:
    """One short transaction: the session and its runs get their own ids and key, and the import is
    recorded. From its commit on the session is there, whole."""
    session = stage.session
    with write() as now:
        stage.claim()
        key = ids.session_key
        if key is not None:
            lock_session_key(key)  # as a start_workflow with this key does: one of us creates it
            if Session.objects.filter(session_key=key).exists():
                raise _Taken(f"session key {key!r}")
        # Its last activity as recorded, not the import's heartbeat (the import is no activity of its own).
        last_activity = fmt.parse_timestamp(bundle.session["lastActivityAt"])
        statements.update(
            Session, session.pk, public_id=ids.session[1], session_key=key, importing=False, updated_at=last_activity
        )
        session.updated_at = last_activity
        for run_id, run in stage.projector.runs.items():
            statements.update(Run, run.pk, public_id=run_id)
        session.public_id, session.session_key, session.importing = ids.session[1], key, False
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


def _remove(session_pk: int, stand_in: str, pinned: list[str]) -> None:
    """After a failure: the staged session, and the workflows only it had pinned. Best effort: when
    the store stays busy, the staged session is left for cleanup, which removes abandoned ones."""
    try:
        staged.discard(session_pk, stand_in)
        if pinned:
            delete_unused_pinned_workflows(among=pinned)
    except Exception:  # the import's own error is the one to raise; cleanup removes what is left
        logger.warning("could not remove the staged rows of a failed import; cleanup will", exc_info=True)
