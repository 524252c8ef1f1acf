"""Retention: `manage.py cleanup` on a store with 10,000 expired sessions.

The store is a SQLite file (WAL, as `make run` uses). A few sessions are built through the real
services (start_workflow, continue_workflow with notes and artifacts, checkpoint_workflow): runs of
three workflows, each with a few nodes, attempts, acks, outputs, a checkpoint, search entries and
their events. Those are then copied row for row, table by table, with fresh primary keys and public
ids, up to 10,000 sessions whose last activity is 90 days ago. (The copies' event payloads still name
the originals' ids: cleanup never reads a payload, and the rows keep their real sizes.) A few hundred
sessions with recent activity use one of the three workflows, so cleanup must tell them apart and
keeps that pinned workflow while it deletes the other two.

Figures: time of `cleanup --dry-run` and of `cleanup`, the longest batch transaction (how long an
agent can wait for the write lock), the slowest write of an agent checkpointing on a kept session all
through the cleanup, and peak memory (tracemalloc: Python allocations during the cleanup, on a fresh
copy of the same store; plus the process's peak RSS). With --compare-collector, also Django's own
`Session.objects.filter(...).delete()` on the same store. A benchmark: it asserts nothing.

    .venv/bin/python bench/cleanup.py [--sessions 10000] [--kept 500] [--templates 25] [--batch-size N]
        [--compare-collector]
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import shutil
import sys
import tempfile
import threading
import time
import tracemalloc
from collections.abc import Mapping
from datetime import timedelta
from io import StringIO
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from bench._common import REPO, clean_env
from harness.answers import context_for  # plausible values for what a step expects: runs move on

WORKFLOWS = ["wr.routine-focused_plan", "wr.change_in_slices", "wr.risk_scaled_mr_review"]
KEPT_WORKFLOW = "wr.routine-focused_plan"
EXPIRED_DAYS = 90


def setup(home: Path, project: Path) -> Path:
    # A benchmark writes faster than any agent: lift the write limit.
    os.environ.update(clean_env(home, WORKRAIL_PROJECT_DIR=str(project), WORKRAIL_RATE_LIMIT_BURST="100000"))
    os.environ["DJANGO_SETTINGS_MODULE"] = "workrail_site.settings"
    import django
    from django.conf import settings
    from django.core.management import call_command

    django.setup()
    call_command("migrate", verbosity=0)
    return Path(str(settings.DATABASES["default"]["NAME"]))


def output_for(pending: dict[str, Any] | None, index: int) -> dict[str, Any]:
    output: dict[str, Any] = {"notesMarkdown": f"Step {index}: looked at the module, **nothing unusual**.\n\n- a\n- b"}
    contract = (pending or {}).get("outputContract") or {}
    if contract.get("example"):
        output["artifacts"] = [contract["example"]]
    return output


def build_session(workflow_id: str, key: str, steps: int) -> Mapping[str, Any]:
    """A session through the services: a run with `steps` acknowledged steps and a checkpoint."""
    from runs.mcp.tools import invoke

    answer = invoke("start_workflow", {"workflowId": workflow_id, "context": {"sessionKey": key, "changeRef": "!1"}})
    first = answer
    for index in range(steps):
        if answer.get("kind") == "complete" or not answer.get("ackToken"):
            break
        answer = invoke(
            "continue_workflow",
            {
                "stateToken": answer["stateToken"],
                "ackToken": answer["ackToken"],
                "output": output_for(answer.get("pending"), index),
                "context": context_for(answer.get("pending")),
            },
        )
    invoke("checkpoint_workflow", {"stateToken": answer["stateToken"], "output": {"notesMarkdown": "Halfway."}})
    return first


def copy_sessions(template_pks: list[int], copies: int) -> None:
    """`copies` copies of every template session, each row of each table under it copied with its
    primary key and every foreign key shifted by that table's span, and fresh public ids."""
    from django.db import transaction

    from runs.models import Session
    from runs.store.journal import random_id
    from runs.store.retention import DELETION_ORDER

    models = [model for model, _ in reversed(DELETION_ORDER)]  # parents first
    rows = {}
    for model, path in reversed(DELETION_ORDER):
        rows[model] = list(model._default_manager.filter(**{path: template_pks}).order_by("pk").values())
    span = {
        model: (model._default_manager.order_by("-pk").values_list("pk", flat=True).first() or 0) for model in models
    }
    foreign = {
        model: [
            (f.attname, f.related_model)
            for f in model._meta.concrete_fields
            if f.is_relation and f.related_model in span
        ]
        for model in models
    }
    rng = random.Random(5)
    for copy in range(1, copies + 1):
        with transaction.atomic():
            for model in models:
                made = []
                for row in rows[model]:
                    values = dict(row, id=row["id"] + span[model] * copy)
                    for attname, target in foreign[model]:
                        if values[attname] is not None:
                            values[attname] += span[target] * copy
                    if "public_id" in values:
                        old = values["public_id"]
                        values["public_id"] = (
                            random_id() if isinstance(old, int) else f"{old[:4]}{rng.getrandbits(64):016x}"
                        )
                    if model is Session and values["session_key"]:
                        values["session_key"] = f"{values['session_key']}-{copy}"
                    made.append(model(**values))
                model._default_manager.bulk_create(made, batch_size=500)


