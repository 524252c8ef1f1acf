"""Checks the tests share: the code of a refused call, an answer as canonical text, a gap-free log."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from runs.contract.errors import WorkRailError
from runs.models import Event, Session


def error_code(call: Callable[[], Any]) -> str:
    """The code of the WorkRailError `call()` raises (an AssertionError when it raises none)."""
    try:
        call()
    except WorkRailError as exc:
        return exc.code.value
    raise AssertionError("expected a WorkRailError")


def canonical(response: dict[str, Any]) -> str:
    return json.dumps(response, ensure_ascii=False)


def assert_gap_free() -> None:
    """Every session's events are numbered 1..n, and the session's last_seq is n."""
    for session in Session.objects.all():
        seqs = list(Event.objects.filter(session=session).order_by("seq").values_list("seq", flat=True))
        assert seqs == list(range(1, len(seqs) + 1))
        assert session.last_seq == len(seqs)
