"""Fuzzing the MCP boundary in-process: `runs.mcp.tools.call`, the one way a tool call is run
(issue 11, part 3). Wrong types, unknown fields, values around and far past each documented bound,
deep nesting, unicode edge cases, random tokens and mutations of real ones.

Properties, for every call:
- `call` returns a ToolOutcome, never raises;
- an error answer has a code of runs.contract.errors.ErrorCode other than INTERNAL_ERROR, a message and a
  non-empty suggestion, and stays small (under 64 KiB: nothing echoes a huge input);
- every answer is JSON the server can send (UTF-8 encodable when the input was);
- a refused call changes nothing: the rows of every table of the store are the same before and after
  (tool timings and rate buckets aside, which record calls, not work);
- a mutated token never verifies as another node: it is refused, or it names the very same node.
"""

from __future__ import annotations

import json
import math
from typing import Any

import pytest
from django.apps import apps
from hypothesis import given
from hypothesis import strategies as st

from runs.contract.errors import ErrorCode
from runs.contract.inputs import (
    MAX_CONTEXT_BYTES,
    MAX_CONTEXT_DEPTH,
    MAX_NOTES_BYTES,
    MAX_OUTPUT_BYTES,
    MAX_TOKEN_CHARS,
    MAX_WORKFLOW_ID_CHARS,
)
from runs.mcp.tools import ToolOutcome, call, tool_specs
from runs.store.tokens import _WRAPPING
from tests.fuzz.strategies import (
    EDGE_STRINGS,
    any_arguments,
    deep,
    deep_values,
    edge_text,
    fuzz,
    json_values,
    mutated_token,
    random_tokens,
    sized_text,
    wrong_types,
)

pytestmark = pytest.mark.django_db

MAX_ERROR_BYTES = 64 * 1024
WORKFLOW = "wr.evidence_first_bug_fix"
TOOLS = sorted(tool_specs())
NOT_COUNTED = {"ToolCall", "RateBucket"}  # a record of the call itself, not of work
TOKEN_CODES = {
    ErrorCode.TOKEN_MALFORMED,
    ErrorCode.TOKEN_VERSION_UNSUPPORTED,
    ErrorCode.TOKEN_BAD_SIGNATURE,
    ErrorCode.TOKEN_UNKNOWN,
    ErrorCode.TOKEN_SCOPE_MISMATCH,
    ErrorCode.INVALID_INPUT,  # longer than a token may be, empty, or not a string
}


@pytest.fixture
def store(service_catalog, settings):
    """Every tool on, no rate limit in the way of hundreds of calls on one run."""
    settings.WORKRAIL_ENABLE_CHECKPOINT = True
    settings.WORKRAIL_ENABLE_START_SESSION = True
    settings.WORKRAIL_ENABLE_RESUME_SESSION = True
    settings.WORKRAIL_RATE_LIMIT_BURST = 100_000
    settings.WORKRAIL_RATE_LIMIT_PER_MINUTE = 1_000_000
    return service_catalog


@pytest.fixture
def run(store) -> dict[str, Any]:
    """A real run and a notes-only session: their tokens are what the mutations start from."""
    started = call("start_workflow", {"workflowId": WORKFLOW, "context": {"ticketId": "FUZZ-1"}})
    assert not started.is_error, started.text
    session = call("start_session", {"title": "fuzz", "sessionKey": "fuzz"})
    assert not session.is_error, session.text
    return {
        "stateToken": started.structured["stateToken"],
        "ackToken": started.structured["ackToken"],
        "sessionToken": session.structured["sessionToken"],
        "runId": started.structured["session"]["runId"],
    }


def store_counts() -> dict[str, int]:
    return {
        model.__name__: model.objects.count()
        for model in apps.get_app_config("runs").get_models()
        if model.__name__ not in NOT_COUNTED
    }


