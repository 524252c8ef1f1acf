"""`list_workflows` over stdio with 200 workflow files on disk, through the real `mcp` client.

Run: .venv/bin/python bench/list_workflows.py [--calls 200] [--files 200]
     .venv/bin/python bench/list_workflows.py --sizes [--library DIR]

--sizes: the characters of text an agent reads from list_workflows (unfiltered, each tag, a few
queries), with WorkRail's library added from git as a user adds it (harness/library.py: DIR as the
repository's `workflows/`, the `spec/workflow-tags.json` beside DIR as its tag file; default DIR: the
corpus, its ids turned back into `wr.`), plus the bundled workflows. The targets: 4,000 characters
unfiltered, 3,000 filtered.

Copies WorkRail's corpus (32 files, when it is beside the checkout; otherwise it says so and skips it)
and adds generated workflows until --files files sit in a directory given by WORKRAIL_WORKFLOW_PATHS,
plus the bundled ones. Reports the first call (cold: right after the handshake, while the server may
still be scanning) and the median/p95 of the following calls (warm: round trip through the client,
i.e. what an agent waits for); then, in this process, a cold catalog scan of the same files and the
compile time of the largest workflow among them.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
import warnings
from pathlib import Path
from typing import TYPE_CHECKING

import anyio
import mcp_types as types

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the checkout, for bench._common
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from bench._common import CORPUS, REPO, clean_env, python, summary

if TYPE_CHECKING:  # the bench imports the project after settings are configured
    from workflows_app.catalog import WorkflowEntry
    from workflows_app.compiler import RoutineDocument

warnings.filterwarnings("ignore", message="ping is removed")


def populate(directory: Path, target_files: int) -> int:
    corpus = sorted(CORPUS.rglob("*.json")) if CORPUS.is_dir() else []
    if not corpus:
        print(f"WorkRail corpus not found at {CORPUS}: corpus files skipped, all {target_files} files are generated")
    for path in corpus:
        target = directory / path.relative_to(CORPUS)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(path, target)
    count = sum(1 for _ in directory.rglob("*.json"))
    for index in range(target_files - count):
        steps = [{"id": f"step-{n}", "title": f"Step {n}", "prompt": f"Do part {n} of job {index}."} for n in range(8)]
        document = {
            "id": f"bench.generated_{index}",
            "name": f"Generated {index}",
            "version": "1.0.0",
            "description": "A generated workflow for the benchmark.",
            "steps": steps,
        }
        (directory / f"generated_{index}.json").write_text(json.dumps(document))
    return sum(1 for _ in directory.rglob("*.json"))


async def measure(params: StdioServerParameters, calls: int) -> tuple[float, list[float], int]:
    async with Client(params, mode="legacy") as client:
        started = time.perf_counter()
        first = await client.call_tool("list_workflows", {})
        first_time = time.perf_counter() - started
        timings = []
        for _ in range(calls):
            started = time.perf_counter()
            await client.call_tool("list_workflows", {})
            timings.append(time.perf_counter() - started)
        assert first.structured_content is not None
        return first_time, timings, first.structured_content["count"]


async def transport_only(params: StdioServerParameters, calls: int) -> tuple[list[float], list[float]]:
    """The same call without the Python client's own output-schema check, and a ping, for reference."""
    async with Client(params, mode="legacy") as client:
        raw, pings = [], []
        request = types.CallToolRequest(params=types.CallToolRequestParams(name="list_workflows", arguments={}))
        for _ in range(calls):
            started = time.perf_counter()
            await client.session.send_request(request, types.CallToolResult)
            raw.append(time.perf_counter() - started)
            started = time.perf_counter()
            await client.send_ping()  # legacy era only; the cheapest request there is
            pings.append(time.perf_counter() - started)
        return raw, pings


SHOW = "--show" in sys.argv  # print each text too
QUERIES = ("bug investigation", "merge request review", "coding task", "documentation")


async def sizes(params: StdioServerParameters) -> list[tuple[str, int, int]]:
    """(arguments, characters of text, workflows listed) for the unfiltered call, each tag and QUERIES."""
    async with Client(params, mode="legacy") as client:
        found = []

        async def ask(arguments: dict[str, object]) -> dict[str, object]:
            answer = await client.call_tool("list_workflows", arguments)
            text = "".join(part.text for part in answer.content if isinstance(part, types.TextContent))
            assert answer.structured_content is not None
            found.append((json.dumps(arguments), len(text), int(answer.structured_content["count"])))
            if SHOW:
                print(f"--- list_workflows {json.dumps(arguments)}\n{text}\n")
            return answer.structured_content

        overview = await ask({})
        for tag in overview["overview"]["tags"]:  # type: ignore[index]
            await ask({"tags": [tag["id"]]})
        for query in QUERIES:
            await ask({"query": query})
        return found


