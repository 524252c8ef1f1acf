"""Helpers for tests that drive the execution service directly (no MCP)."""

from __future__ import annotations

import json
from typing import Any

from runs.contract.errors import WorkRailError
from runs.models import Event, Session


def notes_for(pending: dict[str, Any] | None) -> dict[str, Any]:
    output: dict[str, Any] = {"notesMarkdown": f"Did {pending['stepId'] if pending else 'it'}."}
    contract = (pending or {}).get("outputContract")
    if contract:
        output["artifacts"] = [contract["example"]]
    return output


def ack(continue_workflow: Any, response: dict[str, Any], **extra: Any) -> dict[str, Any]:
    arguments = {
        "stateToken": response["stateToken"],
        "ackToken": response["ackToken"],
        "output": notes_for(response["pending"]),
    }
    arguments.update(extra)
    return continue_workflow(**arguments)


def error_code(call: Any) -> str:
    try:
        call()
    except WorkRailError as exc:
        return exc.code.value
    raise AssertionError("expected a WorkRailError")


def canonical(response: dict[str, Any]) -> str:
    return json.dumps(response, ensure_ascii=False)


def assert_gap_free() -> None:
    for session in Session.objects.all():
        seqs = list(Event.objects.filter(session=session).order_by("seq").values_list("seq", flat=True))
        assert seqs == list(range(1, len(seqs) + 1))
        assert session.last_seq == len(seqs)