def store_rows() -> dict[str, list[tuple[Any, ...]]]:
    """Every row of every counted table: a refused call must not even touch a timestamp."""
    return {
        model.__name__: list(model.objects.order_by("pk").values_list())
        for model in apps.get_app_config("runs").get_models()
        if model.__name__ not in NOT_COUNTED
    }


def has_lone_surrogate(value: Any) -> bool:
    """Whether a string (or an object's key) anywhere in `value` cannot be written as UTF-8. Such input
    cannot come through JSON-RPC (the SDK refuses it); in-process it may be echoed as it came."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            try:
                item.encode("utf-8")
            except UnicodeEncodeError:
                return True
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return False


def nesting(value: Any) -> int:
    """How deep arrays and objects nest in `value`, without recursion."""
    deepest, stack = 0, [(value, 0)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, dict | list):
            level += 1
            deepest = max(deepest, level)
            stack.extend((child, level) for child in (item.values() if isinstance(item, dict) else item))
    return deepest


def has_non_finite(value: Any) -> bool:
    """Whether `value` holds a NaN or an infinity (which JSON-RPC clients can send: the SDK parses them)."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, float) and not math.isfinite(item):
            return True
        if isinstance(item, dict | list):
            stack.extend(item.values() if isinstance(item, dict) else item)
    return False


def checked_call(name: Any, arguments: Any) -> ToolOutcome:
    """`call` with the properties every answer has; returns the outcome for more specific checks."""
    before = store_rows()
    outcome = call(name, arguments)  # raising here fails the test: the boundary must never raise
    assert isinstance(outcome, ToolOutcome)
    assert isinstance(outcome.structured, dict) and isinstance(outcome.text, str) and outcome.text
    body = json.dumps(outcome.structured, ensure_ascii=False)
    if not has_lone_surrogate([name, arguments]):
        body.encode("utf-8")  # the server could not send an answer that is not UTF-8
        outcome.text.encode("utf-8")
    if outcome.is_error:
        error = outcome.structured["error"]
        assert error["code"] in set(ErrorCode), error
        assert error["code"] != ErrorCode.INTERNAL_ERROR, (name, error)
        assert isinstance(error["message"], str) and error["message"], error
        assert isinstance(error["suggestion"], str) and error["suggestion"].strip(), error
        assert isinstance(error["retryable"], bool), error
        size = len(body.encode("utf-8", "surrogatepass"))
        assert size < MAX_ERROR_BYTES, f"a {size}-byte error answer: {error['code']} {error['message'][:200]}"
        assert len(outcome.text) < MAX_ERROR_BYTES
        assert store_rows() == before, f"the refused call ({error['code']}) changed the store"
    return outcome


def error_code(outcome: ToolOutcome) -> str | None:
    return outcome.structured["error"]["code"] if outcome.is_error else None


def valid_arguments(tool: str, run: dict[str, Any]) -> dict[str, Any]:
    """Arguments each tool accepts, from which one field at a time is spoiled."""
    return {
        "list_workflows": {"kind": "workflow", "namespace": "wr"},
        "inspect_workflow": {"workflowId": WORKFLOW, "mode": "preview"},
        "start_workflow": {
            "workflowId": WORKFLOW,
            "context": {"ticketId": "FUZZ-2", "severity": "high"},
            "preferences": {"autonomy": "guided", "riskPolicy": "balanced"},
            "mode": "guided",
        },
        "continue_workflow": {
            "stateToken": run["stateToken"],
            "ackToken": run["ackToken"],
            "context": {"severity": "high"},
            "output": {
                "notesMarkdown": "Reproduced it.",
                "artifacts": [{"kind": "wr.loop_control", "decision": "stop"}],
            },
            "preferences": {"autonomy": "guided"},
            "mode": "guided",
        },
        "checkpoint_workflow": {"stateToken": run["stateToken"], "output": {"notesMarkdown": "Progress."}},
        "start_session": {"title": "Spike", "sessionKey": "spike", "tags": ["perf"]},
        "resume_session": {"query": "FUZZ", "gitBranch": "main", "gitHeadSha": "0" * 40, "workspacePath": "/tmp/x"},
    }[tool]


