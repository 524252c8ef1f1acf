"""Reading a bundle: every check that can be made without the database, before anything is written.

The order matters for the message a person gets: size first (nothing is parsed past the cap), then
whether the bytes are a bundle at all (JSON holding only what a JSON writer writes), its version (a
newer bundle says "upgrade", not "corrupt"), whether the bytes are exactly as exported and match the
manifest (a damaged or edited file), then whether what it says hangs together (events, ids,
workflows, the graph index), and last whether a live run could have written it (rules.py). The
doors call this before taking any lock, so a refused bundle never holds up an agent.
"""

from __future__ import annotations

import json
import logging
import math
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Literal

from pydantic import Field, ValidationError

from exports.bundle import document as fmt
from exports.bundle.graph_index import graph_index
from exports.bundle.ids import check_references
from exports.bundle.problems import BundleDamaged, BundleProblem, pointer_to
from exports.bundle.rules import Rules
from exports.bundle.workflows import checked_workflow
from runs.contract.base import Shape
from runs.contract.errors import ErrorCode, WorkRailError
from runs.store.actors import CLIENT_NAME_MAX_CHARS, OWNER_MAX_CHARS
from runs.store.events import PAYLOADS, SHARING_KINDS, parse
from workflows_app.sources import NestedTooDeep, check_json_depth

logger = logging.getLogger("workrail")
PRINTABLE = r"^[^\x00-\x1f\x7f]*$"  # no control characters: shown on pages and in reports as they are
_AGAIN = "Export the session again on the machine it came from and send the new file unchanged."
# A file that is not JSON from its first character was never a bundle: the wrong file, not a damaged one.
# No "Nothing was imported." in a refusal's message: every error says the import failed, and the import page heads
# it "Not imported:" (friction61a 5: said twice).
_NOT_A_BUNDLE = "This is not a WorkRail bundle (not JSON). Did you pick the right file?"
_PICK_AGAIN = "Pick the .workrail-bundle.json file that a WorkRail export made."


class Producer(Shape):
    name: str = Field(max_length=200)
    version: str = Field(max_length=50)


class SessionSection(Shape):
    session_id: str = Field(pattern=r"^ses_[0-9a-f]{16}$")
    session_key: str | None = Field(max_length=200)
    title: str = Field(max_length=200)
    kind: str
    tags: list[str]
    preferences: dict[str, str]
    status: str
    workflow_ids: list[str]
    run_count: int
    branch_count: int
    git_branch: str
    workspace_path: str
    created_at: str
    last_activity_at: str


class BundleEvent(Shape):
    seq: int
    kind: str
    at: str
    data: dict[str, Any]
    # Who made it (an API token's owner, a dashboard user) and the door it came through; absent in
    # bundles from before they were recorded, and for work done on the exporting machine without either.
    actor: str = Field(default="", max_length=OWNER_MAX_CHARS, pattern=PRINTABLE)
    door: str = Field(default="", max_length=16, pattern=PRINTABLE)
    # The MCP client that made it, by its declared name (Event.client_name); absent before it was recorded.
    client_name: str = Field(default="", max_length=CLIENT_NAME_MAX_CHARS, pattern=PRINTABLE)


class BundleWorkflow(Shape):
    workflow_hash: str
    workflow_id: str
    compiled: dict[str, Any]


class Manifest(Shape):
    algorithm: Literal["sha256"]
    canonicalization: Literal["sorted-keys-compact-utf8"]
    digests: dict[str, str]
    event_count: int
    workflow_count: int


class BundleShape(Shape):
    bundle_schema_version: int
    kind: Literal["workrail.session-bundle"]
    producer: Producer
    session: SessionSection
    graph: dict[str, Any]
    events: list[BundleEvent]
    workflows: list[BundleWorkflow]
    manifest: Manifest


@dataclass(frozen=True)
class VerifiedBundle:
    digest: str  # of the file's bytes
    schema_version: int
    producer: str
    session: dict[str, Any]  # the `session` section, wire names
    events: list[dict[str, Any]]  # {"seq", "kind", "at", "data"}, in order
    workflows: list[dict[str, Any]]  # {"workflowHash", "workflowId", "compiled"}: compiled in canonical form
    events_text: bytes = b""  # the events section as serialized in the file (ids are renamed in it)


