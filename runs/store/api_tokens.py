"""Local API tokens for the HTTP API (/api/v1/), kept in the database (runs.models.ApiToken) so that
every machine on a shared store accepts them, and the admin can show and revoke them.

Only the hex SHA-256 digest of a token is kept; the token is returned once by `create`. A token is
found by its digest (an indexed lookup: the digest of a guess tells nothing about the digest of the
real token, so the lookup's timing leaks nothing worth having). Revoking records the time and keeps
the row. `$WORKRAIL_HOME/api_tokens.json`, where older versions kept the digests, is imported once by
migration 0011 and no longer read.
"""

from __future__ import annotations

import hashlib
import re
import secrets
from datetime import datetime, timedelta

from django.db import DatabaseError, IntegrityError, transaction
from django.db.models import Q, QuerySet
from django.utils import timezone

from runs.contract.errors import ErrorCode, WorkRailError
from runs.models import ApiToken

TOKEN_BYTES = 32
MAX_TOKEN_CHARS = 200  # anything longer is not one of ours; no need to hash it
NAME_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")
NAME_RULE = "1-64 characters: letters, digits, '.', '_' or '-', starting with a letter or digit"
# `last_used_at` is written at most this often per token: a read request need not be a write.
LAST_USED_EVERY = timedelta(minutes=1)
CREATE_ATTEMPTS = 5  # default names taken by concurrent creators, before giving up


def digest_of(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def live() -> QuerySet[ApiToken]:
    return ApiToken.objects.filter(revoked_at__isnull=True)


def listing() -> list[ApiToken]:
    """Every token, live and revoked, oldest first (the rows hold digests: show names and times only)."""
    return list(ApiToken.objects.order_by("created_at", "pk"))


# --- verifying -----------------------------------------------------------------------------------


def use(token: str, *, now: datetime | None = None) -> ApiToken | None:
    """The stored token `token` is, live or revoked, or None. A live one is marked used (at most once
    every LAST_USED_EVERY, and never at the cost of the request)."""
    if not token or len(token) > MAX_TOKEN_CHARS:
        return None
    stored = ApiToken.objects.filter(digest=digest_of(token)).first()
    if stored is not None and stored.revoked_at is None:
        _mark_used(stored, now or timezone.now())
    return stored


def revoked_among(names: set[str]) -> list[str]:
    """Which of the tokens named `names` are revoked (one query)."""
    return list(
        ApiToken.objects.filter(name__in=sorted(names), revoked_at__isnull=False).values_list("name", flat=True)
    )


def verify(token: str) -> str | None:
    """The name of the live token `token` is, or None (unknown or revoked)."""
    stored = use(token)
    return stored.name if stored is not None and stored.revoked_at is None else None


def _mark_used(stored: ApiToken, now: datetime) -> None:
    if stored.last_used_at is not None and now - stored.last_used_at < LAST_USED_EVERY:
        return
    stale = Q(last_used_at__isnull=True) | Q(last_used_at__lt=now - LAST_USED_EVERY)
    try:
        # In a transaction so that on SQLite it queues with the other writes; the condition makes
        # concurrent requests write once between them.
        with transaction.atomic():
            ApiToken.objects.filter(stale, pk=stored.pk).update(last_used_at=now)
    except DatabaseError:  # a busy store: the next request will try again
        return
    stored.last_used_at = now


# --- creating and revoking -----------------------------------------------------------------------


def check_name(name: str, *, what: str = "name") -> str:
    if not NAME_PATTERN.match(name):
        raise WorkRailError(
            ErrorCode.INVALID_INPUT,
            f"'{name[:80]}' is not a valid token {what}.",
            f"Use {NAME_RULE}.",
            details={what: name[:80]},
        )
    return name


def _default_name() -> str:
    """token-<n>, n past the tokens made so far; never a name a token (even a revoked one) has had."""
    taken = set(ApiToken.objects.values_list("name", flat=True))
    number = len(taken) + 1
    while f"token-{number}" in taken:
        number += 1
    return f"token-{number}"


def create(name: str | None = None, *, owner: str | None = None, now: datetime | None = None) -> tuple[str, str]:
    """Creates a token for `owner` (default: the token's own name) and stores its digest; returns (name,
    token). The token is not kept anywhere."""
    if name is not None:
        check_name(name)
    if owner is not None:
        check_name(owner, what="owner")
    for _ in range(CREATE_ATTEMPTS):
        chosen = name or _default_name()
        token = secrets.token_urlsafe(TOKEN_BYTES)
        try:
            with transaction.atomic():
                ApiToken.objects.create(
                    name=chosen, owner=owner or chosen, digest=digest_of(token), created_at=now or timezone.now()
                )
        except IntegrityError:
            if name is None:
                continue  # another creator took that default name first: take the next
            raise WorkRailError(
                ErrorCode.INVALID_INPUT,
                f"A token named '{name}' exists already.",
                f"Choose another --name, or revoke it first (manage.py revoke_api_token {name}).",
                details={"name": name},
            ) from None
        return chosen, token
    raise WorkRailError(
        ErrorCode.STORE_BUSY,
        "Other token creators kept taking the next default name.",
        "Send the same command again, or give a --name.",
        retryable=True,
    )


def revoke(name: str, *, now: datetime | None = None) -> bool:
    """Revokes the live token named `name`; False when there is none."""
    return live().filter(name=name).update(revoked_at=now or timezone.now()) > 0


def revoke_all(tokens: QuerySet[ApiToken], *, now: datetime | None = None) -> int:
    """Revokes those of `tokens` that are live; returns how many (the admin's action)."""
    return tokens.filter(revoked_at__isnull=True).update(revoked_at=now or timezone.now())


def find_live(name_or_prefix: str) -> ApiToken:
    """The live token named `name_or_prefix`, or else the only live one whose name starts with it."""
    exact = live().filter(name=name_or_prefix).first()
    if exact is not None:
        return exact
    matches = list(live().filter(name__startswith=name_or_prefix).order_by("name")) if name_or_prefix else []
    if len(matches) == 1:
        return matches[0]
    if matches:
        names = [t.name for t in matches]
        raise WorkRailError(
            ErrorCode.INVALID_INPUT,
            f"'{name_or_prefix}' is the start of {len(matches)} token names: {', '.join(names)}.",
            "Give the whole name of the token to revoke.",
            details={"given": name_or_prefix, "matches": names},
        )
    raise _no_live_token(name_or_prefix)


def _no_live_token(given: str) -> WorkRailError:
    names = sorted(live().values_list("name", flat=True))
    message = f"No live API token is named '{given[:80]}' or has a name starting with it."
    revoked = ApiToken.objects.filter(name=given, revoked_at__isnull=False).order_by("-revoked_at").first()
    if revoked is not None and revoked.revoked_at is not None:
        message += f" The token '{revoked.name}' was revoked at {revoked.revoked_at.isoformat(timespec='seconds')}."
    return WorkRailError(
        ErrorCode.NOT_FOUND,
        message,
        f"Live tokens: {', '.join(names) or 'none'} (`manage.py create_api_token --list` shows them all).",
        details={"given": given[:80], "live": names},
    )


def revoke_matching(name_or_prefix: str, *, now: datetime | None = None) -> ApiToken:
    """Revokes the token `find_live` finds and returns it; WorkRailError (NOT_FOUND, or INVALID_INPUT
    for a prefix of several names) when there is not exactly one."""
    stored = find_live(name_or_prefix)
    stored.revoked_at = now or timezone.now()
    live().filter(pk=stored.pk).update(revoked_at=stored.revoked_at)  # revoked meanwhile: the first time stays
    return stored