# --- anything as the name and the arguments ---------------------------------------------------------------


@fuzz(80)
@given(
    name=st.one_of(st.sampled_from(TOOLS), edge_text(30), st.sampled_from(["", "list_workflows ", "LIST_WORKFLOWS"])),
    arguments=any_arguments,
)
def test_any_arguments_to_any_tool(store, name, arguments):
    outcome = checked_call(name, arguments)
    if name not in TOOLS:
        assert error_code(outcome) == ErrorCode.INVALID_INPUT
        assert len(outcome.structured["error"]["message"]) < 1000


# --- one field at a time: wrong types, unknown fields, unicode ------------------------------------------

# Where a value sits in a tool's arguments: a top-level field, or a path into one.
FIELDS: dict[str, list[tuple[str, ...]]] = {
    "list_workflows": [("kind",), ("namespace",)],
    "inspect_workflow": [("workflowId",), ("mode",)],
    "start_workflow": [
        ("workflowId",),
        ("context",),
        ("context", "ticketId"),
        ("context", "sessionKey"),
        ("context", "severity"),
        ("preferences",),
        ("preferences", "autonomy"),
        ("mode",),
    ],
    "continue_workflow": [
        ("stateToken",),
        ("ackToken",),
        ("context",),
        ("context", "ticketId"),
        ("output",),
        ("output", "notesMarkdown"),
        ("output", "artifacts"),
        ("output", "artifacts", 0),
        ("output", "artifacts", 0, "kind"),
        ("output", "artifacts", 0, "decision"),
        ("preferences",),
        ("mode",),
    ],
    "checkpoint_workflow": [
        ("stateToken",),
        ("sessionToken",),
        ("output",),
        ("output", "notesMarkdown"),
        ("output", "artifacts"),
    ],
    "start_session": [("title",), ("sessionKey",), ("tags",), ("tags", 0)],
    "resume_session": [("query",), ("gitBranch",), ("gitHeadSha",), ("workspacePath",)],
}
TOOL_FIELDS = [(tool, path) for tool, paths in FIELDS.items() for path in paths]


def with_value(arguments: dict[str, Any], path: tuple[Any, ...], value: Any) -> dict[str, Any]:
    """A copy of `arguments` (small, valid ones) with `value` (perhaps huge or deep) at `path`."""
    arguments = json.loads(json.dumps(arguments))
    target: Any = arguments
    for part in path[:-1]:
        if isinstance(part, int):
            while len(target) <= part:
                target.append({})
        elif part not in target or not isinstance(target[part], dict | list):
            target[part] = [] if isinstance(path[path.index(part) + 1], int) else {}
        target = target[part]
    if isinstance(path[-1], int):
        while len(target) <= path[-1]:
            target.append(None)
    target[path[-1]] = value
    return arguments


@fuzz(100)
@given(field=st.sampled_from(TOOL_FIELDS), value=wrong_types)
def test_wrong_types_in_each_field(run, field, value):
    tool, path = field
    checked_call(tool, with_value(valid_arguments(tool, run), path, value))


@fuzz(40)
@given(
    tool=st.sampled_from(TOOLS),
    key=st.one_of(edge_text(20), st.sampled_from(["workflow_id", "WorkflowId", "state_token", "__proto__", "id"])),
    value=json_values(4),
)
def test_unknown_fields_are_refused(run, tool, key, value):
    arguments = valid_arguments(tool, run)
    if key in arguments:
        return
    outcome = checked_call(tool, {**arguments, key: value})
    assert error_code(outcome) == ErrorCode.INVALID_INPUT, outcome.structured