def print_sizes(library: Path) -> None:
    import subprocess

    from harness.library import library_repo

    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        entry = library_repo(library, work)
        env = clean_env(work / "home", WORKRAIL_WORKFLOW_REPOS=entry)
        sync = [python(), str(REPO / "manage.py"), "sync_workflows"]
        subprocess.run(sync, cwd=work, env=env, check=False, capture_output=True, timeout=300)
        params = StdioServerParameters(command=python(), args=[str(REPO / "manage.py"), "mcp"], cwd=str(work), env=env)
        found = anyio.run(sizes, params)
    print(f"list_workflows text, WorkRail's library from {library} (git) and the bundled workflows:")
    for arguments, characters, listed in found:
        print(f"  {arguments:<45} {characters:>6} characters, {listed} workflows")
    filtered = [characters for _arguments, characters, _listed in found[1:]]
    print(f"unfiltered: {found[0][1]} characters (target 4000); largest filtered: {max(filtered)} (target 3000)")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--files", type=int, default=200)
    parser.add_argument("--sizes", action="store_true", help="Print list_workflows' text sizes (see above).")
    parser.add_argument("--show", action="store_true", help="With --sizes, print each text too.")
    parser.add_argument("--library", type=Path, default=CORPUS, help="WorkRail's workflows directory (--sizes).")
    args = parser.parse_args()
    if args.sizes:
        print_sizes(args.library)
        return
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        workflows = work / "workflows"
        workflows.mkdir()
        files = populate(workflows, args.files)
        params = StdioServerParameters(
            command=python(),
            args=[str(REPO / "manage.py"), "mcp"],
            cwd=str(work),
            env=clean_env(work / "home", WORKRAIL_WORKFLOW_PATHS=str(workflows)),
        )
        first, timings, listed = anyio.run(measure, params, args.calls)
        raw, pings = anyio.run(transport_only, params, args.calls)
        scan, largest, compile_times = in_process(work, workflows)
    print(f"{files} workflow files on disk, {listed} workflows listed (bundled included)")
    print(f"first list_workflows call: {first * 1000:.2f} ms")
    print(summary("list_workflows after the first call (client.call_tool)", timings))
    print(summary("list_workflows, raw tools/call without client-side schema check", raw))
    print(summary("ping (protocol round trip, for reference)", pings))
    print(f"cold catalog scan in-process ({files} files + bundled): {scan * 1000:.1f} ms")
    print(summary(f"compile + hash of the largest workflow ({largest})", compile_times))


def in_process(work: Path, workflows: Path) -> tuple[float, str, list[float]]:
    """A cold scan of the same files, and the compile time of the largest workflow among them."""
    import sys

    sys.path.insert(0, str(REPO))
    from workflows_app.catalog import CatalogLoader
    from workflows_app.compiler import compile_workflow
    from workflows_app.hashing import workflow_hash
    from workflows_app.sources import configured_sources

    empty = work / "empty"
    empty.mkdir()
    loader = CatalogLoader(configured_sources(workrail_home=empty, project_dir=empty, extra_paths=[workflows]))
    started = time.perf_counter()
    catalog = loader.load()
    scan = time.perf_counter() - started
    largest = max(catalog.entries, key=lambda entry: len(json.dumps(entry.document)))
    routines = {e.parsed_id.name: _routine(e) for e in catalog.entries if e.kind == "routine"}
    timings = []
    for _ in range(50):
        started = time.perf_counter()
        workflow_hash(compile_workflow(largest.document, kind=largest.kind, resolve_routine=routines.get))
        timings.append(time.perf_counter() - started)
    size = len(json.dumps(largest.document))
    return scan, f"{largest.id}, {size} bytes, {largest.step_count} steps", timings


def _routine(entry: WorkflowEntry) -> RoutineDocument:
    from workflows_app.compiler import RoutineDocument

    return RoutineDocument(entry.id, entry.document)


if __name__ == "__main__":
    main()
