"""rebuild_projections owns every table the projector writes: a store with notes-only sessions,
checkpoints, observations and once-per-run warnings rebuilds to exactly what was stored."""

import pytest

from runs import events
from runs.models import EventKind, SearchEntry
from runs.rebuild import rebuild_projections
from tests.calls import checkpoint_workflow, start_session, start_workflow
from tests.projection_snapshot import snapshot

pytestmark = pytest.mark.django_db


def test_a_store_with_a_notes_only_session_and_its_checkpoints_rebuilds_equal(service_catalog, settings):
    settings.WORKRAIL_ENABLE_START_SESSION = True
    notes = start_session(title="Caching spike", sessionKey="cache-spike", tags=["perf"])
    checkpoint_workflow(sessionToken=notes["sessionToken"], output={"notesMarkdown": "LRU beats TTL."})
    checkpoint_workflow(sessionToken=notes["sessionToken"], output={"notesMarkdown": "Measured: 3x fewer misses."})
    run = start_workflow("wr.bug_investigation", mode="unattended")  # with a once-per-run warning
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