@fuzz(80)
@given(field=st.sampled_from(TOOL_FIELDS), text=edge_text(60))
def test_unicode_edge_cases_in_each_field(run, field, text):
    tool, path = field
    checked_call(tool, with_value(valid_arguments(tool, run), path, text))


@fuzz(40)
@given(
    key=st.one_of(st.sampled_from(EDGE_STRINGS), edge_text(30)),
    value=st.one_of(st.sampled_from(EDGE_STRINGS), json_values(8)),
)
def test_unicode_edge_cases_in_context_keys_and_values(run, key, value):
    checked_call("start_workflow", {"workflowId": WORKFLOW, "context": {key: value, "ticketId": "FUZZ-3"}})
    checked_call(
        "continue_workflow",
        {
            "stateToken": run["stateToken"],
            "ackToken": run["ackToken"],
            "context": {key: value},
            "output": {"notesMarkdown": f"notes {key!r}", "artifacts": [{"kind": "wr.fuzz", key: value}]},
        },
    )


# --- sizes: just under, at, just over and far over each documented bound ----------------------------------

# (tool, path, limit, counted in UTF-8 bytes)
BOUNDS: list[tuple[str, tuple[Any, ...], int, bool]] = [
    ("inspect_workflow", ("workflowId",), MAX_WORKFLOW_ID_CHARS, False),
    ("start_workflow", ("workflowId",), MAX_WORKFLOW_ID_CHARS, False),
    ("start_workflow", ("context", "sessionKey"), 200, False),
    ("start_workflow", ("context", "ticketId"), 190, False),
    ("continue_workflow", ("stateToken",), MAX_TOKEN_CHARS, False),
    ("continue_workflow", ("ackToken",), MAX_TOKEN_CHARS, False),
    ("continue_workflow", ("context", "ticketId"), 190, False),
    ("continue_workflow", ("output", "notesMarkdown"), MAX_NOTES_BYTES, True),
    ("continue_workflow", ("output", "artifacts", 0, "kind"), 200, False),
    ("checkpoint_workflow", ("stateToken",), MAX_TOKEN_CHARS, False),
    ("checkpoint_workflow", ("output", "notesMarkdown"), MAX_NOTES_BYTES, True),
    ("list_workflows", ("namespace",), 100, False),
    ("start_session", ("title",), 200, False),
    ("start_session", ("sessionKey",), 200, False),
    ("start_session", ("tags", 0), 60, False),
    ("resume_session", ("query",), 500, False),
    ("resume_session", ("gitBranch",), 255, False),
    ("resume_session", ("gitHeadSha",), 64, False),
    ("resume_session", ("workspacePath",), 1024, False),
]


@fuzz(80)
@given(data=st.data(), bound=st.sampled_from(BOUNDS))
def test_values_around_each_bound(run, data, bound):
    tool, path, limit, in_bytes = bound
    text = data.draw(sized_text(limit, byte_limit=in_bytes), label="text")
    arguments = valid_arguments(tool, run)
    if tool == "checkpoint_workflow":
        arguments = {"stateToken": run["stateToken"], "output": {"notesMarkdown": "x"}}
    outcome = checked_call(tool, with_value(arguments, path, text))
    size = len(text.encode()) if in_bytes else len(text)
    if size > limit:
        assert error_code(outcome) == ErrorCode.INVALID_INPUT, (path, size, outcome.structured)
        assert text[:64] not in outcome.text or len(text) < 64, "the refusal echoes the value"
    elif outcome.is_error:
        assert outcome.structured["error"]["code"] != ErrorCode.INVALID_INPUT or "larger" not in outcome.text


def padded_object(total_bytes: int) -> dict[str, Any]:
    return {"blob": "z" * max(total_bytes - 12, 0)}


