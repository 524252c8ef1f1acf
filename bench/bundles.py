"""Export and import of a large session bundle: a run of 10,000 nodes (a while loop, with forks,
notes on every step and an artifact every 50) built through the real services, then:

- export: the bundle's bytes from the store (median of --repeat, and peak Python memory);
- read: the checks made before anything is written (size, canonical bytes, manifest, events, ids);
- import: read + the replay into the store (beside the original: every id is new).

Peak memory is measured in a separate pass with tracemalloc (it slows the code it watches), so the
times are untraced. A benchmark: it prints figures and asserts nothing.

With --concurrent, the import runs in a process of its own into a fresh SQLite store (WAL and the
write queue, as `make run` uses; the ids are kept, as on another machine) while a second process, an
agent, advances a run of its own in a loop. Printed: the import's total time, its longest single
hold of the store's write lock (from its turn in the write queue to COMMIT) and how many it took,
its peak RSS (and that of reading the bundle alone, in a third process), and the agent's wait for
the write lock per write (p50/p99/max), its whole calls, and how many gave up with STORE_BUSY.
--nodes 78000 makes a bundle near the 256 MiB cap (WORKRAIL_BUNDLE_MAX_MB); building it takes minutes,
so --bundle keeps it in a file that later runs read instead of building again.

    .venv/bin/python bench/bundles.py [--nodes 10000] [--repeat 3]
    .venv/bin/python bench/bundles.py --concurrent [--nodes 78000] [--bundle /tmp/bench-78000.bundle]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from bench._common import clean_env, timed

WORKFLOW_ID = "bench.bundle_run"


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
        "id": WORKFLOW_ID,
        "name": "Bench: a long run to export",
        "description": "One step repeated by loops, for a run with many nodes.",
        "version": "1.0.0",
        "steps": loops,
    }


def environment(home: Path, project: Path) -> None:
    os.environ.update(clean_env(home, WORKRAIL_PROJECT_DIR=str(project), WORKRAIL_RATE_LIMIT_BURST="100000"))
    os.environ["DJANGO_SETTINGS_MODULE"] = "workrail_site.settings"


def setup(home: Path, project: Path, nodes: int) -> None:
    workflows = project / ".workrail" / "workflows"
    workflows.mkdir(parents=True, exist_ok=True)
    (workflows / f"{WORKFLOW_ID}.json").write_text(json.dumps(loop_workflow(nodes)))
    environment(home, project)
    import django
    from django.core.management import call_command

    django.setup()
    call_command("migrate", verbosity=0)


def build(nodes: int) -> str:
    from runs.mcp.tools import invoke

    answer = invoke("start_workflow", {"workflowId": WORKFLOW_ID, "context": {"sessionKey": "bench-bundle"}})
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


def peak_mib(work: Callable[[], Any]) -> float:
    tracemalloc.start()
    try:
        work()
        return tracemalloc.get_traced_memory()[1] / 2**20
    finally:
        tracemalloc.stop()


def in_process(args: argparse.Namespace) -> None:
    """Export, read and import timed in this process (the import beside the original: ids renamed)."""
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
        print(f"import (verify + apply): median {statistics.median(import_s):.2f} s, n={args.repeat}")
        print(f"peak Python memory: export {peak_mib(lambda: export_bundle(session)):.0f} MiB, ", end="")
        print(f"import {peak_mib(lambda: import_session_bundle(data, via='command')):.0f} MiB")


# --- --concurrent: an import beside an agent, in processes of their own ------------------------------


def bundle_file(args: argparse.Namespace, tmp: Path) -> Path:
    """The bundle to import: --bundle when that file exists; else built here (and kept there)."""
    path = Path(args.bundle) if args.bundle else tmp / "bench.bundle"
    if path.exists():
        print(f"bundle: {path} (built earlier)")
        return path
    setup(tmp / "build-home", tmp / "project", args.nodes)
    from exports.bundle.export import export_bundle
    from runs.models import Session

    started = time.perf_counter()
    session = Session.objects.get(public_id=build(args.nodes))
    print(f"built: {session.last_seq:,} events in {time.perf_counter() - started:.1f} s")
    path.write_bytes(export_bundle(session))
    return path


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))] if ordered else 0.0


def spread(values: list[float]) -> str:
    return (
        f"p50 {percentile(values, 0.5) * 1000:.1f} ms, p99 {percentile(values, 0.99) * 1000:.1f} ms, "
        f"max {max(values, default=0.0) * 1000:.1f} ms, n={len(values)}"
    )


def concurrent(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        path = bundle_file(args, tmp)
        home, project = tmp / "home", tmp / "project"
        setup_fresh_store = [sys.executable, __file__, "--role", "migrate", "--home", str(home)]
        subprocess.run([*setup_fresh_store, "--project", str(project), "--nodes", str(args.nodes)], check=True)
        print(f"bundle: {path.stat().st_size / 2**20:.1f} MiB")
        role = [sys.executable, __file__, "--home", str(home), "--project", str(project), "--bundle", str(path)]
        reading = json.loads(subprocess.run([*role, "--role", "read"], check=True, capture_output=True).stdout)
        print(f"read and verify alone: {reading['seconds']:.1f} s, peak RSS {reading['rss_mib']:.0f} MiB")

        ready, stop, agent_out = tmp / "agent.ready", tmp / "agent.stop", tmp / "agent.json"
        agent = subprocess.Popen(
            [*role, "--role", "agent", "--ready", str(ready), "--stop", str(stop), "--out", str(agent_out)]
        )
        while not ready.exists():
            if agent.poll() is not None:
                raise SystemExit("the agent process ended before it was ready")
            time.sleep(0.05)
        time.sleep(1.0)  # a second of the agent alone: its writes without an import beside it
        done = subprocess.run([*role, "--role", "import"], check=True, capture_output=True)
        time.sleep(1.0)
        stop.touch()
        agent.wait(timeout=120)
        imported, agent_stats = json.loads(done.stdout), json.loads(agent_out.read_text())

    holds = imported["holds"]
    rss = imported["rss"]
    events, seconds = imported["events"], imported["seconds"]
    print(f"import: {events:,} events in {seconds:.1f} s, peak RSS {imported['rss_mib']:.0f} MiB")
    print(
        f"  RSS: reading and verifying peaked at {rss['reading_peak']:.0f} MiB; the verified bundle held "
        f"{rss['verified']:.0f} MiB; writing peaked at {rss['writing_peak']:.0f} MiB (sampled every 50 ms)"
    )
    print(f"  write-lock holds: {spread(holds)}, total {sum(holds):.1f} s")
    # The agent's writes that ended while the import wrote (after its reading and checks, which take no lock).
    writing = imported["writing"], imported["end"]
    print(f"import wrote for {writing[1] - writing[0]:.1f} s (after reading and verifying the bundle)")
    during = [wait for wait, at in agent_stats["waits"] if writing[0] <= at <= writing[1]]
    calls = [took for took, at in agent_stats["calls"] if writing[0] <= at <= writing[1]]
    print(f"agent while the import wrote: wait for the write lock {spread(during)}")
    print(f"  whole continue_workflow calls {spread(calls)}; STORE_BUSY: {agent_stats['busy']}")
    alone = [wait for wait, at in agent_stats["waits"] if at < writing[0]]
    print(f"agent before the import wrote: wait for the write lock {spread(alone)}")


def role_migrate(args: argparse.Namespace) -> None:
    setup(Path(args.home), Path(args.project), args.nodes)


def timed_write_queue(on_turn: Callable[[float, float], None], on_release: Callable[[float], None]) -> None:
    """Reports each wait for a turn in the write queue (seconds, and when it ended) and each hold of it."""
    from workrail_site.sqlite_backend.write_queue import WriteQueue

    acquire, release = WriteQueue.acquire, WriteQueue.release
    turns: dict[int, float] = {}

    def timed_acquire(queue: WriteQueue) -> None:
        asked = time.time()
        try:
            acquire(queue)
        except BaseException:
            on_turn(time.time() - asked, time.time())  # gave up waiting: STORE_BUSY
            raise
        turns[id(queue)] = time.time()
        on_turn(turns[id(queue)] - asked, turns[id(queue)])

    def timed_release(queue: WriteQueue) -> None:
        held = queue.held
        release(queue)
        if held and id(queue) in turns:
            on_release(time.time() - turns.pop(id(queue)))

    WriteQueue.acquire = timed_acquire  # type: ignore[method-assign,assignment]
    WriteQueue.release = timed_release  # type: ignore[method-assign,assignment]


def peak_rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux


def current_rss_mib() -> float:
    pages = int(Path("/proc/self/statm").read_text().split()[1])  # Linux
    return pages * os.sysconf("SC_PAGE_SIZE") / 2**20


def role_read(args: argparse.Namespace) -> None:
    environment(Path(args.home), Path(args.project))
    import django

    django.setup()
    from exports.bundle.reading import read_bundle
    from exports.bundles import max_bundle_bytes

    started = time.perf_counter()
    read_bundle(Path(args.bundle).read_bytes(), max_bytes=max_bundle_bytes())
    print(json.dumps({"seconds": time.perf_counter() - started, "rss_mib": peak_rss_mib()}))


def role_import(args: argparse.Namespace) -> None:
    environment(Path(args.home), Path(args.project))
    import django

    django.setup()
    from exports.bundles import import_session_bundle

    holds: list[float] = []
    turns: list[float] = []
    rss: dict[str, float] = {}

    def on_turn(wait: float, at: float) -> None:
        if not turns:  # reading and verifying are done: what the verified bundle holds, and their peak
            rss.update(verified=current_rss_mib(), reading_peak=peak_rss_mib(), writing_peak=0.0)
        turns.append(at)

    def sample() -> None:
        while not done.is_set():
            if turns:
                rss["writing_peak"] = max(rss["writing_peak"], current_rss_mib())
            done.wait(0.05)

    done = threading.Event()
    threading.Thread(target=sample, daemon=True).start()
    timed_write_queue(on_turn, holds.append)
    start = time.time()
    result = import_session_bundle(Path(args.bundle).read_bytes(), via="command")
    end = time.time()
    done.set()
    report = {"seconds": end - start, "writing": turns[0], "end": end, "events": result.events, "holds": holds}
    print(json.dumps({**report, "rss_mib": peak_rss_mib(), "rss": rss}))


def role_agent(args: argparse.Namespace) -> None:
    """Advances a run of its own, one acknowledged step after another, until told to stop."""
    environment(Path(args.home), Path(args.project))
    import django

    django.setup()
    from runs.contract.errors import ErrorCode, WorkRailError
    from runs.mcp.tools import invoke

    waits: list[tuple[float, float]] = []
    timed_write_queue(lambda wait, at: waits.append((wait, at)), lambda held: None)
    calls: list[tuple[float, float]] = []
    busy = 0
    answer = invoke("start_workflow", {"workflowId": WORKFLOW_ID, "context": {"sessionKey": "bench-agent"}})
    Path(args.ready).touch()
    while not Path(args.stop).exists():
        started = time.time()
        try:
            answer = invoke(
                "continue_workflow",
                {"stateToken": answer["stateToken"], "ackToken": answer["ackToken"], "output": {"notesMarkdown": "x"}},
            )
        except WorkRailError as exc:
            if exc.code != ErrorCode.STORE_BUSY:
                raise
            busy += 1
        calls.append((time.time() - started, time.time()))
        if answer["kind"] == "complete":
            answer = invoke("start_workflow", {"workflowId": WORKFLOW_ID, "context": {"sessionKey": "bench-agent"}})
        time.sleep(args.agent_pause)
    Path(args.out).write_text(json.dumps({"waits": waits, "calls": calls, "busy": busy}))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--nodes", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--concurrent", action="store_true", help="an import beside an agent, in two processes")
    parser.add_argument("--bundle", help="with --concurrent: the bundle file to import (built there when missing)")
    parser.add_argument("--agent-pause", type=float, default=0.02, help="seconds between the agent's steps")
    # The processes --concurrent starts:
    parser.add_argument("--role", choices=["migrate", "read", "import", "agent"], help=argparse.SUPPRESS)
    for name in ("--home", "--project", "--ready", "--stop", "--out"):
        parser.add_argument(name, help=argparse.SUPPRESS)
    args = parser.parse_args()
    roles = {"migrate": role_migrate, "read": role_read, "import": role_import, "agent": role_agent}
    if args.role:
        roles[args.role](args)
    elif args.concurrent:
        concurrent(args)
    else:
        in_process(args)


if __name__ == "__main__":
    main()
