"""What the API token commands print: one line per token, and a refusal as its code, message and fix."""

from __future__ import annotations

from datetime import datetime

from runs.contract.errors import WorkRailError
from runs.models import ApiToken


def _when(moment: datetime | None) -> str:
    return moment.isoformat(timespec="seconds") if moment is not None else "never"


def describe(token: ApiToken) -> str:
    """Times only: never the digest."""
    line = f"created {_when(token.created_at)}  last used {_when(token.last_used_at)}"
    return f"{line}  revoked {_when(token.revoked_at)}" if token.revoked_at is not None else line


def refusal(error: WorkRailError) -> str:
    return f"[{error.code.value}] {error.message} {error.suggestion}"