@fuzz(24)
@given(
    where=st.sampled_from(["start-context", "continue-context", "artifacts", "checkpoint-artifacts", "tags"]),
    scale=st.sampled_from([0.5, 0.99, 1.01, 4]),
)
def test_whole_objects_around_their_bounds(run, where, scale):
    if where == "start-context":
        outcome = checked_call(
            "start_workflow", {"workflowId": WORKFLOW, "context": padded_object(int(MAX_CONTEXT_BYTES * scale))}
        )
        limit_hit = scale > 1
    elif where == "continue-context":
        outcome = checked_call(
            "continue_workflow",
            {
                "stateToken": run["stateToken"],
                "ackToken": run["ackToken"],
                "context": padded_object(int(MAX_CONTEXT_BYTES * scale)),
                "output": {"notesMarkdown": "n"},
            },
        )
        limit_hit = scale > 1
    elif where in {"artifacts", "checkpoint-artifacts"}:
        artifact = {"kind": "wr.fuzz", **padded_object(int(MAX_OUTPUT_BYTES * scale))}
        output = {"notesMarkdown": "n", "artifacts": [artifact]}
        if where == "artifacts":
            arguments = {"stateToken": run["stateToken"], "ackToken": run["ackToken"], "output": output}
            outcome = checked_call("continue_workflow", arguments)
        else:
            outcome = checked_call("checkpoint_workflow", {"stateToken": run["stateToken"], "output": output})
        limit_hit = scale > 1
    else:
        count = int(20 * scale) + (1 if scale > 1 else 0)
        outcome = checked_call("start_session", {"tags": ["t"] * count})
        limit_hit = count > 20
    if limit_hit:
        assert error_code(outcome) == ErrorCode.INVALID_INPUT, (where, scale, outcome.structured)
    assert len(json.dumps(outcome.structured)) < 256 * 1024, "an answer carries a huge input back"


# (tool, where an unknown key or a huge value goes)
ECHO_CASES: list[tuple[str, tuple[Any, ...]]] = [
    ("(tool name)", ()),
    *[(tool, ("<key>",)) for tool in TOOLS],
    ("start_workflow", ("preferences", "<key>")),
    ("start_workflow", ("context", "<key>")),
    ("continue_workflow", ("output", "<key>")),
    ("continue_workflow", ("output", "artifacts", 0, "<key>")),
    ("continue_workflow", ("output", "artifacts", 0, "decision")),
    ("continue_workflow", ("context", "severity")),
    ("checkpoint_workflow", ("output", "artifacts", 0, "<key>")),
    ("checkpoint_workflow", ("output", "artifacts", 0, "decision")),
    ("inspect_workflow", ("mode",)),
    ("start_workflow", ("mode",)),
    ("start_workflow", ("preferences", "autonomy")),
    ("list_workflows", ("kind",)),
]


@fuzz(40)
@given(case=st.sampled_from(ECHO_CASES), size=st.sampled_from([70_000, 200_000]), char=st.sampled_from("ké😀"))
def test_huge_names_keys_and_values_are_not_echoed(run, case, size, char):
    """Whatever is huge in a call (a tool name, an unknown field's name, an artifact's key or value, a
    value where a closed set is expected), a refusal stays small (checked_call)."""
    tool, path = case
    huge = char * size
    if tool == "(tool name)":
        checked_call(huge, {})
        return
    arguments = valid_arguments(tool, run)
    if tool == "checkpoint_workflow":
        arguments = {"stateToken": run["stateToken"], "output": {"notesMarkdown": "n", "artifacts": [{"kind": "k"}]}}
    if path[-1] == "<key>":
        parent = with_value(arguments, (*path[:-1], "placeholder"), 1)
        target: Any = parent
        for part in path[:-1]:
            target = target[part]
        del target["placeholder"]
        target[huge] = 1
        checked_call(tool, parent)
    else:
        checked_call(tool, with_value(arguments, path, huge))


# --- deep nesting -----------------------------------------------------------------------------------------


