"""16 processes replay the same (stateToken, ackToken) against one store at the same time: the SQLite
file, or a PostgreSQL database when the suite runs there (tests/e2e/stores.py)."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.e2e.conftest import server_env
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
