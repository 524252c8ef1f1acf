"""What a door that takes API tokens (`Authorization: Bearer <token>`, runs/store/api_tokens.py) says when a
request's token is missing or not a live one. The HTTP API (runs/api/errors.py) and the MCP server over
HTTP (runs/mcp/http_guards.py) word it the same way; each adds where else it can be reached from and
which document explains it."""

from __future__ import annotations

from runs.contract.errors import ErrorCode, WorkRailError

# The WWW-Authenticate header of every 401 (RFC 6750).
CHALLENGE = 'Bearer realm="workrail"'

NOT_BEARER = "The Authorization header is not a Bearer token."
REVOKED = "The API token is not valid: it was revoked."
NOT_VALID = "The API token is not valid: it was revoked, mistyped, or belongs to another WorkRail store."
SEND_A_TOKEN = "Send 'Authorization: Bearer <token>' with a token from `manage.py create_api_token`"
ASK_FOR_A_NEW_ONE = "Ask for a new token (`manage.py create_api_token`) and send it as 'Authorization: Bearer <token>'"


def fix(*, otherwise: str, docs: str, revoked: bool = False) -> str:
    """What to do: send a (new) token, or `otherwise` (", or log in ..."; "" for none), as `docs` explains."""
    return f"{ASK_FOR_A_NEW_ONE if revoked else SEND_A_TOKEN}{otherwise} ({docs})."


def refusal(header: str | None, *, revoked: bool, missing: str, otherwise: str, docs: str) -> WorkRailError:
    """UNAUTHENTICATED for the Authorization header `header` (None: not sent, then `missing` is the message),
    as precisely as can be told without revealing anything. `revoked`: the token was one of ours, revoked
    since (only its holder learns that)."""
    if header and not header.lower().startswith("bearer "):
        message = NOT_BEARER
    elif header and revoked:
        return WorkRailError(ErrorCode.UNAUTHENTICATED, REVOKED, fix(otherwise=otherwise, docs=docs, revoked=True))
    elif header:
        message = NOT_VALID
    else:
        message = missing
    return WorkRailError(ErrorCode.UNAUTHENTICATED, message, fix(otherwise=otherwise, docs=docs))


def token_of(header: str | None) -> str:
    """The token of a Bearer Authorization header ("" when there is none)."""
    if not header or not header.lower().startswith("bearer "):
        return ""
    return header[len("bearer ") :].strip()
