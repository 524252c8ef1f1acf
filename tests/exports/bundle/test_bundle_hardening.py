"""Bundles no live run could have written are refused before anything is written, with a pointer to
what is wrong; the doors answer them with the error, never a traceback or a 500; renaming ids on
import ends and touches only ids, whatever the ids are."""

from __future__ import annotations

import copy
import json
import re
import shutil
import threading
from pathlib import Path
from typing import Any

import pytest
from django.core.management import CommandError, call_command
from hypothesis import given, settings
from hypothesis import strategies as st

from exports.bundle import reading
from exports.bundle.ids import RUN_ID, SESSION_ID, IdMap, _rename
from exports.bundle.reading import read_bundle
from exports.bundles import export_session_bundle, import_session_bundle
from runs.contract.errors import ErrorCode, WorkRailError
from runs.models import PinnedWorkflow, Session
from runs.store.pinned import compiled_workflow
from tests.exports.bundle.forgery import append_event, events_of, forged, rename_run, repin, replaced_bytes
from tests.exports.bundle.support import empty_the_store, projections
from tests.fuzz.strategies import edge_text
from tests.support.fuzz_budget import examples
from tests.support.mcp_calls import continue_workflow, notes_for, start_workflow
from tests.support.paths import FIXTURE_WORKFLOWS

pytestmark = pytest.mark.django_db
FIXTURES = FIXTURE_WORKFLOWS


def small_bundle(dirs: dict[str, Path]) -> bytes:
    """A run of a workflow from a user directory, one step acknowledged, exported."""
    shutil.copy(FIXTURES / "step_fields.json", dirs["extra"] / "step_fields.json")
    start = start_workflow("fixture.step_fields", {"sessionKey": "SMALL-1"})
    continue_workflow(stateToken=start["stateToken"], ackToken=start["ackToken"], output=notes_for(start["pending"]))
    return export_session_bundle(Session.objects.get().public_id, via="command")


def refused(data: bytes) -> WorkRailError:
    with pytest.raises(WorkRailError) as caught:
        import_session_bundle(data, via="command")
    return caught.value


def store_state() -> Any:
    return projections(), PinnedWorkflow.objects.count()


def run_id_of(document: dict[str, Any]) -> str:
    return str(events_of(document, "run_started")[0]["data"]["runId"])


# --- ids: grammar, and a renaming that ends -------------------------------------------------------------


def test_an_empty_run_id_is_refused_where_its_other_ids_are_taken(service_catalog):
    """The original session is still in the store: an import would have to rename every id."""
    data = small_bundle(service_catalog)
    document = json.loads(data)
    bad = forged(data, lambda d: rename_run(d, run_id_of(document), ""))
    before = store_state()
    with pytest.raises(WorkRailError):  # refused by the checks before any write (an import would rename)
        read_bundle(bad, max_bytes=10**7)

    error = refused(bad)

    assert error.code == ErrorCode.BUNDLE_INVALID
    assert error.details["pointer"] == "/events/1/data/runId"
    assert "run id" in error.message and error.suggestion
    assert store_state() == before


def finishes(work: Any, seconds: float = 10) -> bool:
    """Whether `work()` returns within `seconds` (run in a thread; one that loops forever is left)."""
    thread = threading.Thread(target=work, daemon=True)
    thread.start()
    thread.join(seconds)
    return not thread.is_alive()


def refused_within(bad: bytes, seconds: float) -> WorkRailError:
    """The error reading `bad` raises, which it must raise within `seconds`."""
    outcome: list[WorkRailError] = []

    def read() -> None:
        try:
            read_bundle(bad, max_bytes=10**7)
        except WorkRailError as error:
            outcome.append(error)

    assert finishes(read, seconds=seconds)
    [error] = outcome
    return error


def test_renaming_ends_for_an_empty_id():
    events = [{"seq": 1, "kind": "run_started", "at": "x", "data": {"runId": "", "note": "a b"}}]
    ids = IdMap(session=("ses_" + "0" * 16, "ses_" + "1" * 16), runs={"": "run_" + "2" * 16})
    assert finishes(lambda: ids.events(events))
    assert finishes(lambda: _rename('{"runId": ""}', {"": "run_" + "2" * 16}))
    assert ids.events(events)[0]["data"] == {"runId": "run_" + "2" * 16, "note": "a b"}


