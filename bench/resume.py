"""resume_session over a store of 10,000 sessions, in-process (the service alone, no MCP transport).

Run: .venv/bin/python bench/resume.py [--sessions 10000] [--real 300] [--repeat 20] [--store DIR]
     [--database-url postgres://user@host:port/empty_db]   (needs psycopg installed)

The store is built in a temporary WORKRAIL_HOME (SQLite with the settings' PRAGMAs, unless
--database-url names an empty PostgreSQL database; --store keeps it for the next run):
- `--real` runs go through the real service (start_workflow, then continue_workflow with notes), so
  their events, nodes, outputs and search entries are exactly what WorkRail writes;
- the other sessions are bulk-inserted: Session, Run, a chain of Nodes, Outputs, Observations,
  Checkpoints (checkpoint-only sessions) and SearchEntry rows with the shape the projector writes
  (same identity_text, notes_text cut to its last 4,000 characters, tip = the latest node, git
  fields from the latest observation). They have no Event rows: resume_session never reads events.
Keys, titles, workflows, notes and branches are generated from a fixed seed, with a few planted
phrases so that each layer has something to find. Then each query is timed --repeat times.
Figures only; nothing is asserted.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import random
import sqlite3
import sys
import tempfile
import time
from collections import defaultdict
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the checkout, for bench._common
from bench._common import REPO, clean_env, summary

SEED = 20261121
COMPONENTS = [
    ("auth", "AUTH"),
    ("billing", "BILL"),
    ("search", "SRCH"),
    ("payments", "PAY"),
    ("checkout", "CHK"),
    ("inventory", "INV"),
    ("notifications", "NTF"),
    ("scheduler", "SCHED"),
    ("importer", "IMP"),
    ("reporting", "REP"),
    ("gateway", "GW"),
    ("profile", "PROF"),
    ("sync", "SYNC"),
    ("uploads", "UPL"),
    ("exports", "EXP"),
    ("indexer", "IDX"),
]
PROBLEMS = [
    "token refresh race",
    "timeout under load",
    "memory leak in the worker",
    "duplicate webhook delivery",
    "stale cache after deploy",
    "n+1 query on the list page",
    "flaky integration test",
    "wrong currency rounding",
    "deadlock in the migration",
    "retry storm after an outage",
    "missing index on lookup",
    "timezone off-by-one in reports",
    "pagination skipping rows",
    "unicode filename crash",
    "slow cold start",
]
MECHANISMS = [
    "two workers refresh the same token and the slower one overwrites the new value",
    "the cache key ignores the tenant id",
    "the retry loop has no backoff and no jitter",
    "the ORM issues one query per row of the page",
    "the cron job runs in UTC but the report groups by local day",
    "the webhook handler is not idempotent",
    "a connection is never returned to the pool on error",
    "the lock is released before the write commits",
    "the serializer loads the whole file in memory",
    "the cursor uses an offset that shifts when rows are inserted",
]
ERRORS = ["HTTP 502", "IntegrityError", "TimeoutError", "KeyError: 'tenant'", "OOMKilled", "deadlock detected"]
MODULES = ["views", "tasks", "models", "client", "handlers", "serializers", "cache", "middleware", "jobs"]
WORKFLOWS = [  # id, name, weight, step ids (for pending steps of bulk runs)
    ("wr.evidence_first_bug_fix", "Evidence-First Bug Fix", 45, None),
    ("wr.code_review", "Code Review", 25, None),
    ("project.release_checklist", "Release Checklist", 8, ["prepare", "freeze", "tag", "deploy", "announce"]),
    ("team.incident_review", "Incident Review", 8, ["timeline", "impact", "causes", "actions", "publish"]),
    ("project.migration_plan", "Migration Plan", 6, ["inventory", "design", "dry-run", "cutover", "cleanup"]),
    ("team.onboarding", "Onboarding Tasks", 4, ["accounts", "setup", "first-task", "review"]),
    ("project.perf_audit", "Performance Audit", 4, ["baseline", "profile", "fix", "compare"]),
]
WORKSPACES = [
    f"/home/dev/src/{name}" for name in ("shop", "platform", "billing-service", "mobile-api", "infra", "docs")
]
PLANTED = {
    "layer2_phrase": "kafka consumer lag",  # in the recent notes of 3 bulk runs
    "layer3_phrase": "certificate pinning",  # in an early note of 6 real runs, pushed out of notes_text by later notes
    "beyond_cap_phrase": "bloom filter false positives",  # in early notes of 2 old bulk runs: beyond the deep cap
    "branch": "fix/auth-refresh-race",  # the git branch of 12 bulk runs
}


def setup(home: Path, project: Path, database_url: str | None) -> None:
    extra = {"DATABASE_URL": database_url} if database_url else {}
    os.environ.update(clean_env(home, WORKRAIL_PROJECT_DIR=str(project), WORKRAIL_RATE_LIMIT_BURST="100000", **extra))
    os.environ["DJANGO_SETTINGS_MODULE"] = "workrail_site.settings"
    sys.path.insert(0, str(REPO))
    import django
    from django.core.management import call_command

    django.setup()
    call_command("migrate", verbosity=0)


# --- generated text ----------------------------------------------------------------------------------


def sentence(rng: random.Random, component: str, problem: str) -> str:
    module = f"{component}/{rng.choice(MODULES)}.py:{rng.randint(12, 900)}"
    mechanism = rng.choice(MECHANISMS)
    choices = [
        f"Reproduced the {problem} in {component} with {rng.randint(2, 64)} parallel requests; "
        f"it fails {rng.randint(1, 9)} of 10 runs.",
        f"Could not reproduce on staging; the reporter runs v{rng.randint(1, 9)}.{rng.randint(0, 30)} on "
        f"{rng.choice(['linux', 'macOS', 'windows', 'k8s'])}.",
        f"Evidence: {module} calls {rng.choice(['refresh', 'save', 'fetch', 'sync', 'render'])}_"
        f"{rng.choice(['token', 'page', 'batch', 'row', 'file'])}() without holding the lock; the logs show "
        f"{rng.choice(ERRORS)} at {rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}.",
        f"Hypothesis {rng.randint(1, 4)}: {mechanism}. A cheap test: run it with the worker count set to one.",
        f"Ruled out that {rng.choice(MECHANISMS)}: the metric stayed flat during the incident.",
        f"Root cause confirmed: {mechanism}. Fix plan: guard it in {module} and add a regression test.",
        f"Implemented the fix in {module}; added test_{component}_{rng.choice(['race', 'retry', 'rounding'])}.",
        f"Verified on staging: p95 went from {rng.randint(300, 2000)} ms to {rng.randint(40, 290)} ms, no "
        f"errors in {rng.randint(2, 48)} hours.",
        f"Reviewed {rng.randint(2, 30)} changed files in {component}; {rng.randint(0, 12)} comments, one blocking "
        f"about {rng.choice(['error handling', 'naming', 'missing tests', 'a migration', 'logging'])}.",
        f"Checklist: migrations applied, feature flag {component}_v2 on for {rng.choice([1, 5, 25, 50, 100])}% "
        "of traffic.",
    ]
    return rng.choice(choices)


def note(rng: random.Random, component: str, problem: str, sentences: tuple[int, int] = (1, 4)) -> str:
    return " ".join(sentence(rng, component, problem) for _ in range(rng.randint(*sentences)))


def long_note(rng: random.Random, component: str, problem: str, chars: int) -> str:
    text = ""
    while len(text) < chars:
        text += sentence(rng, component, problem) + " "
    return text.strip()


# --- real service ------------------------------------------------------------------------------------


def real_runs(rng: random.Random, count: int, facts: dict[str, Any]) -> None:
    from runs.mcp.tools import invoke

    context_for_loops = {
        "severity": "high",
        "reproduced": True,
        "hypotheses": ["race", "cache"],
        "rootCauseConfirmed": False,
        "investigationStalled": False,
    }
    deep_runs = set(rng.sample(range(count), 6))
    for index in range(count):
        component, prefix = rng.choice(COMPONENTS)
        problem = rng.choice(PROBLEMS)
        workflow = "wr.evidence_first_bug_fix" if index in deep_runs or rng.random() < 0.65 else "wr.code_review"
        context: dict[str, Any] = (
            {"ticketId": f"{prefix}-R{index}"}
            if rng.random() < 0.7
            else {"sessionKey": f"{component}-{problem.split()[0]}-r{index}"}
        )
        data = invoke("start_workflow", {"workflowId": workflow, "context": context})
        steps = 4 if index in deep_runs else rng.randint(1, 5)
        for step in range(steps):
            if data["kind"] == "blocked" or data["pending"] is None:
                break
            if index in deep_runs:
                text = (
                    f"Triage: the mobile client fails after the {PLANTED['layer3_phrase']} change. "
                    + note(rng, component, problem)
                    if step == 0
                    else long_note(rng, component, problem, 1500)
                )
            else:
                text = note(rng, component, problem)
            output: dict[str, Any] = {"notesMarkdown": text}
            contract = data["pending"].get("outputContract")
            if contract:
                output["artifacts"] = [contract["example"]]
            data = invoke(
                "continue_workflow",
                {
                    "stateToken": data["stateToken"],
                    "ackToken": data["ackToken"],
                    "output": output,
                    "context": context_for_loops,
                },
            )
        if index in deep_runs:
            facts.setdefault("layer3_runs", []).append(data["session"]["runId"])


# --- bulk rows with the projector's shape ------------------------------------------------------------------


def bulk_sessions(rng: random.Random, count: int, now: datetime, facts: dict[str, Any]) -> dict[str, int]:
    from django.db import transaction

    from runs.execution.catalog import current_catalog, find_workflow
    from runs.models import (
        Checkpoint,
        Node,
        Observation,
        Output,
        PinnedWorkflow,
        Run,
        RunStatus,
        SearchEntry,
        Session,
        SessionKind,
    )
    from runs.store.projections import SEARCH_NOTES_CHARS, identity_text

    pinned: dict[str, tuple[str, list[str]]] = {}
    for workflow_id, name, _, steps in WORKFLOWS:
        if steps is None:  # a bundled workflow: pin it exactly as start_workflow does
            entry = find_workflow(current_catalog(), workflow_id)
            PinnedWorkflow.objects.get_or_create(
                workflow_hash=entry.workflow_hash,
                defaults={"workflow_id": entry.id, "compiled": entry.compiled, "created_at": now},
            )
            step_ids = [s["id"] for s in entry.compiled.get("steps", []) if isinstance(s, dict) and "id" in s]
            pinned[workflow_id] = (entry.workflow_hash, step_ids or ["step"])
        else:
            digest = f"sha256:bench-{workflow_id}"
            PinnedWorkflow.objects.get_or_create(
                workflow_hash=digest,
                defaults={"workflow_id": workflow_id, "compiled": {"id": workflow_id, "name": name}, "created_at": now},
            )
            pinned[workflow_id] = (digest, steps)

    weights = [w for _, _, w, _ in WORKFLOWS]
    statuses = [RunStatus.IN_PROGRESS] * 50 + [RunStatus.COMPLETE] * 35 + [RunStatus.BLOCKED] * 10
    statuses += [RunStatus.CANCELED] * 5
    used_keys: set[str] = set()
    planted_l2 = set(rng.sample(range(count // 4, count), 3))
    planted_cap = set(rng.sample(range(50), 2))  # among the oldest: their outputs are beyond the deep cap
    planted_branch = set(rng.sample(range(count), 12))
    start = now - timedelta(days=180)
    step = timedelta(days=179) / max(count, 1)

    sessions: list[Session] = []
    plans: list[dict[str, Any]] = []
    for index in range(count):
        component, prefix = rng.choice(COMPONENTS)
        problem = rng.choice(PROBLEMS)
        at = start + step * index + timedelta(seconds=rng.randint(0, 3600))
        checkpoint_only = rng.random() < 0.03
        roll = rng.random()
        if roll < 0.6:
            while True:
                ticket = f"{prefix}-{rng.randint(100, 99999)}"
                if f"ticket:{ticket}" not in used_keys:
                    break
            key: str | None = f"ticket:{ticket}"
            title = ticket
        elif roll < 0.85:
            key = f"{component}-{problem.split()[0]}-{problem.split()[-1]}-{index}"
            title = key
        else:
            key, title = None, ""
        if key:
            used_keys.add(key)
        tags = [component, rng.choice(["backend", "frontend", "infra", "data"])] if rng.random() < 0.3 else []
        workflow_id, workflow_name, _, _ = rng.choices(WORKFLOWS, weights)[0]
        if checkpoint_only:
            title = title or f"Notes on the {problem} in {component}"
        elif not title:
            title = workflow_name
        session = Session(
            public_id=f"ses_{rng.getrandbits(64):016x}",
            session_key=key,
            title=title,
            kind=SessionKind.CHECKPOINT_ONLY if checkpoint_only else SessionKind.WORKFLOW,
            tags=tags,
            preferences={},
            created_at=at,
            updated_at=at,
        )
        sessions.append(session)
        runs = 0 if checkpoint_only else (2 if rng.random() < 0.08 else 1)
        notes_plan = []
        for run_index in range(max(runs, 1)):
            texts = [note(rng, component, problem) for _ in range(rng.randint(2, 6))]
            if index in planted_l2 and run_index == 0:
                texts[-1] += f" The {PLANTED['layer2_phrase']} grows when the importer runs."
            if index in planted_cap and run_index == 0:
                texts[0] += f" Suspect {PLANTED['beyond_cap_phrase']} in the dedup step."
                texts += [long_note(rng, component, problem, 1500) for _ in range(3)]
            notes_plan.append(texts)
        plans.append(
            {
                "session": session,
                "runs": runs,
                "workflow": (workflow_id, workflow_name),
                "notes": notes_plan,
                "at": at,
                "component": component,
                "branch": PLANTED["branch"]
                if index in planted_branch
                else rng.choice(
                    ["main", "main", f"fix/{(key or component).split(':')[-1].lower()}", f"feature/{component}"]
                ),
                "observed": index in planted_branch or rng.random() < 0.7,
            }
        )
        if index == count // 2 and key and key.startswith("ticket:"):
            facts["exact_title"] = title
    if "exact_title" not in facts:
        facts["exact_title"] = next(
            p["session"].title for p in plans if (p["session"].session_key or "").startswith("ticket:")
        )

    counts: dict[str, int] = defaultdict(int)
    with transaction.atomic():
        Session.objects.bulk_create(sessions, batch_size=2000)
        counts["sessions"] = len(sessions)
        run_rows: list[tuple[Run, dict[str, Any], list[str]]] = []
        checkpoint_entries: list[tuple[Session, dict[str, Any], list[str]]] = []
        for plan in plans:
            session = plan["session"]
            if plan["runs"] == 0:
                checkpoint_entries.append((session, plan, plan["notes"][0]))
                continue
            workflow_id, _ = plan["workflow"]
            for run_index in range(plan["runs"]):
                run = Run(
                    public_id=f"run_{rng.getrandbits(63):016x}",
                    session=session,
                    workflow_id=workflow_id,
                    pinned_id=pinned[workflow_id][0],
                    status=rng.choice(statuses),
                    created_at=plan["at"],
                    updated_at=plan["at"] + timedelta(minutes=30 * len(plan["notes"][run_index])),
                )
                run_rows.append((run, plan, plan["notes"][run_index]))
        Run.objects.bulk_create([r for r, _, _ in run_rows], batch_size=2000)
        counts["runs"] = len(run_rows)

        # Nodes, level by level (a parent must exist before its child), then outputs between them.
        chains: list[list[Node]] = [[] for _ in run_rows]
        depth = 0
        while True:
            level = []
            for position, (run, _, texts) in enumerate(run_rows):
                if depth > len(texts):
                    continue
                steps = pinned[run.workflow_id][1]
                last = depth == len(texts)
                complete = last and run.status == RunStatus.COMPLETE
                node = Node(
                    public_id=rng.getrandbits(63) or 1,
                    run=run,
                    parent=chains[position][-1] if chains[position] else None,
                    depth=depth,
                    notes_on_path=depth,
                    engine_state={"completedSteps": depth, "context": {}},
                    preferences={},
                    pending_step_id="" if complete else steps[min(depth, len(steps) - 1)],
                    is_complete=complete,
                    created_at=run.created_at + timedelta(minutes=30 * depth),
                )
                chains[position].append(node)
                level.append(node)
            if not level:
                break
            Node.objects.bulk_create(level, batch_size=2000)
            depth += 1
        parents = []
        for chain in chains:
            for parent, child in itertools.pairwise(chain):
                parent.latest_child = child
                parents.append(parent)
        Node.objects.bulk_update(parents, ["latest_child"], batch_size=2000)
        counts["nodes"] = sum(len(c) for c in chains)

        outputs, observations, entries = [], [], []
        for position, (run, plan, texts) in enumerate(run_rows):
            chain = chains[position]
            notes_text = ""
            for number, text in enumerate(texts):
                kinds = "diagnosis" if rng.random() < 0.1 else ""
                outputs.append(
                    Output(
                        node=chain[number],
                        child=chain[number + 1],
                        step_id=chain[number].pending_step_id or "step",
                        step_title=(chain[number].pending_step_id or "step").replace("-", " ").title(),
                        notes_markdown=text,
                        artifacts=[{"kind": kinds}] if kinds else [],
                        created_at=chain[number + 1].created_at,
                    )
                )
                notes_text = (notes_text + "\n" + f"{text} {kinds}".strip().lower())[-SEARCH_NOTES_CHARS:]
            git = {"git_branch": "", "git_head_sha": "", "workspace_path": ""}
            if plan["observed"]:
                git = {
                    "git_branch": plan["branch"],
                    "git_head_sha": f"{rng.getrandbits(160):040x}",
                    "workspace_path": rng.choice(WORKSPACES),
                }
                observations.append(Observation(session=run.session, run=run, created_at=run.created_at, **git))
            session = run.session
            workflow_id, workflow_name = plan["workflow"]
            entries.append(
                SearchEntry(
                    session=session,
                    run=run,
                    tip=chain[-1],
                    identity_text=identity_text(
                        session.session_key, session.title, *session.tags, workflow_id, workflow_name
                    ),
                    notes_text=notes_text,
                    updated_at=run.updated_at,
                    **git,
                )
            )
        checkpoints = []
        for session, plan, texts in checkpoint_entries:
            notes_text = ""
            for number, text in enumerate(texts):
                checkpoints.append(
                    Checkpoint(
                        session=session,
                        node=None,
                        output_digest=f"sha256:{rng.getrandbits(256):064x}",
                        notes_markdown=text,
                        artifacts=[],
                        response_json="{}",
                        created_at=plan["at"] + timedelta(minutes=10 * number),
                    )
                )
                notes_text = (notes_text + "\n" + text.lower())[-SEARCH_NOTES_CHARS:]
            entries.append(
                SearchEntry(
                    session=session,
                    run=None,
                    tip=None,
                    identity_text=identity_text(session.session_key, session.title, *session.tags),
                    notes_text=notes_text,
                    updated_at=plan["at"] + timedelta(minutes=10 * len(texts)),
                )
            )
        Output.objects.bulk_create(outputs, batch_size=2000)
        Checkpoint.objects.bulk_create(checkpoints, batch_size=2000)
        Observation.objects.bulk_create(observations, batch_size=2000)
        SearchEntry.objects.bulk_create(entries, batch_size=2000)
        counts.update(
            outputs=len(outputs),
            checkpoints=len(checkpoints),
            observations=len(observations),
            checkpoint_only_sessions=len(checkpoint_entries),
        )
        sha_entry = next(e for e in entries if e.git_head_sha)
        facts["sha_prefix"] = sha_entry.git_head_sha[:10]
    return counts


# --- timing ----------------------------------------------------------------------------------------------


def queries(facts: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    """(type, label, arguments)."""
    return [
        ("layer 1", f"exact title {facts['exact_title']!r}", {"query": facts["exact_title"]}),
        ("layer 1", "all words in identity 'billing rounding'", {"query": "billing rounding"}),
        ("layer 1", "thousands of hits 'wr.code_review'", {"query": "wr.code_review"}),
        ("layer 2", f"planted notes phrase {PLANTED['layer2_phrase']!r}", {"query": PLANTED["layer2_phrase"]}),
        ("layer 2", "common notes words 'tenant cache deploy'", {"query": "tenant cache deploy"}),
        ("layer 3", f"older notes only {PLANTED['layer3_phrase']!r}", {"query": PLANTED["layer3_phrase"]}),
        ("miss", "'quantum entanglement' (every layer runs)", {"query": "quantum entanglement"}),
        ("miss", f"beyond the deep cap {PLANTED['beyond_cap_phrase']!r}", {"query": PLANTED["beyond_cap_phrase"]}),
        ("git only", f"gitBranch {PLANTED['branch']!r}", {"gitBranch": PLANTED["branch"]}),
        ("git only", f"gitHeadSha prefix {facts['sha_prefix']!r}", {"gitHeadSha": facts["sha_prefix"]}),
        (
            "query + git",
            "'token refresh' + branch main + workspace",
            {"query": "token refresh", "gitBranch": "main", "workspacePath": WORKSPACES[0]},
        ),
        ("no input", "no inputs (most recent)", {}),
    ]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sessions", type=int, default=10_000)
    parser.add_argument("--real", type=int, default=300)
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--store", type=Path, help="keep the store in this directory and reuse it on the next run")
    parser.add_argument("--database-url", help="an empty PostgreSQL database to use instead of SQLite")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        work = args.store or Path(tmp)
        reuse = (work / "home" / "facts.json").exists()
        work.mkdir(parents=True, exist_ok=True)
        setup(work / "home", work, args.database_url)
        from django.db import connection
        from django.test.utils import CaptureQueriesContext
        from django.utils import timezone

        from runs.contract.inputs import ResumeSessionInput
        from runs.execution import resume
        from runs.execution.resume import DEEP_SCAN_ROWS, MAX_CANDIDATES
        from runs.models import Event, SearchEntry

        def resume_session(**arguments: Any) -> dict[str, Any]:
            return resume.resume_session(ResumeSessionInput.model_validate(arguments)).dump()

        facts_file = work / "home" / "facts.json"
        if reuse:
            facts = json.loads(facts_file.read_text())
            print(f"store: reusing {work} ({facts['built']})")
        else:
            rng = random.Random(SEED)
            facts = {}
            started = time.perf_counter()
            counts = bulk_sessions(rng, args.sessions - args.real, timezone.now(), facts)
            bulk_seconds = time.perf_counter() - started
            started = time.perf_counter()
            real_runs(rng, args.real, facts)
            real_seconds = time.perf_counter() - started
            facts["built"] = (
                f"{args.sessions - args.real} sessions bulk-inserted in {bulk_seconds:.1f} s "
                f"({counts['runs']} runs, {counts['nodes']} nodes, {counts['outputs']} outputs, "
                f"{counts['checkpoint_only_sessions']} checkpoint-only sessions with {counts['checkpoints']} "
                f"checkpoints, {counts['observations']} observations; no events), {args.real} sessions through "
                f"start_workflow/continue_workflow in {real_seconds:.1f} s ({Event.objects.count()} events)"
            )
            facts_file.write_text(json.dumps(facts))
            print(f"store: {facts['built']}")
        if connection.vendor == "sqlite":
            size = Path(connection.settings_dict["NAME"]).stat().st_size
            backend = f"SQLite {sqlite3.sqlite_version}"
        else:
            with connection.cursor() as cursor:
                cursor.execute("SELECT pg_database_size(current_database()), version()")
                size, version = cursor.fetchone()
            backend = version.split(" on ")[0]
        notes_chars = sum(len(t) for t in SearchEntry.objects.values_list("notes_text", flat=True))
        print(
            f"  {SearchEntry.objects.count()} search entries, {notes_chars / 1e6:.1f} M characters of notes_text; "
            f"database {size / 1e6:.0f} MB ({backend})"
        )
        print(
            "how it is searched: no text index (the schema has none and this bench adds none). Layer 1 reads "
            "every search entry's identity_text, layer 2 its notes_text, with LIKE '%word%' per query word (the "
            "word with the rarest first letter first, so most rows fail on one test) and only when layer 1 gave "
            f"fewer than {MAX_CANDIDATES}; the score is computed and sorted in SQL and only the best rows come back. "
            f"Layer 3 reads the newest {DEEP_SCAN_ROWS} outputs and {DEEP_SCAN_ROWS} checkpoints (a primary-key "
            "range). Indexes used: SearchEntry(-updated_at) for the no-input case, SearchEntry(git_branch), "
            "primary keys and the run/session/tip foreign keys for the candidates."
        )
        by_type: dict[str, list[float]] = defaultdict(list)
        overall: list[float] = []
        for kind, label, arguments in queries(facts):
            resume_session(**arguments)  # warm-up: not timed
            timings = []
            for _ in range(args.repeat):
                started = time.perf_counter()
                result = resume_session(**arguments)
                timings.append(time.perf_counter() - started)
            with CaptureQueriesContext(connection) as captured:
                resume_session(**arguments)
            by_type[kind] += timings
            overall += timings
            layers = [c["layer"] for c in result["candidates"]]
            per_layer = ", ".join(
                f"{layer['layer']}: "
                + ("skipped" if "skipped" in layer else f"{layer['candidates']}{'+' if layer['moreMatches'] else ''}")
                for layer in result["searched"]["layers"]
            )
            print(summary(f"  [{kind}] {label}", timings))
            print(f"      {len(captured)} SQL queries; candidates' layers {layers}; found per layer ({per_layer})")
        print(summary("overall", overall))
        for kind, timings in by_type.items():
            print(summary(f"  by type: {kind}", timings))
        print(f"(at most {MAX_CANDIDATES} candidates per call; in-process, one thread, {os.cpu_count()} CPUs)")


if __name__ == "__main__":
    main()
