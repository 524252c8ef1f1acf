"""SIGKILL `manage.py mcp` 50 times during advances, checkpoints and rewinds; nothing answered is lost.

The bounded CI form of bench/crash.py (see harness/crash.py for what is killed when and
what is checked). Most of its time is process start-up (about 1 s each on a 2-core machine), so the
work between kills is kept small (0-2 calls), never the number of kills. The store is SQLite (the
harness reads the file itself: PRAGMA integrity_check), whatever the suite's test database.

Then the same checks run on the store tampered with, and each must fail: a check that cannot fail
proves nothing.
"""

from __future__ import annotations

import contextlib
import sqlite3

from harness.crash import CrashCampaign

KILLS = 50
SEED = 20240611


def test_acknowledged_work_survives_sigkill_at_random_moments(tmp_path):
    campaign = CrashCampaign(tmp_path, SEED, calls_between_kills=(0, 2))
    campaign.run_kills(KILLS)
    figures = campaign.check_store()

    report = "\n".join(f"{'PASS' if ok else 'FAIL'} {name}: {detail}" for name, (ok, detail) in figures.checks.items())
    assert figures.ok, f"{report}\nserver logs: {tmp_path / 'servers.log'}"
    assert figures.kills >= KILLS
    assert sum(figures.in_flight.values()) >= KILLS // 2  # most kills hit a request in flight
    assert figures.replays_checked >= KILLS
    assert figures.rehydrates_checked == len(campaign.answers) > KILLS

    # A recorded answer changed behind the store's back, and a hole in a session's sequence.
    with contextlib.closing(sqlite3.connect(campaign.database)) as store, store:
        store.execute("UPDATE runs_ack SET response_json = json_set(response_json, '$.isComplete', 'tampered')")
        store.execute("UPDATE runs_session SET last_seq = last_seq + 1")
    figures.checks.clear()
    campaign.check_durability()
    campaign.check_event_log("event log gap-free")
    campaign.check_rebuild()  # the rebuild puts the recorded answers back from the log: not equal
    assert {name: ok for name, (ok, _) in figures.checks.items()} == {
        "durable": False,
        "event log gap-free": False,
        "rebuild equal": False,
    }, figures.checks
