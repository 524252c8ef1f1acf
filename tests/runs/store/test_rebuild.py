"""rebuild_projections owns every table the projector writes: a store with notes-only sessions,
checkpoints, observations and once-per-run warnings rebuilds to exactly what was stored."""

import pytest

from harness.projections import snapshot
from runs.execution.operator_fork import fork_node
from runs.models import EventKind, Node, SearchEntry
from runs.store import events, tokens
from runs.store.rebuild import rebuild_projections
from runs.store.tokens import TokenKind
from tests.support.mcp_calls import ack, checkpoint_workflow, continue_workflow, start_session, start_workflow
from tests.support.operator_fork import RELEASE, START_CONTEXT, install_release

pytestmark = pytest.mark.django_db


def test_a_store_with_a_notes_only_session_and_its_checkpoints_rebuilds_equal(service_catalog, settings):
    settings.WORKRAIL_ENABLE_START_SESSION = True
    notes = start_session(title="Caching spike", sessionKey="cache-spike", tags=["perf"])
    checkpoint_workflow(sessionToken=notes["sessionToken"], output={"notesMarkdown": "LRU beats TTL."})
    checkpoint_workflow(sessionToken=notes["sessionToken"], output={"notesMarkdown": "Measured: 3x fewer misses."})
    run = start_workflow("wr.evidence_first_bug_fix", mode="unattended")  # with a once-per-run warning
    checkpoint_workflow(stateToken=run["stateToken"], output={"notesMarkdown": "Reproduced it."})
    before = snapshot()
    assert SearchEntry.objects.filter(run__isnull=True).count() == 1
    rebuild_projections()
    assert snapshot() == before
    rebuild_projections()  # and again: nothing piles up
    assert snapshot() == before
    assert SearchEntry.objects.filter(run__isnull=True).count() == 1


def test_every_event_kind_has_one_payload_model_whose_json_reads_back_the_same():
    assert set(events.PAYLOADS) == {kind.value for kind in EventKind}
    sample = events.RunStatusChanged(run_id="run_1", from_status="in_progress", to="blocked")
    assert sample.data() == {"runId": "run_1", "from": "in_progress", "to": "blocked"}
    assert events.parse("run_status_changed", sample.data()) == sample
    with pytest.raises(ValueError, match="runId"):
        events.parse("run_status_changed", {"from": "a", "to": "b"})


@pytest.mark.django_db(transaction=True)
def test_a_rebuild_holds_the_write_lock_one_session_at_a_time_so_agents_keep_working(service_catalog):
    from django.db import connection

    from tests.support.sample_session import advance

    answers = [start_workflow("wr.routine-focused_plan", context={"sessionKey": f"k{i}"}) for i in range(3)]
    seen = []

    def progress(done, total, events):
        seen.append((done, total, connection.in_atomic_block))
        if done == 1:  # an agent advances between two sessions of the rebuild: it is not blocked
            advance(answers[2], "Written while the store was being rebuilt.")

    counts = rebuild_projections(progress)
    assert [(d, t, locked) for d, t, locked in seen] == [(1, 3, False), (2, 3, False), (3, 3, False)]
    assert counts["sessions"] == 3
    before = snapshot()
    rebuild_projections()
    assert snapshot() == before  # what the agent wrote meanwhile was rebuilt too


def test_a_gap_in_one_session_stops_the_rebuild_there_with_a_clear_message(service_catalog, capsys):
    from django.core.management import CommandError, call_command
    from django.db import connection

    from runs.models import Event, Session

    first = start_workflow("wr.routine-focused_plan", context={"sessionKey": "first"})
    second = start_workflow("wr.routine-focused_plan", context={"sessionKey": "second"})
    damaged = Session.objects.get(public_id=second["session"]["sessionId"])
    assert Event.objects.filter(session=damaged, seq=2).exists()
    with connection.cursor() as cursor:  # damage the log the only way there is: below the ORM
        cursor.execute("DELETE FROM runs_event WHERE session_id = %s AND seq = 2", [damaged.pk])
    with pytest.raises(CommandError, match="gap before seq") as refused:
        call_command("rebuild_projections")
    assert "Sessions before it were rebuilt" in str(refused.value)
    assert Session.objects.get(public_id=first["session"]["sessionId"]).run_count == 1


def test_the_command_shows_progress_and_counts(service_catalog, capsys):
    from django.core.management import call_command

    start_workflow("wr.routine-focused_plan")
    call_command("rebuild_projections")
    out, err = capsys.readouterr()
    assert "1/1 sessions (100%)" in err
    assert out.startswith("Rebuilt projections from ") and "in 1 sessions" in out


