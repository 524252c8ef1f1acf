"""Session bundles: a resumable round trip, determinism, no tokens, and refusals that change nothing."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from django.test import override_settings

from exports.bundle import document as fmt
from exports.bundle.ids import _rename
from exports.bundle.reading import read_bundle
from exports.bundles import export_session_bundle, import_session_bundle
from runs.contract.errors import ErrorCode, WorkRailError
from runs.models import Event, EventKind, PinnedWorkflow, Run, Session
from runs.store.rebuild import rebuild_projections
from tests.exports.bundle.support import (
    declared_ids,
    empty_the_store,
    id_renaming,
    projections,
    session_with_everything,
    tokens_in,
)
from tests.support.fuzz_budget import stride
from tests.support.mcp_calls import (
    checkpoint_workflow,
    continue_workflow,
    notes_for,
    resume_session,
    start_session,
    start_workflow,
)
from tests.support.paths import FIXTURE_WORKFLOWS
from tests.support.sample_session import SESSION_KEY, advance

pytestmark = pytest.mark.django_db
FIXTURES = FIXTURE_WORKFLOWS
SMALL = "fixture.step_fields"


def rewritten(data: bytes, change: Any) -> bytes:
    """The bundle after `change(document)`, with its manifest made to match again: what a careful
    forger (or another tool) would write. Only the consistency checks can refuse it."""
    document = json.loads(data)
    change(document)
    del document[fmt.MANIFEST]
    document[fmt.MANIFEST] = fmt.manifest_for(document)
    return fmt.dumps(document)


def refused(data: bytes) -> WorkRailError:
    with pytest.raises(WorkRailError) as caught:
        import_session_bundle(data, via="command")
    return caught.value


def small_session(dirs: dict[str, Path]) -> dict[str, Any]:
    """A run of a workflow from a user directory (not bundled), one step acknowledged."""
    shutil.copy(FIXTURES / "step_fields.json", dirs["extra"] / "step_fields.json")
    start = start_workflow(SMALL, {"sessionKey": "SMALL-1"})
    return continue_workflow(
        stateToken=start["stateToken"], ackToken=start["ackToken"], output=notes_for(start["pending"])
    )


def store_state() -> tuple[dict[str, list[str]], int, int]:
    return projections(), Event.objects.count(), PinnedWorkflow.objects.count()


def test_it_round_trips_a_forked_session_into_an_empty_store(service_catalog, settings):
    settings.WORKRAIL_ENABLE_RESUME_SESSION = True
    built = session_with_everything()
    original = Session.objects.get(public_id=built.session_id)
    assert original.run_count == 3 and original.branch_count >= 3
    before, ids_before = projections(), declared_ids(original.pk)
    data = export_session_bundle(built.session_id, via="command")
    empty_the_store()

    result = import_session_bundle(data, via="command")

    assert result.kept_ids and result.session.public_id == built.session_id
    after = projections(id_renaming(ids_before, declared_ids(result.session.pk), {}))
    assert after == before
    kinds = list(Event.objects.filter(session=result.session).values_list("kind", flat=True))
    assert kinds[-1] == EventKind.SESSION_IMPORTED
    assert {EventKind.GAP_RECORDED, EventKind.CHECKPOINT_RECORDED, EventKind.OUTPUT_RECORDED} <= set(kinds)
    # Then an agent picks the imported session up and finishes a run of it, with tokens minted here.
    candidates = resume_session(query=SESSION_KEY)["candidates"]
    [plan] = [c for c in candidates if c["runId"] == built.plan_run]
    answer = continue_workflow(stateToken=plan["stateToken"])
    for _ in range(20):
        if answer["isComplete"]:
            break
        answer = advance(answer, "Carried on after the import.")
    assert answer["isComplete"] is True
    assert Run.objects.get(public_id=built.plan_run).status == "complete"


def test_an_imported_run_resumes_and_finishes_without_its_workflow_file(service_catalog, settings):
    settings.WORKRAIL_ENABLE_RESUME_SESSION = True
    moved = small_session(service_catalog)
    session_id = moved["session"]["sessionId"]
    data = export_session_bundle(session_id, via="command")
    empty_the_store()
    (service_catalog["extra"] / "step_fields.json").unlink()  # this machine has never seen the file

    import_session_bundle(data, via="command")

    [found] = [c for c in resume_session(query="SMALL-1")["candidates"] if c["sessionId"] == session_id]
    answer = continue_workflow(stateToken=found["stateToken"])
    assert answer["pending"]["stepId"] == moved["pending"]["stepId"]
    for _ in range(5):
        if answer["isComplete"]:
            break
        answer = continue_workflow(
            stateToken=answer["stateToken"], ackToken=answer["ackToken"], output=notes_for(answer["pending"])
        )
    assert answer["isComplete"] is True
    assert Run.objects.get(public_id=moved["session"]["runId"]).status == "complete"


def test_importing_beside_the_original_makes_a_new_session_and_touches_nothing(service_catalog):
    built = session_with_everything()
    original = Session.objects.get(public_id=built.session_id)
    data = export_session_bundle(built.session_id, via="command")
    before_original = projections()

    result = import_session_bundle(data, via="command", as_copy=True)  # asked for: see test_bundle_duplicates.py

    assert not result.kept_ids
    imported = result.session
    assert imported.public_id != built.session_id
    assert imported.session_key == f"{SESSION_KEY} (copy)"
    assert imported.title == f"{original.session_key} (copy)"  # named after the session it copies
    assert not set(declared_ids(imported.pk)) & set(declared_ids(original.pk))
    # Ids inside recorded answers and syntheses follow: nothing in the copy names the original's runs.
    copied = Event.objects.filter(session=imported).exclude(kind=EventKind.SESSION_IMPORTED)
    copy_text = json.dumps(list(copied.values_list("data", flat=True)))
    assert built.review_run not in copy_text and built.session_id not in copy_text
    assert Run.objects.filter(session=imported).count() == 3
    # The original's rows are all still there, unchanged; the copy's are the same rows with other ids.
    after = projections()
    for table, rows in before_original.items():
        assert set(rows) <= set(after[table]), table
    second = import_session_bundle(data, via="command", as_copy=True).session
    assert (second.session_key, second.title) == (f"{SESSION_KEY} (copy 2)", f"{original.session_key} (copy 2)")
    rebuild_projections()  # the copy's title is in its events: a rebuild keeps it
    assert Session.objects.get(pk=imported.pk).title == f"{SESSION_KEY} (copy)"


def test_exports_are_deterministic_and_recorded_without_counting_as_activity(service_catalog):
    built = session_with_everything()
    session = Session.objects.get(public_id=built.session_id)
    first = export_session_bundle(built.session_id, via="command")
    second = export_session_bundle(built.session_id, via="dashboard")

    assert first == second
    assert Session.objects.get(pk=session.pk).updated_at == session.updated_at
    records = Event.objects.filter(session=session, kind=EventKind.SESSION_EXPORTED)
    assert [r.data["via"] for r in records.order_by("seq")] == ["command", "dashboard"]
    assert records.first().data["digest"] == fmt.digest_bytes(first)
    document = json.loads(first)
    assert EventKind.SESSION_EXPORTED not in {e["kind"] for e in document["events"]}
    assert document["bundleSchemaVersion"] == 1 and document["kind"] == "workrail.session-bundle"


def test_a_bundle_holds_no_token_and_no_key(service_catalog):
    built = session_with_everything()
    data = export_session_bundle(built.session_id, via="command")
    assert tokens_in(data) == []
    assert built.answers[0]["stateToken"].encode() not in data
    home = Path(service_catalog["home"])
    for secret in [p for p in home.rglob("*") if p.is_file() and "key" in p.name]:
        assert secret.read_bytes().strip() not in data


def test_the_bundle_describes_its_runs_graph(service_catalog):
    built = session_with_everything()
    document = json.loads(export_session_bundle(built.session_id, via="command"))
    [review] = [r for r in document["graph"]["runs"] if r["runId"] == built.review_run]
    nodes = {n["nodeId"] for n in review["nodes"]}
    assert all(e["from"] in nodes and e["to"] in nodes for e in review["edges"])
    assert {e["via"] for e in review["edges"]} == {"step", "checkpoint"}
    forks = [n for n in nodes if sum(e["from"] == n for e in review["edges"]) > 1]
    assert len(forks) == 2
    snapshot = document["events"][review["nodes"][0]["snapshotSeq"] - 1]
    assert snapshot["kind"] == "node_created" and "engineState" in snapshot["data"]
    assert {w["workflowHash"] for w in document["workflows"]} == {r["workflowHash"] for r in document["graph"]["runs"]}


def test_every_single_byte_change_is_refused_and_changes_nothing(service_catalog):
    small_session(service_catalog)
    session = Session.objects.get()
    data = export_session_bundle(session.public_id, via="command")
    assert len(data) < 16_000, "keep this bundle small: every byte is changed once"
    before = store_state()
    codes = set()
    for position in range(0, len(data), stride()):  # every byte; every fifth in the quick loop
        for flip in (0x01, 0x20):
            changed = data[:position] + bytes([data[position] ^ flip]) + data[position + 1 :]
            codes.add(refused(changed).code)
    assert codes <= {ErrorCode.BUNDLE_CORRUPT, ErrorCode.BUNDLE_INVALID, ErrorCode.BUNDLE_VERSION_UNSUPPORTED}
    for length in [0, 1, *range(7, len(data), 97), len(data) - 1]:
        assert refused(data[:length]).code == ErrorCode.BUNDLE_CORRUPT
    assert store_state() == before


def test_a_consistent_looking_but_wrong_bundle_is_rolled_back_whole(service_catalog):
    built = session_with_everything()
    data = export_session_bundle(built.session_id, via="command")
    empty_the_store()
    before = store_state()

    def claim_another_status(document):
        document["session"]["status"] = "canceled"

    error = refused(rewritten(data, claim_another_status))

    assert error.code == ErrorCode.BUNDLE_INVALID and "status" in error.message
    assert store_state() == before  # the pinned workflows and every event it had written are gone again


@pytest.mark.parametrize(
    ("change", "code", "words"),
    [
        (lambda d: d.update(bundleSchemaVersion=2), ErrorCode.BUNDLE_VERSION_UNSUPPORTED, "Upgrade"),
        (lambda d: d["events"][3]["data"].update(nodeId=12345), ErrorCode.BUNDLE_INVALID, "declare"),
        (lambda d: d["events"].pop(), ErrorCode.BUNDLE_INVALID, "graph index"),
        (lambda d: d["events"][1].update(seq=7), ErrorCode.BUNDLE_INVALID, "numbered"),
        (lambda d: d["events"][1].update(kind="session_exported"), ErrorCode.BUNDLE_INVALID, "does not import"),
        (lambda d: d["workflows"][0]["compiled"].update(name="Changed"), ErrorCode.BUNDLE_CORRUPT, "workflowHash"),
        (lambda d: d["workflows"].clear(), ErrorCode.BUNDLE_INVALID, "pinned"),
        (lambda d: d["events"][0]["data"].update(surprise=1), ErrorCode.BUNDLE_INVALID, "malformed"),
    ],
)
def test_inconsistent_bundles_are_refused_with_a_pointer(service_catalog, change, code, words):
    small_session(service_catalog)
    data = export_session_bundle(Session.objects.get().public_id, via="command")
    before = store_state()
    error = refused(rewritten(data, change))
    assert error.code == code, error.message
    assert words in error.message + error.suggestion
    assert error.suggestion
    assert store_state() == before


def test_an_oversized_bundle_is_refused_before_it_is_parsed(service_catalog):
    with override_settings(WORKRAIL_BUNDLE_MAX_MB=1):
        error = refused(b"{" * (1024 * 1024 + 1))
    assert error.code == ErrorCode.BUNDLE_TOO_LARGE
    assert "WORKRAIL_BUNDLE_MAX_MB" in error.suggestion


def test_hostile_json_is_refused_as_corrupt(service_catalog):
    for hostile in (b"[" * 100_000, b'{"a": NaN}', b'{"kind": 1, "kind": 2}', b"\xff\xfe", b"null", b'"x"'):
        assert read_bundle_code(hostile) == ErrorCode.BUNDLE_CORRUPT


def read_bundle_code(raw: bytes) -> ErrorCode:
    with pytest.raises(WorkRailError) as caught:
        read_bundle(raw, max_bytes=10_000_000)
    return caught.value.code


def test_an_unknown_session_is_not_found(service_catalog):
    with pytest.raises(WorkRailError) as caught:
        export_session_bundle("ses_0000000000000000", via="command")
    assert caught.value.code == ErrorCode.NOT_FOUND


def test_a_notes_only_session_round_trips(service_catalog, settings):
    settings.WORKRAIL_ENABLE_START_SESSION = True
    session = start_session(title="Caching spike", sessionKey="cache-spike", tags=["perf"])
    checkpoint_workflow(sessionToken=session["sessionToken"], output={"notesMarkdown": "LRU beats TTL."})
    session_id = Session.objects.get().public_id
    before = projections()
    data = export_session_bundle(session_id, via="command")
    assert json.loads(data)["workflows"] == []
    empty_the_store()

    import_session_bundle(data, via="command")

    assert projections() == before


def test_an_import_that_loses_a_race_for_its_ids_tries_again(service_catalog, monkeypatch):
    """Two imports of one bundle at once can both find its ids free: they are checked before the staged
    rows are written. The one that then meets the other's (a unique key, when it writes or publishes)
    removes what it staged and tries again, finding the other's rows and picking new ids."""
    from django.utils import timezone

    from exports.bundle import importing

    small_session(service_catalog)
    data = export_session_bundle(Session.objects.get().public_id, via="command")
    empty_the_store()
    real_plan, plans = importing._plan_ids, []

    def plan_then_lose_the_race(bundle, copy_of=None):
        ids = real_plan(bundle, copy_of)
        plans.append(ids)
        if len(plans) == 1:  # the other import publishes the session id first
            Session.objects.create(public_id=ids.session[1], created_at=timezone.now(), updated_at=timezone.now())
        return ids

    monkeypatch.setattr(importing, "_plan_ids", plan_then_lose_the_race)
    result = import_session_bundle(data, via="command")
    assert len(plans) == 2 and not result.kept_ids
    assert result.session.public_id != plans[0].session[1]
    assert Session.objects.count() == 2 and not Session.objects.filter(importing=True).exists()


@pytest.mark.parametrize("fast", [True, False])
def test_renaming_replaces_whole_ids_only_however_it_is_done(fast):
    old_run, new_run = "run_" + "0123456789abcdef", "run_" + "fedcba9876543210"
    old_ses, new_ses = "ses_" + "00000000000000aa", "ses_" + "00000000000000bb"
    text = f'{{"runId": "{old_run}", "note": "see {old_run}, {old_ses}."'
    if not fast:  # an occurrence inside a longer word forces the careful path
        text += f', "more": ["x{old_run}", "{old_run}0"]'
    text += "}"
    renamed = _rename(text, {old_run: new_run, old_ses: new_ses})
    assert renamed.count(new_run) == 2 and renamed.count(new_ses) == 1
    assert old_run not in renamed.replace(f"x{old_run}", "").replace(f"{old_run}0", "")
    if not fast:
        assert f"x{old_run}" in renamed and f"{old_run}0" in renamed
