"""Helpers for the bundle tests: a session with everything a bundle must carry, an empty store, and
projections compared with ids aside."""

from __future__ import annotations

import ast
import json
import re
from typing import Any

from django.db import connection

from exports.bundle.export import TOKEN_MARKER
from harness.projections import snapshot
from runs.models import Event, EventKind
from tests.support.mcp_calls import continue_workflow, notes_for, start_workflow
from tests.support.sample_session import SESSION_KEY, Built, two_runs_one_forked_twice

_TOKEN = re.compile(r"\b(?:st|ak|ss)1_[A-Za-z0-9_-]{24}")
_DECLARING = {EventKind.RUN_STARTED: "runId", EventKind.NODE_CREATED: "nodeId", EventKind.ATTEMPT_ISSUED: "attemptId"}


def session_with_everything() -> Built:
    """Two runs in one session, one forked twice with notes, artifacts and a checkpoint (the dashboard's
    sample), plus a third run that went past a user-only dependency unattended, leaving a gap."""
    built = two_runs_one_forked_twice()
    start = start_workflow("wr.code_review", {"sessionKey": SESSION_KEY, "reviewAreas": ["api"]}, mode="unattended")
    continue_workflow(stateToken=start["stateToken"], ackToken=start["ackToken"], output=notes_for(start["pending"]))
    return built


def empty_the_store() -> None:
    """Deletes every session and everything under it, as if on another machine (raw SQL: the models
    refuse to delete single events, and retention is tested on its own)."""
    tables = [
        "runs_searchentry",
        "runs_checkpoint",
        "runs_observation",
        "runs_gap",
        "runs_runsynthesis",
        "runs_output",
        "runs_ack",
        "runs_attempt",
    ]
    with connection.cursor() as cursor:
        for table in tables:
            cursor.execute(f"DELETE FROM {table}")
        cursor.execute("UPDATE runs_node SET latest_child_id = NULL, parent_id = NULL")
        cursor.execute("UPDATE runs_run SET parent_run_id = NULL, parent_node_id = NULL")
        for table in ("runs_node", "runs_run", "runs_event", "runs_session", "runs_pinnedworkflow"):
            cursor.execute(f"DELETE FROM {table}")


def declared_ids(session_pk: int) -> list[str]:
    """The run, node and attempt ids of a session, in the order its events declared them."""
    ids = []
    for kind, data in Event.objects.filter(session_id=session_pk, kind__in=_DECLARING).values_list("kind", "data"):
        ids.append(str(data[_DECLARING[kind]]))
    return ids


def projections(renamed: dict[str, str] | None = None) -> dict[str, list[str]]:
    """Every projection row as text, with tokens masked (a bundle never carries them), ids renamed
    through `renamed`, and each session's last_seq and each run's imported_at left out (sharing records are not
    exported: an import is the moment the copy came, not part of what it copies)."""
    renamed = renamed or {}
    pattern = (
        re.compile("|".join(re.escape(old) for old in sorted(renamed, key=len, reverse=True))) if renamed else None
    )
    result: dict[str, list[str]] = {}
    for table, rows in snapshot().items():
        texts = []
        for row in rows:
            if table == "sessions":
                row = row[:6] + row[7:]
            if table == "runs":  # (..., client_name, imported_at, created_at, updated_at): harness/projections.py
                row = row[:-3] + row[-2:]
            text = _TOKEN.sub(TOKEN_MARKER, repr(tuple(_key_order_free(value) for value in row)))
            if pattern is not None:
                text = pattern.sub(lambda m: renamed[m.group(0)], text)
            texts.append(text)
        result[table] = sorted(texts)
    return result


def _key_order_free(value: Any) -> Any:
    """JSON kept in a projection row (shown as its repr), with its keys sorted: a bundle stores JSON
    with sorted keys, and key order carries no meaning (PostgreSQL's jsonb does not keep it either)."""
    if isinstance(value, str) and value[:1] in "{[":
        try:
            return json.dumps(ast.literal_eval(value), sort_keys=True)
        except (ValueError, SyntaxError):
            return value
    return value


def id_renaming(original: list[str], imported: list[str], pairs: dict[str, str]) -> dict[str, str]:
    assert len(original) == len(imported)
    return {**dict(zip(imported, original, strict=True)), **pairs}


def tokens_in(data: bytes) -> list[str]:
    return _TOKEN.findall(data.decode("utf-8"))


def as_text(value: Any) -> str:
    return value.decode("utf-8") if isinstance(value, bytes) else str(value)