# --- values no live run writes ------------------------------------------------------------------------


def _set_status(to: str) -> Any:
    def change(d: dict[str, Any]) -> None:
        append_event(d, "run_status_changed", {"runId": run_id_of(d), "from": "in_progress", "to": to})

    return change


def _node_field(name: str, value: Any, node: int = 0) -> Any:
    def change(d: dict[str, Any]) -> None:
        events_of(d, "node_created")[node]["data"][name] = value

    return change


def _session_preferences(d: dict[str, Any]) -> None:
    d["events"][0]["data"]["preferences"] = {"autonomy": "pwned", "riskPolicy": "balanced"}
    d["session"]["preferences"] = d["events"][0]["data"]["preferences"]


def _last_event_at(at: str) -> Any:
    def change(d: dict[str, Any]) -> None:
        d["events"][-1]["at"] = at
        d["session"]["lastActivityAt"] = at

    return change


def _with_first_step(d: dict[str, Any], **fields: Any) -> dict[str, Any]:
    compiled = d["workflows"][0]["compiled"]
    return {**compiled, "steps": [{**compiled["steps"][0], **fields}, *compiled["steps"][1:]]}


def _answer_twice(d: dict[str, Any]) -> None:
    [ack] = events_of(d, "step_acked")
    append_event(d, "step_acked", dict(ack["data"]))


def _title(title: str) -> Any:
    def change(d: dict[str, Any]) -> None:
        d["events"][0]["data"]["title"] = d["session"]["title"] = title

    return change


@pytest.mark.parametrize(
    ("change", "pointer"),
    [
        pytest.param(_set_status("pwned"), "/events/8/data/to", id="run status pwned"),
        pytest.param(_set_status("complete"), "/events/8/data/to", id="completed without run_completed"),
        pytest.param(_node_field("engineState", {"garbage": True}), "/events/2/data/engineState", id="engine state"),
        pytest.param(
            _node_field("engineState", {"version": 1, "workflowId": "fixture.step_fields", "complete": True}),
            "/events/2/data/engineState",
            id="engine state without cursor",
        ),
        pytest.param(
            _node_field("preferences", {"autonomy": "pwned", "riskPolicy": "balanced"}),
            "/events/2/data/preferences/autonomy",
            id="node preferences",
        ),
        pytest.param(_node_field("preferences", {}), "/events/2/data/preferences", id="node preferences empty"),
        pytest.param(_session_preferences, "/events/0/data/preferences/autonomy", id="session preferences"),
        pytest.param(lambda d: repin(d, 0, {}), "/workflows/0/compiled/compilerVersion", id="compiled workflow {}"),
        pytest.param(
            lambda d: repin(d, 0, {**d["workflows"][0]["compiled"], "steps": [{"kind": "step", "id": "x"}]}),
            "/workflows/0/compiled/steps/0",
            id="compiled step without title or prompt",
        ),
        pytest.param(
            lambda d: repin(d, 0, _with_first_step(d, kind=[])),
            "/workflows/0/compiled/steps/0",
            id="compiled step whose kind is a list",  # a TypeError once: "could not be checked" (seed 2036266101)
        ),
        pytest.param(
            lambda d: repin(d, 0, _with_first_step(d, declaredAsks={"context": "riskLevel"})),
            "/workflows/0/compiled/steps/0",
            id="declaredAsks that names no list",
        ),
        pytest.param(_node_field("depth", -7, node=1), "/events/4/data/depth", id="depth -7"),
        pytest.param(_node_field("depth", 2**70, node=1), "/events/4/data/depth", id="depth 2**70"),
        pytest.param(_node_field("depth", 5, node=1), "/events/4/data/depth", id="depth not its parent's + 1"),
        pytest.param(_node_field("depth", 1.0, node=1), "/events/4", id="depth written as a float"),
        pytest.param(_last_event_at("9999-12-31T23:59:59.000000Z"), "/events/7/at", id="year 9999"),
        pytest.param(_last_event_at("1970-01-01T00:00:00.000000Z"), "/events/7/at", id="before any store"),
        pytest.param(_answer_twice, "/events/8/data/attemptId", id="an ackToken answered twice"),
        pytest.param(_title("a\x00b"), "/events/0/data/title", id="NUL in a title"),
    ],
)
def test_what_no_live_run_writes_is_refused_with_a_pointer(service_catalog, change, pointer):
    data = small_bundle(service_catalog)
    empty_the_store()
    before = store_state()

    error = refused(forged(data, change))

    assert error.code == ErrorCode.BUNDLE_INVALID, error.message
    assert error.details["pointer"] == pointer, error.message
    # Not "Nothing was imported" in the message: the error is the refusal, which the import page heads "Not
    # imported:" (friction61a 5: said twice).
    assert "imported" not in error.message and error.suggestion
    assert store_state() == before


