"""stateToken and ackToken: short, opaque, HMAC-signed handles.

    st1_<base64url(node id: 8 bytes | mac: 10 bytes)>    28 characters
    ak1_<base64url(attempt id: 8 bytes | mac: 10 bytes)> 28 characters
    ss1_<base64url(session id: 8 bytes | mac: 10 bytes)> 28 characters (checkpoint-only sessions)

A token names a stored node (or attempt); the node holds the truth. The MAC covers the kind and
version, so an ackToken can never pass for a stateToken. The same node always gives the same
token, which is what lets a replay return byte-identical payloads. An agent copying a token may
wrap it in quotes, backticks or whitespace: those are stripped; any other change is refused.

The grammar is ASCII only and exact: a kind, a version written as a plain decimal number (ASCII
digits, no sign, no leading zero: `st01_`, `st+1_`, Arabic-Indic or fullwidth digits are malformed), `_`,
then exactly BODY_CHARS characters of the unpadded base64url alphabet, in canonical form (the body
re-encodes to itself), so one token has exactly one spelling. A well-formed other version (`st2_`)
is TOKEN_VERSION_UNSUPPORTED; anything else that is not exactly a token is TOKEN_MALFORMED.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import re
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

from runs.contract.errors import ErrorCode, WorkRailError
from runs.contract.features import find_lost_run
from runs.store.token_keys import signing_keys

VERSION = 1
ID_BYTES = 8
MAC_BYTES = 10
BODY_CHARS = -(-(ID_BYTES + MAC_BYTES) * 4 // 3)  # unpadded base64url of the 18 bytes: 24 characters
MAX_CHARS = 200  # far beyond any token (with its wrapping); longer input is not looked at
# re.ASCII and [0-9]: no Unicode digits; the version allows no leading zero and at most 6 digits (no
# huge int() to compute); the body is the base64url alphabet only. Used with fullmatch.
_SHAPE = re.compile(r"(st|ak|ss)(0|[1-9][0-9]{0,5})_([A-Za-z0-9_-]+)", re.ASCII)
_WRAPPING = " \t\r\n\"'`"


class TokenKind(StrEnum):
    STATE = "st"
    ACK = "ak"
    SESSION = "ss"


NAMES = {TokenKind.STATE: "stateToken", TokenKind.ACK: "ackToken", TokenKind.SESSION: "sessionToken"}
PREFIXES = {kind: f"{kind.value}{VERSION}_" for kind in TokenKind}


@dataclass(frozen=True)
class Token:
    kind: TokenKind
    id: int


def _mac(key: bytes, kind: TokenKind, ident: bytes) -> bytes:
    return hmac.new(key, f"{kind.value}{VERSION}".encode() + ident, hashlib.sha256).digest()[:MAC_BYTES]


def mint(home: Path, kind: TokenKind, ident: int) -> str:
    raw = ident.to_bytes(ID_BYTES, "big")
    body = _encode(raw + _mac(signing_keys(home)[0], kind, raw))
    return f"{kind.value}{VERSION}_{body}"


def parse(home: Path, value: object, expected: TokenKind) -> Token:
    name = NAMES[expected]
    if not isinstance(value, str):
        raise _malformed(name, "it must be a string")
    if len(value) > MAX_CHARS:
        raise _malformed(name, f"it is {len(value)} characters long, far longer than a token")
    text = value.strip(_WRAPPING)
    shape = _SHAPE.fullmatch(text)
    if shape is None:
        raise _malformed(name, "it does not look like a WorkRail token")
    kind_text, version, body = shape.groups()
    if kind_text != expected.value:
        other = NAMES[TokenKind(kind_text)]
        raise _malformed(name, f"this is a {other}; pass it as {other} and send the {name} here")
    if int(version) != VERSION:
        raise WorkRailError(
            ErrorCode.TOKEN_VERSION_UNSUPPORTED,
            f"The {name} has version {version}; this server reads version {VERSION}.",
            "Use the most recent tokens this server returned, or start_workflow again.",
        )
    if len(body) != BODY_CHARS:
        raise _malformed(name, "it has the wrong length (was it cut or edited?)")
    raw = _decode(body)
    if raw is None:
        raise _malformed(name, "its payload is not canonical base64url (was it edited?)")
    ident, mac = raw[:ID_BYTES], raw[ID_BYTES:]
    if not _verifies(home, mac, expected, ident):
        raise WorkRailError(
            ErrorCode.TOKEN_BAD_SIGNATURE,
            f"The {name} was not signed by this WorkRail store (altered, or from another machine).",
            f"Send the token exactly as WorkRail returned it. Tokens do not move between machines: {find_lost_run()}.",
        )
    return Token(expected, int.from_bytes(ident, "big"))


def _encode(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).decode("ascii").rstrip("=")


def _decode(body: str) -> bytes | None:
    """The bytes of a body the grammar has already checked (alphabet and length), or None when the body
    is not the canonical encoding of ID_BYTES + MAC_BYTES bytes: two different strings never decode
    to the same token."""
    try:
        raw = base64.urlsafe_b64decode(body + "=" * (-len(body) % 4))
    except (binascii.Error, ValueError):
        return None
    if len(raw) != ID_BYTES + MAC_BYTES or _encode(raw) != body:
        return None
    return raw


def _verifies(home: Path, mac: bytes, kind: TokenKind, ident: bytes) -> bool:
    if any(hmac.compare_digest(mac, _mac(key, kind, ident)) for key in signing_keys(home)):
        return True
    # Perhaps signed with a key rotated in since this process last read the key file.
    return any(hmac.compare_digest(mac, _mac(key, kind, ident)) for key in signing_keys(home, fresh=True))


def _malformed(name: str, why: str) -> WorkRailError:
    return WorkRailError(
        ErrorCode.TOKEN_MALFORMED,
        f"The {name} is malformed: {why}.",
        f"Copy the {name} exactly as the last WorkRail response gave it (it starts with "
        f"'{PREFIXES[next(k for k, v in NAMES.items() if v == name)]}').",
    )
