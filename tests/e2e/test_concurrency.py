"""16 processes replay the same (stateToken, ackToken) against one SQLite file at the same time."""

import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from tests.e2e.conftest import server_env
from tests.helpers import REPO

pytestmark = pytest.mark.e2e
WORKER = Path(__file__).with_name("concurrency_worker.py")
PROCESSES = 16


def test_concurrent_replays_advance_exactly_once_with_identical_answers(tmp_path):
    env = server_env(tmp_path / "home")
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
    database = sqlite3.connect(tmp_path / "home" / "workrail.sqlite3")
    assert database.execute("SELECT count(*) FROM runs_ack").fetchone()[0] == 1
    assert database.execute("SELECT count(*) FROM runs_node").fetchone()[0] == 2
    seqs = [row[0] for row in database.execute("SELECT seq FROM runs_event ORDER BY seq")]
    assert seqs == list(range(1, len(seqs) + 1))