def table_counts() -> dict[str, int]:
    from runs.models import Event, Node, PinnedWorkflow, Run, Session

    return {
        "sessions": Session.objects.count(),
        "runs": Run.objects.count(),
        "nodes": Node.objects.count(),
        "events": Event.objects.count(),
        "pinned": PinnedWorkflow.objects.count(),
    }


def build_store(sessions: int, kept: int, templates: int) -> str:
    """Builds the store; returns a stateToken of a recent session, for the agent writing meanwhile."""
    from django.utils import timezone

    from runs.models import Session

    started = time.perf_counter()
    firsts = [build_session(WORKFLOWS[i % len(WORKFLOWS)], f"T-{i}", steps=3 + i % 4) for i in range(templates)]
    template_ids = [first["session"]["sessionId"] for first in firsts]
    built = time.perf_counter() - started
    template_pks = list(Session.objects.filter(public_id__in=template_ids).values_list("pk", flat=True))
    started = time.perf_counter()
    copy_sessions(template_pks, sessions // templates - 1)
    copied = time.perf_counter() - started
    Session.objects.update(updated_at=timezone.now() - timedelta(days=EXPIRED_DAYS))
    recent = [build_session(KEPT_WORKFLOW, f"K-{index}", steps=1) for index in range(kept)]
    print(
        f"store: {templates} sessions through the services in {built:.1f} s, copied to {sessions:,} in {copied:.1f} s, "
        f"plus {kept} recent sessions"
    )
    return str(recent[0]["stateToken"])


def snapshot_file(database: Path, to: Path) -> None:
    """A consistent copy of the SQLite store (the WAL folded in first)."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    connection.close()
    shutil.copyfile(database, to)


def restore_file(copy: Path, database: Path) -> None:
    from django.db import connection

    connection.close()
    for suffix in ("-wal", "-shm"):
        Path(str(database) + suffix).unlink(missing_ok=True)
    shutil.copyfile(copy, database)


class Agent(threading.Thread):
    """Checkpoints on a kept session as fast as it can while the cleanup runs; keeps each write's time."""

    def __init__(self, state_token: str) -> None:
        super().__init__(daemon=True)
        self.state_token = state_token
        self.seconds: list[float] = []
        self.stop = threading.Event()

    def run(self) -> None:
        from django.db import connection

        from runs.mcp.tools import invoke

        index = 0
        try:
            while not self.stop.is_set():
                index += 1
                started = time.perf_counter()
                invoke(
                    "checkpoint_workflow", {"stateToken": self.state_token, "output": {"notesMarkdown": f"n{index}"}}
                )
                self.seconds.append(time.perf_counter() - started)
                time.sleep(0.005)
        finally:
            connection.close()


def timed_cleanup(*options: str) -> tuple[float, str]:
    from django.core.management import call_command

    out = StringIO()
    started = time.perf_counter()
    call_command("cleanup", *options, stdout=out, stderr=StringIO())
    return time.perf_counter() - started, out.getvalue()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sessions", type=int, default=10_000)
    parser.add_argument("--kept", type=int, default=500)
    parser.add_argument("--templates", type=int, default=25)
    parser.add_argument(
        "--batch-size", type=int, default=None, help="sessions per transaction (default: the service's)"
    )
    parser.add_argument("--compare-collector", action="store_true")
    args = parser.parse_args()
    args.sessions -= args.sessions % args.templates  # whole copies of every template
    with tempfile.TemporaryDirectory() as tmp:
        database = setup(Path(tmp) / "home", Path(tmp))
        import logging

        logging.getLogger("workrail.cleanup").setLevel(logging.WARNING)  # the figures below say it
        from runs.models import Session
        from runs.store import retention

        batch_size = args.batch_size or retention.BATCH_SIZE
        print(f"cleanup benchmark ({REPO.name}), SQLite, batches of {batch_size} sessions")
        agent = Agent(build_store(args.sessions, args.kept, args.templates))
        before = table_counts()
        print("  before: " + ", ".join(f"{count:,} {name}" for name, count in before.items()))
        pristine = Path(tmp) / "pristine.sqlite3"
        snapshot_file(database, pristine)

        seconds, _ = timed_cleanup("--dry-run")
        would = retention.cleanup(dry_run=True)
        print(
            f"  cleanup --dry-run: {seconds:.2f} s (would delete {would.sessions:,} sessions, {would.runs:,} runs, "
            f"{would.events:,} events, {would.pinned_workflows} pinned workflows)"
        )

        batches: list[float] = []
        last = [time.perf_counter()]

        def progress(done: int, total: int) -> None:
            now = time.perf_counter()
            if done:
                batches.append(now - last[0])
            last[0] = now

        agent.start()
        time.sleep(0.2)
        started = time.perf_counter()
        result = retention.cleanup(progress=progress, batch_size=batch_size)
        seconds = time.perf_counter() - started
        agent.stop.set()
        agent.join()
        after = table_counts()
        print(
            f"  cleanup: {seconds:.2f} s for {result.sessions:,} sessions ({result.sessions / seconds:,.0f} a second), "
            f"{result.runs:,} runs, {result.events:,} events, {result.pinned_workflows} pinned workflows deleted"
        )
        ordered = sorted(batches)
        print(
            f"  batch transactions: {len(batches)}, median {ordered[len(ordered) // 2] * 1000:.1f} ms, "
            f"longest {ordered[-1] * 1000:.1f} ms"
        )
        writes = sorted(agent.seconds)
        print(
            f"  an agent checkpointing meanwhile: {len(writes)} writes, "
            f"median {writes[len(writes) // 2] * 1000:.1f} ms, slowest {writes[-1] * 1000:.1f} ms"
        )
        print("  after: " + ", ".join(f"{count:,} {name}" for name, count in after.items()))

        restore_file(pristine, database)
        tracemalloc.start()
        retention.cleanup(batch_size=batch_size)
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(f"  peak memory of the cleanup: {peak / 2**20:.1f} MiB (tracemalloc); process peak RSS {rss:.0f} MiB")

        if args.compare_collector:
            restore_file(pristine, database)
            from django.db import transaction

            started = time.perf_counter()
            with transaction.atomic():  # the collector's way: one transaction, objects loaded to cascade
                Session.objects.filter(updated_at__lt=would.cutoff).delete()
            print(f"  for comparison, Django's collector: {time.perf_counter() - started:.2f} s, in one transaction")


if __name__ == "__main__":
    main()
