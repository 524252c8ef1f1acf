"""The product's outer surface is pinned: every MCP answer of a fixed scenario and the HTTP API's OpenAPI
document are compared byte for byte with tests/snapshots/surface/.

The scenario (tests/surface/scenario.py) drives `manage.py mcp` with the real `mcp` client through every
tool, answer kind, resource, prompt and a set of refusals; the OpenAPI document is fetched through its URL.
Neither imports the product's modules, so a refactor that moves code around cannot change what is
recorded, only what the server answers. Tokens, ids, times and paths are normalized
(tests/surface/normalize.py), so the same code gives the same bytes on every run.

A failure prints a unified diff of the transcript. After an intended change to an answer, rewrite the
snapshots instead of comparing them with

    UPDATE_SNAPSHOTS=1 .venv/bin/pytest tests/surface/test_surface_snapshots.py

and review the diff of tests/snapshots/surface/ before committing. To compare two commits directly (a
refactor's base and the working tree), use scripts/compare-surfaces.
"""

from __future__ import annotations

import difflib
import os
from pathlib import Path

import pytest

from tests.surface.transcript import MCP_FILE, OPENAPI_FILE, Recording, record

pytestmark = pytest.mark.subprocess  # drives `manage.py mcp` and `manage.py shell` as processes

CHECKOUT = Path(__file__).resolve().parents[2]
SNAPSHOTS = CHECKOUT / "tests" / "snapshots" / "surface"
MAX_DIFF_LINES = 400  # enough to read a changed answer; a wholesale change is better read with git diff


def updating_snapshots() -> bool:
    return os.environ.get("UPDATE_SNAPSHOTS") == "1"


@pytest.fixture(scope="module")
def recording(tmp_path_factory: pytest.TempPathFactory) -> Recording:
    """One server process and one OpenAPI fetch for the whole module."""
    return record(CHECKOUT, tmp_path_factory.mktemp("surface"))


@pytest.fixture(scope="module")
def surfaces(recording: Recording) -> dict[str, str]:
    return recording.texts()


def unified_diff(expected: str, actual: str, name: str) -> str:
    lines = list(
        difflib.unified_diff(
            expected.splitlines(keepends=True),
            actual.splitlines(keepends=True),
            fromfile=f"tests/snapshots/surface/{name}",
            tofile=f"{name} (this checkout)",
        )
    )
    shown = "".join(lines[:MAX_DIFF_LINES])
    if len(lines) > MAX_DIFF_LINES:
        shown += f"\n... {len(lines) - MAX_DIFF_LINES} more diff lines\n"
    return shown


@pytest.mark.parametrize("name", [MCP_FILE, OPENAPI_FILE])
def test_the_surface_matches_its_snapshot(surfaces: dict[str, str], name: str) -> None:
    path = SNAPSHOTS / name
    if updating_snapshots():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(surfaces[name], encoding="utf-8")
        return
    assert path.is_file(), f"No snapshot {path}; create it with UPDATE_SNAPSHOTS=1 (see the module docstring)."
    expected = path.read_text(encoding="utf-8")
    if surfaces[name] != expected:
        pytest.fail(
            f"{name} differs from its snapshot; if the change is intended, rerun with UPDATE_SNAPSHOTS=1.\n"
            + unified_diff(expected, surfaces[name], name),
            pytrace=False,
        )


def test_the_scenario_calls_every_tool_the_server_lists(recording: Recording) -> None:
    """A new tool (or one renamed) must join the scenario, or its answers would not be pinned."""
    listed = next(entry["answer"] for entry in recording.entries if entry["request"]["method"] == "tools/list")
    called = {
        entry["request"]["params"]["name"] for entry in recording.entries if entry["request"]["method"] == "tools/call"
    }
    assert {tool["name"] for tool in listed["tools"]} <= called


def test_the_scenario_reads_every_kind_of_resource_and_prompt(recording: Recording) -> None:
    methods = [entry["request"]["method"] for entry in recording.entries]
    for method in ("initialize", "resources/list", "resources/templates/list", "resources/read"):
        assert method in methods
    assert {"prompts/list", "prompts/get"} <= set(methods)
    templates = next(e["answer"] for e in recording.entries if e["request"]["method"] == "resources/templates/list")
    read = [
        entry["request"]["params"]["uri"]
        for entry in recording.entries
        if entry["request"]["method"] == "resources/read"
    ]
    for template in templates["resourceTemplates"]:
        prefix = template["uriTemplate"].split("{")[0]
        assert any(uri.startswith(prefix) for uri in read), f"no read of {template['uriTemplate']}"