def read_bundle(raw: bytes, *, max_bytes: int, now: datetime | None = None) -> VerifiedBundle:
    """Every check, in the order of the module's docstring; a refusal is a WorkRailError (BUNDLE_*).
    `now` is when the events must have happened by (this machine's clock, give or take CLOCK_SKEW)."""
    if len(raw) > max_bytes:
        raise too_large(len(raw), max_bytes)
    document = _parse(raw)
    _check_version(document)
    sections = _sections(document)
    if fmt.assemble(sections) != raw:  # the one serialization: whitespace, key order, escapes, duplicates
        raise _corrupt("its bytes are not exactly as WorkRail wrote them (edited or re-formatted since)")
    if b"\\u0000" in raw:
        _refuse_nul(document)
    shape = _check_shape(document)
    _check_manifest(document, sections)
    events = document["events"]
    try:
        _check_events(events, shape.session.session_id)
        check_references(events)
        workflows = _check_workflows(document["workflows"], events)
        if graph_index(events) != document["graph"]:
            raise BundleProblem("its graph index does not match its events", "/graph")
        _check_rules(events, workflows, document["session"], now or datetime.now(UTC))
    except BundleDamaged as exc:
        raise _corrupt(str(exc), exc.pointer) from None
    except BundleProblem as exc:
        raise _invalid(str(exc), exc.pointer) from None
    except Exception as exc:
        # A shape the checks above did not foresee: still a bundle this store cannot take, and nothing
        # has been written; the traceback goes to the log, for a check to be added.
        logger.exception("a bundle's content could not be checked")
        raise _invalid(f"part of it could not be checked ({type(exc).__name__})", "") from None
    return VerifiedBundle(
        digest=fmt.digest_bytes(raw),
        schema_version=shape.bundle_schema_version,
        producer=f"{shape.producer.name} {shape.producer.version}",
        session=document["session"],
        events=events,
        workflows=workflows,
        events_text=sections["events"],
    )


def too_large(size: int, max_bytes: int) -> WorkRailError:
    """BUNDLE_TOO_LARGE; `size` may be a lower bound (reading stops one byte past the limit)."""
    return _error(
        ErrorCode.BUNDLE_TOO_LARGE,
        f"The bundle is over {max_bytes:,} bytes ({size:,} or more); this store accepts bundles up to that size.",
        "Raise WORKRAIL_BUNDLE_MAX_MB for this import if you trust the file, or export a smaller session.",
        details={"maxBytes": max_bytes},
    )


def _parse(raw: bytes) -> dict[str, Any]:
    """The document, parsed once. Repeated keys need no check of their own: the parser keeps the last,
    so the document no longer serializes to the same bytes, and the canonical check refuses it."""
    try:
        text = raw.decode("utf-8")
        check_json_depth(raw, fmt.MAX_DEPTH)
        document = json.loads(text, parse_constant=_no_constant, parse_float=_finite)
    except NestedTooDeep:
        raise _corrupt(f"it is nested deeper than {fmt.MAX_DEPTH} levels") from None
    except _NotFinite as exc:
        raise _corrupt(f"it holds a number too large for JSON ({exc})") from None
    except UnicodeDecodeError:
        raise _corrupt("it is not UTF-8 text; it may not be a bundle at all") from None
    except json.JSONDecodeError as exc:
        if exc.pos == len(text) - len(text.lstrip()):
            # Not JSON from its first character: not a bundle cut short but another file (friction60b 15).
            raise _error(ErrorCode.BUNDLE_CORRUPT, _NOT_A_BUNDLE, _PICK_AGAIN) from None
        # Where the JSON stops making sense, in a person's words; the parser's own sentence ("Expecting
        # value: line 1 column 1 (char 0)") is for programmers.
        raise _corrupt(
            f"it is not complete JSON (it stops making sense at line {exc.lineno}, column {exc.colno}); "
            "it may have been cut short"
        ) from None
    except (ValueError, RecursionError) as exc:
        raise _corrupt(f"it is not complete JSON ({_first_line(exc)}); it may have been cut short") from None
    if not isinstance(document, dict):
        raise _corrupt("it is not a JSON object")
    return document