@fuzz(40)
@given(
    where=st.sampled_from(
        ["start-context", "continue-context", "artifact", "checkpoint-artifact", "notes", "arguments"]
    ),
    value=deep_values,
)
def test_deep_values(run, where, value):
    if where == "start-context":
        checked_call("start_workflow", {"workflowId": WORKFLOW, "context": {"deep": value}})
    elif where == "continue-context":
        checked_call(
            "continue_workflow",
            {
                "stateToken": run["stateToken"],
                "ackToken": run["ackToken"],
                "context": {"deep": value},
                "output": {"notesMarkdown": "n"},
            },
        )
    elif where == "artifact":
        checked_call(
            "continue_workflow",
            {
                "stateToken": run["stateToken"],
                "ackToken": run["ackToken"],
                "output": {"notesMarkdown": "n", "artifacts": [{"kind": "wr.fuzz", "deep": value}]},
            },
        )
    elif where == "checkpoint-artifact":
        checked_call(
            "checkpoint_workflow",
            {
                "stateToken": run["stateToken"],
                "output": {"notesMarkdown": "n", "artifacts": [{"kind": "k", "d": value}]},
            },
        )
    elif where == "notes":
        checked_call("checkpoint_workflow", {"stateToken": run["stateToken"], "output": {"notesMarkdown": value}})
    else:
        checked_call("list_workflows", value)


# --- tokens -----------------------------------------------------------------------------------------------


TOKEN_PLACES = ["stateToken", "ackToken", "checkpoint-state", "sessionToken"]


def call_with_token(run: dict[str, Any], where: str, token: Any) -> Any:
    """The call that reads `token` as the `where` of TOKEN_PLACES: a rehydrate (stateToken), an
    acknowledgement of the run's pending step (ackToken), or a checkpoint by state or session token."""
    if where == "stateToken":
        return checked_call("continue_workflow", {"stateToken": token})
    if where == "ackToken":
        arguments = {"stateToken": run["stateToken"], "ackToken": token, "output": {"notesMarkdown": "n"}}
        return checked_call("continue_workflow", arguments)
    key = "stateToken" if where == "checkpoint-state" else "sessionToken"
    return checked_call("checkpoint_workflow", {key: token, "output": {"notesMarkdown": "n"}})


@fuzz(80)
@given(where=st.sampled_from(TOKEN_PLACES), token=st.one_of(random_tokens, wrong_types))
def test_random_tokens_are_refused_as_tokens(run, where, token):
    outcome = call_with_token(run, where, token)
    if outcome.is_error:
        assert error_code(outcome) in TOKEN_CODES, outcome.structured
    elif where == "ackToken" and token is None:  # an ackToken of null is no ackToken: the pending step again
        assert outcome.structured["stateToken"] == run["stateToken"]
    else:  # only a wrapped copy of a real token can pass
        assert isinstance(token, str) and token.strip(_WRAPPING) in run.values(), token


def same_token(mutated: str, original: str) -> bool:
    """The token's own documented leniency: wrapping quotes, backticks and whitespace are stripped."""
    return len(mutated) <= MAX_TOKEN_CHARS and mutated.strip(_WRAPPING) == original


@fuzz(80)
@given(data=st.data(), which=st.sampled_from(TOKEN_PLACES))
def test_mutated_tokens_never_verify_as_another_node(run, data, which):
    original = run["stateToken" if which == "checkpoint-state" else which]
    mutated = data.draw(mutated_token(original), label="mutated")
    outcome = call_with_token(run, which, mutated)
    if outcome.is_error:
        assert error_code(outcome) in TOKEN_CODES, outcome.structured
        return
    assert same_token(mutated, original), f"{mutated!r} (from {original!r}) was accepted"
    answer = outcome.structured
    if which == "stateToken":
        assert answer["stateToken"] == original
    if which in {"stateToken", "ackToken", "checkpoint-state"}:
        assert answer["session"]["runId"] == run["runId"]


# --- regressions for the bugs the fuzzing found ----------------------------------------------------------


