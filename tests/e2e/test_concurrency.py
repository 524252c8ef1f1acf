"""Many processes on one store: the SQLite file, or a PostgreSQL database when the suite runs there
(tests/e2e/stores.py). 16 replay the same (stateToken, ackToken) at the same time; 8 `manage.py mcp`
advance runs while the dashboard is read (tests/e2e/load_harness.py; bench/load.py is the long form)."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.e2e.conftest import server_env
from tests.e2e.load_harness import run_load
from tests.e2e.stores import shared_store
from tests.helpers import REPO

pytestmark = pytest.mark.e2e
WORKER = Path(__file__).with_name("concurrency_worker.py")
PROCESSES = 16


def test_concurrent_replays_advance_exactly_once_with_identical_answers(tmp_path):
    with shared_store(tmp_path / "home") as store:
        _replay_at_once(tmp_path, store)


def _replay_at_once(tmp_path, store):
    env = server_env(tmp_path / "home", **store.env)
    subprocess.run(
        [sys.executable, str(REPO / "manage.py"), "migrate", "--noinput"],
        env=env,
        check=True,
        capture_output=True,
        timeout=120,
    )
    started = subprocess.run(
        [sys.executable, str(WORKER), "start", "wr.bug_investigation"],
        env=env,
        check=True,
        capture_output=True,
        text=True,
        timeout=60,
    )
    start = json.loads(started.stdout)
    go = tmp_path / "go"
    workers = [
        subprocess.Popen(
            [sys.executable, str(WORKER), "ack", start["stateToken"], start["ackToken"], str(go)],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(PROCESSES)
    ]
    import time

    time.sleep(2.0)  # let every worker import Django and wait on the go file
    go.touch()
    results = [worker.communicate(timeout=120) for worker in workers]

    assert all(worker.returncode == 0 for worker in workers), [err for _, err in results]
    assert not any("database is locked" in err for _, err in results)
    payloads = [out for out, _ in results]
    assert all("error" not in json.loads(p) for p in payloads), payloads[0]
    assert len(set(payloads)) == 1  # byte-identical
    assert store.rows("SELECT count(*) FROM runs_ack") == [(1,)]
    assert store.rows("SELECT count(*) FROM runs_node") == [(2,)]
    seqs = [row[0] for row in store.rows("SELECT seq FROM runs_event ORDER BY seq")]
    assert seqs == list(range(1, len(seqs) + 1))


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