def test_a_consistent_forgery_of_the_session_section_is_refused_before_writing(service_catalog):
    data = small_bundle(service_catalog)
    empty_the_store()

    def claim_complete(d: dict[str, Any]) -> None:
        d["session"]["status"] = "complete"

    bad = forged(data, claim_complete)
    with pytest.raises(WorkRailError):
        read_bundle(bad, max_bytes=10**7)  # the checks made before any write
    error = refused(bad)

    assert error.code == ErrorCode.BUNDLE_INVALID
    assert error.details["pointer"] == "/session/status"


# --- numbers and text JSON cannot carry, at every door --------------------------------------------------

HOSTILE_BYTES = [
    pytest.param(b'"depth":1,', b'"depth":1e400,', id="1e400"),
    pytest.param(b'"title":"SMALL-1"', b'"title":"\\ud800"', id="lone surrogate"),
]


@pytest.mark.parametrize(("old", "new"), HOSTILE_BYTES)
def test_numbers_and_text_no_json_writer_makes_are_corrupt_at_every_door(service_catalog, api, tmp_path, old, new):
    bad = replaced_bytes(small_bundle(service_catalog), old, new)
    empty_the_store()
    before = store_state()

    assert refused(bad).code == ErrorCode.BUNDLE_CORRUPT
    path = tmp_path / "bad.json"
    path.write_bytes(bad)
    with pytest.raises(CommandError, match=r"\[BUNDLE_CORRUPT\]"):
        call_command("import_bundle", str(path))
    answer = api.post("/api/v1/bundles", data=bad, content_type="application/json")
    assert answer.status_code == 400, answer.content
    assert answer.json()["error"]["code"] == "BUNDLE_CORRUPT"
    assert answer.json()["error"]["retryable"] is False
    assert store_state() == before


def test_the_api_answers_a_semantic_forgery_with_the_error_and_its_pointer(service_catalog, api):
    bad = forged(small_bundle(service_catalog), _set_status("pwned"))
    empty_the_store()

    answer = api.post("/api/v1/bundles", data=bad, content_type="application/json")

    assert answer.status_code == 400, answer.content
    error = answer.json()["error"]
    assert error["code"] == "BUNDLE_INVALID" and error["details"]["pointer"] == "/events/8/data/to"
    assert Session.objects.count() == 0


def test_an_integer_json_hashing_cannot_write_is_refused(service_catalog):
    def huge(d: dict[str, Any]) -> None:
        d["workflows"][0]["compiled"]["steps"][0]["notesOptional"] = 2**60  # the hash is left as it was

    bad = forged(small_bundle(service_catalog), huge)
    empty_the_store()

    error = refused(bad)

    assert error.code == ErrorCode.BUNDLE_INVALID
    assert error.details["pointer"] == "/workflows/0/compiled"


# --- a pinned snapshot is this server's canonical form --------------------------------------------------