class _NotFinite(ValueError):
    pass


def _finite(text: str) -> float:
    """A JSON number with a fraction or exponent; one that overflows a double (1e400) is not a number
    any JSON writer produces, nor one the store can keep."""
    number = float(text)
    if not math.isfinite(number):
        raise _NotFinite(text[:40])
    return number


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _sections(document: dict[str, Any]) -> dict[str, bytes]:
    """Each top-level value in the one serialization. A lone surrogate (an escape such as \\ud800 that
    is half of a character) parses, but is not Unicode text: no UTF-8 can hold it."""
    try:
        return {name: fmt.serialize(value) for name, value in document.items()}
    except UnicodeEncodeError:
        where = _first_text(document, lambda text: _has_surrogate(text))
        raise _corrupt("it holds a lone surrogate (half of a character), which is not Unicode text", where) from None


def _has_surrogate(text: str) -> bool:
    try:
        text.encode()
    except UnicodeEncodeError:
        return True
    return False


def _refuse_nul(document: dict[str, Any]) -> None:
    """No store keeps U+0000 in text (PostgreSQL refuses it), and the live path refuses it in every
    argument; the escape in the raw bytes may also be an escaped backslash before 'u0000' (no NUL)."""
    where = _first_text(document, lambda text: "\x00" in text)
    if where is not None:
        raise _invalid("a text holds the NUL character (U+0000), which the store cannot keep", where)


def _first_text(value: Any, matches: Callable[[str], bool]) -> str | None:
    """A JSON pointer to the first string (value or key) in `value`, in document order, that `matches`;
    None when there is none. Walked without recursion (children pushed last first)."""
    stack: list[tuple[Any, tuple[str | int, ...]]] = [(value, ())]
    while stack:
        item, path = stack.pop()
        if isinstance(item, str):
            if matches(item):
                return pointer_to(*path)
        elif isinstance(item, dict):
            if any(matches(key) for key in item):
                return pointer_to(*path, next(key for key in item if matches(key)))
            stack.extend((child, (*path, key)) for key, child in reversed(item.items()))
        elif isinstance(item, list):
            stack.extend((item[index], (*path, index)) for index in reversed(range(len(item))))
    return None


def _check_version(document: dict[str, Any]) -> None:
    if document.get("kind") != fmt.BUNDLE_KIND:
        raise _corrupt(f"it does not say it is a WorkRail session bundle (kind {fmt.BUNDLE_KIND!r})")
    version = document.get("bundleSchemaVersion")
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise _corrupt("its bundleSchemaVersion is not a positive integer")
    if version > fmt.BUNDLE_SCHEMA_VERSION:
        raise _error(
            ErrorCode.BUNDLE_VERSION_UNSUPPORTED,
            f"The bundle has format version {version}; this WorkRail reads version {fmt.BUNDLE_SCHEMA_VERSION}.",
            "Upgrade WorkRail on this machine, or export the session with the WorkRail version used here.",
            details={"bundleSchemaVersion": version, "supported": fmt.BUNDLE_SCHEMA_VERSION},
        )
    if version != fmt.BUNDLE_SCHEMA_VERSION:
        raise _error(
            ErrorCode.BUNDLE_VERSION_UNSUPPORTED,
            f"The bundle has format version {version}, which this WorkRail no longer reads.",
            "Import it with the WorkRail version that made it, then export it again from there.",
            details={"bundleSchemaVersion": version, "supported": fmt.BUNDLE_SCHEMA_VERSION},
        )


def _check_shape(document: dict[str, Any]) -> BundleShape:
    try:
        return BundleShape.model_validate(document)
    except ValidationError as exc:
        first = exc.errors()[0]
        pointer = "/" + "/".join(str(part) for part in first["loc"])
        raise _invalid(f"at {pointer}: {first['msg']}", pointer) from None


def _check_manifest(document: dict[str, Any], sections: dict[str, bytes]) -> None:
    expected = fmt.manifest_from(sections, len(document["events"]), len(document["workflows"]))
    found = document[fmt.MANIFEST]
    if set(found["digests"]) != set(expected["digests"]):
        raise _corrupt("its manifest does not list exactly the bundle's sections")
    for name, digest in sorted(expected["digests"].items()):
        if found["digests"][name] != digest:
            raise _corrupt(f"the section '{name}' does not match its digest in the manifest")
    if found != expected:
        raise _corrupt("its manifest's counts do not match its content")


