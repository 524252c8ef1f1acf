"""Export and import of a large session bundle: a run of 10,000 nodes (a while loop, with forks,
notes on every step and an artifact every 50) built through the real services, then:

- export: the bundle's bytes from the store (median of --repeat, and peak Python memory);
- read: the checks made before anything is written (size, canonical bytes, manifest, events, ids);
- import: read + the one-transaction replay into the store (beside the original: every id is new).

Peak memory is measured in a separate pass with tracemalloc (it slows the code it watches), so the
times are untraced. A benchmark: it prints figures and asserts nothing.

    .venv/bin/python bench/bundles.py [--nodes 10000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from bench._common import clean_env


def loop_workflow(nodes: int) -> dict[str, Any]:
    """Loops of at most 1,000 rounds (the format's cap on maxIterations), one after another."""
    loops = []
    for index, start in enumerate(range(0, nodes, 1000)):
        rounds = min(1000, nodes - start)
        loops.append(
            {
                "id": f"work-loop-{index}",
                "type": "loop",
                "title": f"Work through batch {index}",
                "loop": {"type": "for", "count": rounds, "maxIterations": 1000},
                "body": [{"id": f"work-{index}", "title": f"Batch {index} item", "prompt": "Handle the next item."}],
            }
        )
    return {
        "id": "bench.bundle_run",
        "name": "Bench: a long run to export",
        "description": "One step repeated by loops, for a run with many nodes.",
        "version": "1.0.0",
        "steps": loops,
    }


def setup(home: Path, project: Path, nodes: int) -> None:
    workflows = project / ".workrail" / "workflows"
    workflows.mkdir(parents=True)
    (workflows / "bench.bundle_run.json").write_text(json.dumps(loop_workflow(nodes)))
    os.environ.update(clean_env(home, WORKRAIL_PROJECT_DIR=str(project), WORKRAIL_RATE_LIMIT_BURST="100000"))
    os.environ["DJANGO_SETTINGS_MODULE"] = "workrail_site.settings"
    import django
    from django.core.management import call_command

    django.setup()
    call_command("migrate", verbosity=0)


def build(nodes: int) -> str:
    from runs.mcp.tools import invoke

    answer = invoke("start_workflow", {"workflowId": "bench.bundle_run", "context": {"sessionKey": "bench-bundle"}})
    answers = [answer]
    for index in range(nodes + nodes // 500):
        if index % 500 == 499:  # an agent rewound: a branch grows from an older node
            older = answers[index // 2]
            fresh = invoke("continue_workflow", {"stateToken": older["stateToken"]})
            invoke(
                "continue_workflow",
                {"stateToken": older["stateToken"], "ackToken": fresh["ackToken"], "output": {"notesMarkdown": "fork"}},
            )
        output: dict[str, Any] = {"notesMarkdown": f"Item {index}: checked the **parser** path; nothing unusual."}
        if index % 50 == 0:
            output["artifacts"] = [
                {
                    "kind": "mr_review.findings",
                    "findings": [{"severity": "Minor", "title": f"Finding {index}"}],
                }
            ]
        answer = invoke(
            "continue_workflow", {"stateToken": answer["stateToken"], "ackToken": answer["ackToken"], "output": output}
        )
        answers.append(answer)
        if answer["kind"] == "complete":
            break
    return str(answer["session"]["sessionId"])


def timed(work: Callable[[], Any], repeat: int) -> tuple[list[float], Any]:
    seconds, result = [], None
    for _ in range(repeat):
        started = time.perf_counter()
        result = work()
        seconds.append(time.perf_counter() - started)
    return seconds, result


def peak_mib(work: Callable[[], Any]) -> float:
    tracemalloc.start()
    try:
        work()
        return tracemalloc.get_traced_memory()[1] / 2**20
    finally:
        tracemalloc.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--nodes", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        setup(Path(tmp) / "home", Path(tmp) / "project", args.nodes)
        from exports.bundle.export import export_bundle
        from exports.bundle.reading import read_bundle
        from exports.bundles import import_session_bundle, max_bundle_bytes
        from runs.models import Event, Node, Session

        started = time.perf_counter()
        session_id = build(args.nodes)
        session = Session.objects.get(public_id=session_id)
        print(
            f"built: {Node.objects.filter(run__session=session).count():,} nodes, "
            f"{Event.objects.filter(session=session).count():,} events in {time.perf_counter() - started:.1f} s"
        )
        export_s, data = timed(lambda: export_bundle(session), args.repeat)
        print(f"bundle: {len(data) / 2**20:.1f} MiB")
        print(f"export: median {statistics.median(export_s):.2f} s (min {min(export_s):.2f}), n={args.repeat}")
        read_s, _ = timed(lambda: read_bundle(data, max_bytes=max_bundle_bytes()), args.repeat)
        print(f"read and verify (no writes): median {statistics.median(read_s):.2f} s, n={args.repeat}")
        import_s, _ = timed(lambda: import_session_bundle(data, via="command"), args.repeat)
        print(f"import (verify + one transaction): median {statistics.median(import_s):.2f} s, n={args.repeat}")
        print(f"peak Python memory: export {peak_mib(lambda: export_bundle(session)):.0f} MiB, ", end="")
        print(f"import {peak_mib(lambda: import_session_bundle(data, via='command')):.0f} MiB")


if __name__ == "__main__":
    main()