def test_a_snapshot_is_stored_in_canonical_form_and_served_so_to_later_runs(service_catalog):
    shutil.copy(FIXTURES / "loops_for_foreach.json", service_catalog["extra"] / "loops_for_foreach.json")
    start_workflow("fixture.loops_for_foreach", {"sessionKey": "LOOPS-1"})
    data = export_session_bundle(Session.objects.get().public_id, via="command")
    empty_the_store()

    def as_floats(d: dict[str, Any]) -> None:
        for step in d["workflows"][0]["compiled"]["steps"]:
            if step["kind"] == "loop":
                step["loop"]["maxIterations"] = float(step["loop"]["maxIterations"])

    forgery = forged(data, as_floats)
    assert b'"maxIterations":' in forgery and b".0," in forgery
    import_session_bundle(forgery, via="command")

    [pinned] = PinnedWorkflow.objects.all()
    loops = [s for s in pinned.compiled["steps"] if s["kind"] == "loop"]
    assert loops and all(type(s["loop"]["maxIterations"]) is int for s in loops)
    compiled_workflow.cache_clear()
    start_workflow("fixture.loops_for_foreach", {"sessionKey": "LOOPS-2"})  # a genuine run, same hash
    served = compiled_workflow(pinned.workflow_hash)
    assert all(type(s["loop"]["maxIterations"]) is int for s in served["steps"] if s["kind"] == "loop")


# --- renaming: a property over arbitrary ids ------------------------------------------------------------

FIELD_WORDS = ["seq", "kind", "at", "data", "runId", "nodeId", "advanced", "note", "sessionId", "x", "0", "é"]
PUNCTUATION = [" ", ", ", "\n", "\\", '"', "\\n", "\t", "/", ":", "_", "-", "\x1f"]
GRAMMAR_RUN = st.from_regex(r"\Arun_[0-9a-f]{16}\Z")
GRAMMAR_SESSION = st.from_regex(r"\Ases_[0-9a-f]{16}\Z")
ANY_ID = st.one_of(GRAMMAR_RUN, GRAMMAR_SESSION, st.sampled_from(["", *FIELD_WORDS, "run_", "ses_"]), edge_text(12))
WHOLE_WORDS = re.compile(r"\w+")


@st.composite
def renamings(draw: st.DrawFn) -> tuple[IdMap, list[dict[str, Any]]]:
    """An IdMap over arbitrary ids, and events naming them in their id fields and in free text."""
    session = (draw(ANY_ID), draw(ANY_ID))
    olds = draw(st.lists(ANY_ID, min_size=1, max_size=4, unique=True))
    runs = {old: draw(st.one_of(GRAMMAR_RUN, ANY_ID, st.sampled_from(olds))) for old in olds}
    nodes = {n: n + 1000 for n in range(1, 4)}
    pieces = st.sampled_from([*FIELD_WORDS, *PUNCTUATION, *olds, *runs.values(), session[0], session[1]])
    text = st.lists(pieces, max_size=8).map("".join)
    free = st.recursive(
        st.one_of(text, st.integers(), st.none(), st.booleans()),
        lambda children: st.one_of(
            st.lists(children, max_size=3), st.dictionaries(st.sampled_from(FIELD_WORDS), children, max_size=3)
        ),
        max_leaves=6,
    )
    events = [
        {
            "seq": 1,
            "kind": "session_created",
            "at": "t",
            "data": {"sessionId": session[0], "sessionKey": "k", "title": draw(text)},
        }
    ]
    for seq in range(2, draw(st.integers(2, 6))):
        data = {
            "runId": draw(st.sampled_from(olds)),
            "nodeId": draw(st.sampled_from(list(nodes))),
            "note": draw(text),
            "more": draw(free),
        }
        events.append(
            {
                "seq": seq,
                "kind": draw(st.sampled_from(["output_recorded", "warning_recorded"])),
                "at": "t",
                "data": data,
            }
        )
    return IdMap(session=session, runs=runs, nodes=nodes, session_key="key here"), events


def mentioned(ids: IdMap) -> dict[str, str]:
    """The renaming of free text the module promises: ses_/run_ ids, old and new, that change."""
    pairs = [ids.session, *ids.runs.items()]
    return {
        old: new
        for old, new in pairs
        if old != new and all(SESSION_ID.fullmatch(i) or RUN_ID.fullmatch(i) for i in (old, new))
    }


def expected_value(value: Any, mentions: dict[str, str]) -> Any:
    """Free data renamed, worked out another way: each maximal run of word characters that is an id."""
    if isinstance(value, str):
        return WHOLE_WORDS.sub(lambda m: mentions.get(m.group(0), m.group(0)), value)
    if isinstance(value, list):
        return [expected_value(item, mentions) for item in value]
    if isinstance(value, dict):
        return {key: expected_value(item, mentions) for key, item in value.items()}
    return value


