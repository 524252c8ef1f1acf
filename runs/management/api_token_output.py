"""What the API token commands (create_api_token, revoke_api_token) print: a listing with one line per
token, the line that confirms a revocation, and a refusal as its code, message and fix."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from django.core.management.base import OutputWrapper

from runs.contract.errors import WorkRailError
from runs.models import ApiToken


def _when(moment: datetime | None) -> str:
    return moment.isoformat(timespec="seconds") if moment is not None else "never"


def describe(token: ApiToken) -> str:
    """Times only: never the digest."""
    line = f"created {_when(token.created_at)}  last used {_when(token.last_used_at)}"
    if token.owner and token.owner != token.name:
        line = f"owner {token.owner}  {line}"
    return f"{line}  revoked {_when(token.revoked_at)}" if token.revoked_at is not None else line


def write_listing(out: OutputWrapper, tokens: Sequence[ApiToken], when_none: str) -> None:
    """One line per token, names aligned, then its times; `when_none` when there is none."""
    if not tokens:
        out.write(when_none)
        return
    width = max(len(token.name) for token in tokens)
    for token in tokens:
        out.write(f"{token.name:<{width}}  {describe(token)}")


def revoked(token: ApiToken) -> str:
    return f"Revoked API token '{token.name}'. Requests that send it now get 401 UNAUTHENTICATED."


def refusal(error: WorkRailError) -> str:
    return f"[{error.code.value}] {error.message} {error.suggestion}"
