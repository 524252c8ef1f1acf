"""Many processes on one store: the SQLite file, or a PostgreSQL database when the suite runs there
(harness/stores.py). Processes making the same call at the same moment all get the same answer, and
the store records the call once, as if it had come one at a time; 8 `manage.py mcp` advance runs while
the dashboard is read (harness/load.py; bench/load.py is the long form)."""

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from harness.load import run_load
from harness.processes import server_env
from harness.stores import SharedStore, shared_store
from tests.plugins.store_template import seed_home
from tests.support.paths import REPO

WORKER = Path(__file__).with_name("concurrency_worker.py")


@pytest.fixture
def store(tmp_path, migrated_store):
    """The shared store, up to date before the workers start: on SQLite a copy of a migrated one
    (tests/plugins/store_template.py), on PostgreSQL the new database migrated."""
    with shared_store(tmp_path / "home") as shared:
        if shared.vendor == "sqlite":
            seed_home(shared.home, migrated_store)
            yield shared
            return
        env = server_env(tmp_path / "home", **shared.env)
        subprocess.run(
            [sys.executable, str(REPO / "manage.py"), "migrate", "--noinput"],
            env=env,
            check=True,
            capture_output=True,
            timeout=120,
        )
        yield shared


def run_worker(store: SharedStore, *args: str) -> dict:
    env = server_env(store.home, **store.env)
    done = subprocess.run(
        [sys.executable, str(WORKER), *args], env=env, check=True, capture_output=True, text=True, timeout=60
    )
    return json.loads(done.stdout)


def at_once(store: SharedStore, tmp_path: Path, processes: int, *args: str) -> list[str]:
    """`processes` workers make the same call at the same moment; their answers, as printed."""
    env = server_env(store.home, **store.env)
    go = tmp_path / "go"
    workers = [
        subprocess.Popen(
            [sys.executable, str(WORKER), *args, str(go)],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(processes)
    ]
    time.sleep(2.0)  # let every worker import Django and wait on the go file
    go.touch()
    results = [worker.communicate(timeout=120) for worker in workers]
    assert all(worker.returncode == 0 for worker in workers), [err for _, err in results]
    assert not any("database is locked" in err for _, err in results)
    payloads = [out for out, _ in results]
    assert all("error" not in json.loads(p) for p in payloads), payloads[0]
    return payloads


def assert_gap_free(store: SharedStore) -> None:
    for (session,) in store.rows("SELECT DISTINCT session_id FROM runs_event"):
        seqs = [row[0] for row in store.rows(f"SELECT seq FROM runs_event WHERE session_id = {session} ORDER BY seq")]
        assert seqs == list(range(1, len(seqs) + 1))


def test_concurrent_replays_advance_exactly_once_with_identical_answers(store, tmp_path):
    start = run_worker(store, "start", "wr.evidence_first_bug_fix")
    payloads = at_once(store, tmp_path, 16, "ack", start["stateToken"], start["ackToken"])
    assert len(set(payloads)) == 1  # byte-identical
    assert store.rows("SELECT count(*) FROM runs_ack") == [(1,)]
    assert store.rows("SELECT count(*) FROM runs_node") == [(2,)]
    assert_gap_free(store)


def test_the_same_checkpoint_sent_at_once_is_recorded_once(store, tmp_path):
    start = run_worker(store, "start", "wr.evidence_first_bug_fix")
    payloads = at_once(store, tmp_path, 8, "checkpoint", start["stateToken"])
    assert len(set(payloads)) == 1
    assert store.rows("SELECT count(*) FROM runs_checkpoint") == [(1,)]
    assert_gap_free(store)


def test_runs_started_at_once_with_one_new_ticket_share_one_session(store, tmp_path):
    payloads = at_once(store, tmp_path, 8, "start-keyed", "wr.evidence_first_bug_fix", "T-1")
    assert len({json.loads(p)["session"]["sessionId"] for p in payloads}) == 1
    assert store.rows("SELECT count(*) FROM runs_session") == [(1,)]
    assert store.rows("SELECT count(*) FROM runs_run") == [(8,)]
    assert_gap_free(store)


LOAD_PROCESSES = 8
LOAD_SECONDS = 6.0


def test_eight_servers_and_the_dashboard_share_one_store_without_errors(tmp_path, capsys):
    """8 `manage.py mcp` advancing runs for a few seconds while the dashboard's sessions page and API are
    read: no error answer, no 'database is locked' anywhere, every agent progresses. Figures printed."""
    with shared_store(tmp_path / "home") as store:
        figures = run_load(tmp_path, LOAD_PROCESSES, LOAD_SECONDS, store.env)
    with capsys.disabled():  # the figures are the point: shown even when the test passes
        print(f"\nload on {store.vendor}: {figures.line()}")

    assert figures.errors == [] and figures.dashboard_errors == [], (figures.errors, figures.dashboard_errors)
    assert figures.locked == 0, f"'database is locked' in the logs of {tmp_path}"
    assert len(figures.advances_by_client) == LOAD_PROCESSES
    assert min(figures.advances_by_client) > 0, figures.advances_by_client  # every agent made progress
    assert len(figures.dashboard_seconds) > 0