def _check_events(events: list[dict[str, Any]], session_id: str) -> None:
    for expected_seq, event in enumerate(events, 1):
        where = f"/events/{expected_seq - 1}"
        if event["seq"] != expected_seq:
            raise BundleProblem(
                f"event {expected_seq} is numbered {event['seq']} (events must be numbered 1, 2, ...)", where
            )
        if event["kind"] not in PAYLOADS or event["kind"] in SHARING_KINDS:
            raise BundleProblem(f"event {expected_seq} has a kind this store does not import: {event['kind']!r}", where)
        try:
            fmt.parse_timestamp(event["at"])
            payload = parse(event["kind"], event["data"])
        except (ValueError, TypeError, ValidationError) as exc:
            raise BundleProblem(
                f"event {expected_seq} ({event['kind']}) is malformed: {_first_line(exc)}", where
            ) from None
        if payload.data() != event["data"] or not _same_types(payload.data(), event["data"]):
            raise BundleProblem(f"event {expected_seq} ({event['kind']}) is not in its stored form", where)
    if not events or events[0]["kind"] != "session_created":
        raise BundleProblem("its first event must create the session", "/events/0")
    if events[0]["data"].get("sessionId") != session_id:
        raise BundleProblem("its first event names another session than its session section", "/events/0/data")
    if any(event["kind"] == "session_created" for event in events[1:]):
        raise BundleProblem("it creates its session more than once", "/events")


def _same_types(parsed: dict[str, Any], data: dict[str, Any]) -> bool:
    """Whether each field kept the type the payload model gives it: the model accepts 3.0 or true for
    an integer field, and they compare equal to 3 and 1, but the store would keep them as written."""
    return all(type(parsed[name]) is type(value) for name, value in data.items())


def _check_workflows(workflows: list[dict[str, Any]], events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The pinned workflows, each checked (exports/bundle/workflows.py) and in canonical form."""
    hashes = [workflow["workflowHash"] for workflow in workflows]
    if hashes != sorted(set(hashes)):
        raise BundleProblem("its workflows are not listed once each, in order of workflowHash", "/workflows")
    used = {event["data"]["workflowHash"] for event in events if event["kind"] == "run_started"}
    if used != set(hashes):
        raise BundleProblem("its workflows are not exactly those its runs are pinned to", "/workflows")
    return [{**workflow, "compiled": checked_workflow(workflow, index)} for index, workflow in enumerate(workflows)]


def _check_rules(
    events: list[dict[str, Any]], workflows: list[dict[str, Any]], session: dict[str, Any], now: datetime
) -> None:
    """The live path's rules (exports/bundle/rules.py), then the session section against what the
    events project to."""
    rules = Rules({w["workflowHash"]: (w["workflowId"], w["compiled"]) for w in workflows}, now)
    rules.check(events)
    projected = rules.summary()
    if projected != session:
        wrong = sorted(name for name in projected if projected[name] != session.get(name))
        raise BundleProblem(
            f"its session section disagrees with its events ({', '.join(wrong)})", "/session/" + (wrong or [""])[0]
        )


def _first_line(exc: Exception) -> str:
    return str(exc).strip().splitlines()[0][:300] if str(exc).strip() else type(exc).__name__


def _corrupt(why: str, pointer: str | None = None) -> WorkRailError:
    return _error(
        ErrorCode.BUNDLE_CORRUPT,
        f"The bundle is damaged: {why}.",
        _AGAIN,
        details={"pointer": pointer} if pointer is not None else None,
    )


def _invalid(why: str, pointer: str) -> WorkRailError:
    return _error(
        ErrorCode.BUNDLE_INVALID,
        f"The bundle is not a consistent session: {why}.",
        _AGAIN + " If it was made by a tool other than WorkRail, fix the part at details.pointer.",
        details={"pointer": pointer},
    )


def _error(code: ErrorCode, message: str, suggestion: str, *, details: dict[str, Any] | None = None) -> WorkRailError:
    return WorkRailError(code, message, suggestion, details=details or {})
