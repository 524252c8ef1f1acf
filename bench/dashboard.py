"""Server time of the dashboard's biggest pages, and their query counts as the data grows.

- a run page: a run of 1,000 nodes (a while loop of 1,000 iterations, plus forks) with 200 artifacts,
  built through the real services (start_workflow / continue_workflow);
- the sessions page with 10,000 sessions (bulk-inserted summaries and search entries), plain,
  grouped by branch, filtered by status, and searched.

Prints the median and p95 of the full page render (Django test client: URL resolution, view, read
services, template) and of the read service alone, and the number of SQL queries per page at a
small and a large size (equal when nothing is N+1). A benchmark: it asserts nothing.

    .venv/bin/python bench/dashboard.py [--nodes 1000] [--sessions 10000] [--repeat 20]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from bench._common import REPO, clean_env, summary, timed
from harness.workflows import long_loop

LONG_RUN = long_loop(
    "bench.long_run", "Bench: a long run", "One step repeated by a while loop, for a run with a thousand nodes."
)


VERBS = ["fix", "add", "review", "plan"]
THINGS = ["parser", "cache", "login", "export"]


def setup(home: Path, project: Path) -> None:
    workflows = project / ".workrail" / "workflows"
    workflows.mkdir(parents=True)
    (workflows / "bench.long_run.json").write_text(json.dumps(LONG_RUN))
    # A benchmark writes faster than any agent: lift the per-run write limit.
    os.environ.update(clean_env(home, WORKRAIL_PROJECT_DIR=str(project), WORKRAIL_RATE_LIMIT_BURST="100000"))
    os.environ["DJANGO_SETTINGS_MODULE"] = "workrail_site.settings"
    import django
    from django.core.management import call_command

    django.setup()
    call_command("migrate", verbosity=0)


def artifact(index: int) -> dict[str, Any]:
    if index % 2:
        return {
            "kind": "mr_review.changed_files",
            "changedFiles": [{"path": f"src/module_{index % 37}.py", "summary": f"Change {index}", "risk": "M"}],
        }
    return {
        "kind": "mr_review.findings",
        "findings": [
            {"severity": ["Critical", "Major", "Minor", "Nit"][index % 4], "title": f"Finding {index}"},
        ],
    }


def long_run(nodes: int, artifacts: int, forks: int) -> tuple[str, float]:
    """A run of about `nodes` nodes through the services; returns its id and the seconds it took."""
    from runs.mcp.tools import invoke

    started = time.perf_counter()
    answer = invoke("start_workflow", {"workflowId": "bench.long_run", "context": {"sessionKey": f"bench-{nodes}"}})
    run_id = answer["session"]["runId"]
    answers = [answer]
    every = max(1, (nodes - forks) // max(artifacts, 1))
    rng = random.Random(7)
    steps = nodes - forks - 1
    fork_at = set(rng.sample(range(2, steps), min(forks, max(steps - 2, 0))))
    recorded = 0
    for index in range(steps):
        if index in fork_at:  # an agent rewound to an older token: a branch grows there
            older = answers[rng.randrange(1, len(answers) - 1)]
            fresh = invoke("continue_workflow", {"stateToken": older["stateToken"]})
            invoke(
                "continue_workflow",
                {"stateToken": older["stateToken"], "ackToken": fresh["ackToken"], "output": {"notesMarkdown": "fork"}},
            )
        output: dict[str, Any] = {"notesMarkdown": f"Item {index}: **checked**, nothing unusual.\n\n- a\n- b"}
        if index % every == 0 and recorded < artifacts:
            output["artifacts"] = [artifact(index)]
            recorded += 1
        answer = invoke(
            "continue_workflow",
            {"stateToken": answer["stateToken"], "ackToken": answer["ackToken"], "output": output},
        )
        answers.append(answer)
        if answer["kind"] == "complete":
            break
    return run_id, time.perf_counter() - started


def bulk_sessions(count: int, first: int = 0) -> None:
    """Sessions with their summaries and search entries, inserted directly (no runs: the sessions page
    reads the summaries only)."""
    from django.utils import timezone

    from runs.models import SearchEntry, Session, SessionStatus

    rng = random.Random(11 + first)
    now = timezone.now()
    statuses = [SessionStatus.IN_PROGRESS] * 3 + [SessionStatus.COMPLETE] * 5 + [SessionStatus.BLOCKED]
    statuses += [SessionStatus.CANCELED, SessionStatus.NOTES]
    branches = ["main", "fix/auth-refresh", "feature/cache", "feature/export", ""]
    sessions = []
    for index in range(first, first + count):
        at = now - timedelta(minutes=rng.randint(0, 60 * 24 * 90))
        sessions.append(
            Session(
                public_id=f"ses_{rng.getrandbits(64):016x}",
                session_key=f"TICKET-{index}",
                title=f"TICKET-{index}: {rng.choice(VERBS)} the {rng.choice(THINGS)}",
                status=rng.choice(statuses),
                workflow_ids=rng.choice(
                    [
                        "wr.change_in_slices",
                        "wr.risk_scaled_mr_review",
                        "wr.evidence_first_bug_fix wr.risk_scaled_mr_review",
                    ]
                ),
                run_count=rng.randint(1, 3),
                branch_count=rng.randint(1, 5),
                git_branch=rng.choice(branches),
                workspace_path=f"/home/dev/{rng.choice(['api', 'web', 'infra'])}",
                last_seq=rng.randint(5, 200),
                created_at=at - timedelta(hours=2),
                updated_at=at,
            )
        )
    Session.objects.bulk_create(sessions, batch_size=2000)
    ids = dict(Session.objects.filter(public_id__in=[s.public_id for s in sessions]).values_list("public_id", "pk"))
    SearchEntry.objects.bulk_create(
        [
            SearchEntry(
                session_id=ids[s.public_id],
                identity_text=f"{s.session_key} {s.title} {s.workflow_ids}".lower(),
                notes_text=f"looked at the {rng.choice(['flaky test', 'slow query', 'race'])} in module {i % 97}",
                git_branch=s.git_branch,
                updated_at=s.updated_at,
            )
            for i, s in enumerate(sessions)
        ],
        batch_size=2000,
    )


def count_queries(work: Callable[[], Any]) -> int:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as captured:
        work()
    return len(captured)


def get(client: Any, url: str) -> Callable[[], Any]:
    def fetch() -> Any:
        response = client.get(url)
        if response.status_code != 200:
            raise SystemExit(f"{url} answered {response.status_code}")
        return response

    return fetch


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--nodes", type=int, default=1000)
    parser.add_argument("--artifacts", type=int, default=200)
    parser.add_argument("--forks", type=int, default=20)
    parser.add_argument("--sessions", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=20)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        setup(Path(tmp) / "home", Path(tmp))
        from django.test import Client
        from django.test.utils import setup_test_environment

        from runs.readmodels import overview, run_view

        setup_test_environment()  # the test client's Host is "testserver": let it through
        from django.conf import settings

        settings.ALLOWED_HOSTS = [*settings.ALLOWED_HOSTS, "testserver"]
        client = Client()

        print(f"dashboard benchmark ({REPO.name}), repeat={args.repeat}")
        small_run, _ = long_run(100, 20, 2)
        big_run, built = long_run(args.nodes, args.artifacts, args.forks)
        detail = run_view.run_detail(big_run)
        artifacts = sum(len(s.artifacts) for s in detail.steps)
        print(
            f"run: {len(detail.graph.nodes)} nodes, {detail.graph.lanes} branches, {len(detail.steps)} steps on the "
            f"shown branch with {artifacts} artifacts (built through the services in {built:.1f} s)"
        )

        def measure(label: str, work: Callable[[], Any]) -> None:
            print("  " + summary(label, timed(work, args.repeat, warm=True)[0]))

        run_page = get(client, f"/runs/{big_run}/")
        measure("run page (full render)", run_page)
        measure("run_detail service", lambda: run_view.run_detail(big_run))
        from runs.readmodels import markdown

        def cold() -> None:  # as the first visit: no rendered note in the Markdown cache
            markdown._render_cached.cache_clear()
            run_page()

        measure("run page, Markdown cache cleared each time", cold)
        measure(f"run page, all {len(detail.steps)} steps shown", get(client, f"/runs/{big_run}/?steps=all"))
        size = len(run_page().content)
        print(f"  page size {size / 1024:.0f} KiB")
        small_q = count_queries(get(client, f"/runs/{small_run}/"))
        big_q = count_queries(run_page)
        print(f"  queries per run page: {small_q} at ~100 nodes, {big_q} at ~{args.nodes} nodes")

        bulk_sessions(args.sessions // 10)
        small_s = count_queries(get(client, "/sessions/"))
        started = time.perf_counter()
        bulk_sessions(args.sessions - args.sessions // 10, first=args.sessions // 10)
        print(f"sessions: {args.sessions} bulk-inserted in {time.perf_counter() - started:.1f} s")
        for label, url in (
            ("sessions page", "/sessions/"),
            ("sessions page, grouped by branch", "/sessions/?group=branch"),
            ("sessions page, status blocked, page 5", "/sessions/?status=blocked&page=5"),
            ("sessions page, search 'slow query'", "/sessions/?q=slow+query"),
        ):
            measure(label, get(client, url))
        measure("list_sessions service", overview.list_sessions)
        big_s = count_queries(get(client, "/sessions/"))
        print(f"  queries per sessions page: {small_s} at {args.sessions // 10} sessions, {big_s} at {args.sessions}")


if __name__ == "__main__":
    main()