@settings(deadline=None, database=None, max_examples=examples(300))
@given(renamings())
def test_renaming_rewrites_ids_and_their_mentions_only_and_always_ends(case):
    ids, events = case
    original = copy.deepcopy(events)
    renamed: list[dict[str, Any]] = []
    assert finishes(lambda: renamed.extend(ids.events(events)), seconds=20)
    assert events == original  # the bundle's own events are left as they were
    mentions = mentioned(ids)
    for before, after in zip(events, renamed, strict=True):
        assert after.keys() == before.keys() and after["data"].keys() == before["data"].keys()
        assert {k: after[k] for k in ("seq", "kind", "at")} == {k: before[k] for k in ("seq", "kind", "at")}
        data = before["data"]
        if before["kind"] == "session_created":
            assert after["data"]["sessionId"] == ids.session[1]
            assert after["data"]["sessionKey"] == "key here"
            assert after["data"]["title"] == expected_value(data["title"], mentions)
            continue
        assert after["data"]["runId"] == ids.runs[data["runId"]]
        assert after["data"]["nodeId"] == ids.nodes[data["nodeId"]]
        for name in ("note", "more"):
            assert after["data"][name] == expected_value(data[name], mentions), name


def test_a_workflow_whose_loops_would_keep_the_engine_busy_for_hours_is_refused_at_once(service_catalog):
    """Three loops inside each other, a thousand rounds each, around a step that is always skipped: the
    engine would walk a billion steps to start (or continue) a run of it."""

    def nested(d: dict[str, Any]) -> None:
        body: list[dict[str, Any]] = [
            {"kind": "step", "id": "never", "title": "Never", "prompt": "p", "runCondition": {"var": "x", "equals": 1}}
        ]
        for depth in range(3):
            loop = {"type": "for", "count": 1000, "maxIterations": 1000}
            body = [{"kind": "loop", "id": f"loop-{depth}", "title": "Loop", "loop": loop, "body": body}]
        repin(d, 0, {**d["workflows"][0]["compiled"], "steps": body})

    error = refused_within(forged(small_bundle(service_catalog), nested), seconds=30)
    assert error.code == ErrorCode.BUNDLE_INVALID
    assert error.details["pointer"] == "/workflows/0/compiled/steps" and "1,001,001,001 steps" in error.message


def test_a_pattern_that_backtracks_is_matched_in_linear_time(service_catalog):
    """The bundle brings both a contract whose pattern backtracks catastrophically in Python's re and an
    artifact that sets it off: checked with RE2, the import is refused at once."""
    contract = {
        "contractRef": "team.pattern",
        "required": False,
        "artifactKind": "team.pattern",
        "schema": {"type": "object", "properties": {"v": {"type": "string", "pattern": "^(a+)+$"}}},
        "example": {"kind": "team.pattern", "v": "aaa"},
    }

    def backtracking(d: dict[str, Any]) -> None:
        compiled = d["workflows"][0]["compiled"]
        compiled["steps"][0]["outputContract"] = contract
        repin(d, 0, compiled)
        events_of(d, "output_recorded")[0]["data"]["artifacts"] = [{"kind": "team.pattern", "v": "a" * 64 + "!"}]

    error = refused_within(forged(small_bundle(service_catalog), backtracking), seconds=30)
    assert error.code == ErrorCode.BUNDLE_INVALID and "team.pattern" in error.message
    assert error.details["pointer"] == "/events/6/data/artifacts/0/v"


def test_a_file_that_is_not_json_is_refused_in_a_persons_words():
    for raw, said in (
        (b"not a bundle", "This is not a WorkRail bundle (not JSON). Did you pick the right file?"),
        (b"  \n<html>", "This is not a WorkRail bundle (not JSON)."),
        (b'{"a": 1,\n  "b": ', "it stops making sense at line 2, column 8"),
        (b"\xff\xfe{}", "it is not UTF-8 text"),
    ):
        with pytest.raises(WorkRailError) as problem:
            reading._parse(raw)
        assert said in str(problem.value) and "Expecting" not in str(problem.value), str(problem.value)
        # Only a file that breaks after its start reads as cut short (friction60b 15).
        assert ("cut short" in str(problem.value)) == (raw.startswith(b"{")), str(problem.value)