def test_a_store_with_an_operator_fork_rebuilds_equal(service_catalog, settings):
    """The fork's node (its parent, its edited context, its ackToken) comes back from the log alone."""
    install_release(service_catalog["extra"])
    start = start_workflow(RELEASE, context=START_CONTEXT)
    ack(start)
    root = tokens.parse(settings.WORKRAIL_HOME, start["stateToken"], TokenKind.STATE).id
    forked = fork_node(root, {"target": "production", "service": None}, "Production, no service.", via="api")
    ack(continue_workflow(**forked.call.arguments.dump()))
    before = snapshot()
    rebuild_projections()
    assert snapshot() == before
    child = Node.objects.get(public_id=int(forked.node_id))
    assert child.engine_state["context"] == {"target": "production", "ticketId": "REL-7"}
    assert child.parent.public_id == root and child.run.branch_count == 2


def test_runs_with_traces_rebuild_to_the_same_traces(service_catalog):
    from runs.models import Node
    from tests.support.traced_run import install, traced_run

    install(service_catalog["extra"])
    run = traced_run()
    branch = traced_run(until="verify")  # a second run, with a checkpoint (its node has no trace)
    checkpoint_workflow(stateToken=branch.answers[-1]["stateToken"], output={"notesMarkdown": "Slice 1 half done."})
    traces = list(Node.objects.filter(run__public_id=run.run_id).values_list("trace", flat=True))
    assert len(traces) == 7 and all(trace and trace["entries"] for trace in traces)
    assert Node.objects.filter(run__public_id=branch.run_id, trace__isnull=True).count() == 1
    before = snapshot()
    rebuild_projections()
    assert snapshot() == before


def test_a_node_created_event_keeps_its_stored_form_with_or_without_a_trace():
    fields = {
        "runId": "run_1",
        "nodeId": 7,
        "parentNodeId": None,
        "depth": 0,
        "notesOnPath": 0,
        "engineState": {},
        "preferences": {},
        "pendingStepId": "a",
        "isComplete": False,
    }
    assert events.parse("node_created", fields).data() == fields  # recorded before traces: no trace key
    traced = {**fields, "trace": {"entries": [{"kind": "selected", "stepId": "a", "title": "A"}]}}
    assert events.parse("node_created", traced).data() == traced
    for hostile in ({"entries": "x" * 100}, {"entries": [{"kind": "selected", "stepId": "a", "title": "A" * 10**5}]}):
        with pytest.raises(ValueError, match="trace"):
            events.parse("node_created", {**fields, "trace": hostile})


def test_a_refused_answer_keeps_what_the_agent_sent_and_rebuilds_equal(service_catalog):
    """A refusal records what the agent sent, in short (the dashboard shows it); other answers are
    stored as before, without the key."""
    from runs.models import Ack, AckOutcome, Event
    from tests.support.branched_review import blocked_review

    stuck = blocked_review()
    refused = Ack.objects.get(outcome=AckOutcome.BLOCKED)
    assert refused.refused == {
        "notesPreview": "Listed the files in my head.",
        "artifactKinds": [],
        "artifactCount": 0,
        "contextKeys": [],
    }
    acked = Event.objects.filter(session__public_id=stuck.session_id, kind=EventKind.STEP_ACKED).order_by("seq")
    assert ["refused" in event.data for event in acked] == [False, True]
    before = snapshot()
    rebuild_projections()
    assert snapshot() == before
    fields = {"runId": "run_1", "nodeId": 1, "attemptId": 2, "childNodeId": None, "outcome": "blocked"}
    fields |= {"outputDigest": "sha256:" + "0" * 64, "response": "{}"}
    with pytest.raises(ValueError, match="short summary"):
        events.parse("step_acked", {**fields, "refused": {"notesPreview": "x" * 10**5}})


def test_which_chat_started_a_run_and_when_it_was_imported_rebuild_equal(service_catalog):
    # Run.client_name and Run.imported_at (the run pages' which-chat line) are kept by the projector as events
    # are recorded, by a bundle's import, and by a rebuild from the log alike.
    from exports.bundles import export_session_bundle, import_session_bundle
    from runs.models import Run
    from runs.store.actors import Actor, Door, acting_as
    from tests.exports.bundle.support import empty_the_store

    with acting_as(Actor("", Door.STDIO, client_name="claude-code")):
        start = start_workflow("wr.routine-focused_plan")
    run_id = start["session"]["runId"]
    row = Run.objects.get(public_id=run_id)
    assert (row.client_name, row.imported_at) == ("claude-code", None)
    data = export_session_bundle(start["session"]["sessionId"], via="api")
    empty_the_store()
    import_session_bundle(data, via="api")
    imported = Run.objects.get(public_id=run_id)
    assert imported.client_name == "claude-code" and imported.imported_at is not None
    assert imported.imported_at > imported.created_at
    with acting_as(Actor("", Door.STDIO, client_name="cursor")):
        later = start_workflow("wr.routine-focused_plan")
    fresh = Run.objects.get(public_id=later["session"]["runId"])
    assert (fresh.client_name, fresh.imported_at) == ("cursor", None)
    before = snapshot()
    rebuild_projections()
    assert snapshot() == before
