"""`list_workflows` over stdio with 60 workflow files on disk, through the real `mcp` client.

Run: .venv/bin/python bench/list_workflows.py [--calls 200]
Copies WorkRail's corpus (32 files, when it is beside the checkout; otherwise it says so and skips it)
and adds generated workflows until 60 files sit in a directory given by WORKRAIL_WORKFLOW_PATHS, plus
the bundled ones. Reports the first call and the median/p95 of the following calls (round trip
through the client, i.e. what an agent waits for).
"""

from __future__ import annotations

import argparse
import json
import shutil
import tempfile
import time
import warnings
from pathlib import Path

import anyio
import mcp_types as types
from _common import CORPUS, REPO, clean_env, python, summary
from mcp import Client
from mcp.client.stdio import StdioServerParameters

TARGET_FILES = 60
warnings.filterwarnings("ignore", message="ping is removed")


def populate(directory: Path) -> int:
    corpus = sorted(CORPUS.rglob("*.json")) if CORPUS.is_dir() else []
    if not corpus:
        print(f"WorkRail corpus not found at {CORPUS}: corpus files skipped, all {TARGET_FILES} files are generated")
    for path in corpus:
        target = directory / path.relative_to(CORPUS)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(path, target)
    count = sum(1 for _ in directory.rglob("*.json"))
    for index in range(TARGET_FILES - count):
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


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=200)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        workflows = work / "workflows"
        workflows.mkdir()
        files = populate(workflows)
        params = StdioServerParameters(
            command=python(),
            args=[str(REPO / "manage.py"), "mcp"],
            cwd=str(work),
            env=clean_env(work / "home", WORKRAIL_WORKFLOW_PATHS=str(workflows)),
        )
        first, timings, listed = anyio.run(measure, params, args.calls)
        raw, pings = anyio.run(transport_only, params, args.calls)
    print(f"{files} workflow files on disk, {listed} workflows listed (bundled included)")
    print(f"first list_workflows call: {first * 1000:.2f} ms")
    print(summary("list_workflows after the first call (client.call_tool)", timings))
    print(summary("list_workflows, raw tools/call without client-side schema check", raw))
    print(summary("ping (protocol round trip, for reference)", pings))


if __name__ == "__main__":
    main()