@pytest.mark.parametrize("tool", ["start_workflow", "continue_workflow"])
@pytest.mark.parametrize("depth", [500, 3000])
def test_a_deeply_nested_context_is_invalid_input(run, tool, depth):
    arguments = {"workflowId": WORKFLOW} if tool == "start_workflow" else {**run, "output": {"notesMarkdown": "n"}}
    arguments.pop("sessionToken", None)
    arguments.pop("runId", None)
    before = store_counts()
    outcome = call(tool, {**arguments, "context": {"deep": deep(depth)}})
    assert error_code(outcome) == ErrorCode.INVALID_INPUT
    assert "/context" in outcome.structured["error"]["message"]
    assert store_counts() == before


def test_a_context_nested_up_to_the_bound_is_accepted(run):
    outcome = call("start_workflow", {"workflowId": WORKFLOW, "context": {"deep": deep(MAX_CONTEXT_DEPTH - 1)}})
    assert not outcome.is_error, outcome.structured
    outcome = call("start_workflow", {"workflowId": WORKFLOW, "context": {"deep": deep(MAX_CONTEXT_DEPTH)}})
    assert error_code(outcome) == ErrorCode.INVALID_INPUT
    assert f"nested deeper than {MAX_CONTEXT_DEPTH} levels" in outcome.structured["error"]["message"]


@pytest.mark.parametrize("tool", ["start_workflow", "continue_workflow"])
@pytest.mark.parametrize("value", [float("nan"), float("inf"), [1, {"x": float("-inf")}]], ids=["nan", "inf", "nested"])
def test_nan_or_infinity_in_context_is_invalid_input(run, tool, value):
    if tool == "start_workflow":
        arguments = {"workflowId": WORKFLOW}
    else:
        arguments = {"stateToken": run["stateToken"], "ackToken": run["ackToken"], "output": {"notesMarkdown": "n"}}
    before = store_rows()
    outcome = call(tool, {**arguments, "context": {"severity": "high", "x": value}})
    assert error_code(outcome) == ErrorCode.INVALID_INPUT, outcome.structured
    assert "/context" in outcome.structured["error"]["message"]
    assert store_rows() == before


def test_an_unknown_tool_name_is_not_echoed(store):
    outcome = call("x" * 100_000, {})
    assert error_code(outcome) == ErrorCode.INVALID_INPUT
    assert len(json.dumps(outcome.structured)) + len(outcome.text) < MAX_ERROR_BYTES


@pytest.mark.parametrize(
    ("tool", "arguments"),
    [
        ("inspect_workflow", {"workflowId": WORKFLOW}),
        ("start_session", {}),
        ("start_workflow", {"workflowId": WORKFLOW, "preferences": {}}),
    ],
)
def test_an_unknown_field_name_is_not_echoed(store, tool, arguments):
    huge = "k" * 100_000
    where = "preferences" if "preferences" in arguments else None
    arguments = {**arguments, "preferences": {huge: 1}} if where else {**arguments, huge: 1}
    outcome = call(tool, arguments)
    assert error_code(outcome) == ErrorCode.INVALID_INPUT
    assert len(json.dumps(outcome.structured)) + len(outcome.text) < MAX_ERROR_BYTES


@pytest.mark.parametrize("artifact", ["value", "key"])
def test_artifact_problems_do_not_echo_huge_names_or_values(run, artifact):
    huge = "d" * 100_000
    sent = (
        {"kind": "wr.loop_control", "decision": huge} if artifact == "value" else {"kind": "wr.loop_control", huge: 1}
    )
    outcome = call(
        "checkpoint_workflow",
        {"stateToken": run["stateToken"], "output": {"notesMarkdown": "n", "artifacts": [sent]}},
    )
    assert error_code(outcome) == ErrorCode.ARTIFACT_INVALID
    assert len(json.dumps(outcome.structured)) < MAX_ERROR_BYTES
    assert len(outcome.text) < MAX_ERROR_BYTES
