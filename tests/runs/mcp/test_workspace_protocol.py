"""The workspace comes from the client: a server a desktop client starts in `/` records the git branch
of the client's root and lists that project's own workflows, and hears when the roots change. Through the
SDK's client and the MCP server in this process."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client
from mcp_types import ListRootsResult, Root

from tests.support.client_calls import started, structured
from tests.support.git_repos import git
from tests.support.workflow_files import workflow_doc, write_json


def repository(root: Path, branch: str) -> Path:
    """A git repository at `root` with one commit on `branch`."""
    root.mkdir(parents=True)
    git("init", "--quiet", f"--initial-branch={branch}", str(root))
    (root / "README.md").write_text("a project\n", encoding="utf-8")
    git("add", "README.md", cwd=root)
    git("commit", "--quiet", "-m", "First", cwd=root)
    return root


class Roots:
    """What the client says its roots are; the test changes them as a user opening a folder would."""

    def __init__(self, *paths: Path) -> None:
        self.paths = list(paths)
        self.asked = 0

    async def __call__(self, context: Any) -> ListRootsResult:
        self.asked += 1
        return ListRootsResult(roots=[Root(uri=path.as_uri(), name=path.name) for path in self.paths])


async def session_of(client: Client, answer: dict[str, Any]) -> dict[str, Any]:
    result = await client.read_resource(f"workrail://sessions/{answer['session']['sessionId']}")
    session: dict[str, Any] = json.loads(result.contents[0].text)["session"]
    return session


def from_root(mcp_server: Any, monkeypatch: pytest.MonkeyPatch) -> Any:
    """A server started in `/`, as desktop clients often start `manage.py mcp`, with no project directory set."""
    monkeypatch.chdir("/")
    return mcp_server.configure(WORKRAIL_PROJECT_DIR=Path("/"))


def test_a_server_started_in_root_works_in_the_clients_root(mcp_server, monkeypatch, tmp_path):
    repo = repository(tmp_path / "shop", "feature/roots")
    app = repo / "app"  # the root the client declares is inside the repository
    write_json(app / ".workrail" / "workflows" / "shop-release.json", workflow_doc("shop.release"))
    roots = Roots(app)
    server = from_root(mcp_server, monkeypatch)

    async def main() -> None:
        async with mcp_server.client(server, mode="legacy", list_roots_callback=roots) as c:
            listing = await structured(c, "list_workflows", {"namespace": "shop"})
            assert "shop.release" in {workflow["id"] for workflow in listing["workflows"]}
            answer = await started(c, "shop.release", {})
            session = await session_of(c, answer)
            assert (session["gitBranch"], session["workspacePath"]) == ("feature/roots", str(repo))
            await started(c, "shop.release", {})
            assert roots.asked == 1  # once per connection, not per call

    anyio.run(main)


@pytest.mark.filterwarnings("ignore:The roots capability is deprecated")  # in the 2026 protocol era; not in this one
def test_a_changed_root_is_asked_for_again(mcp_server, monkeypatch, tmp_path):
    first = repository(tmp_path / "alpha", "alpha-work")
    second = repository(tmp_path / "beta", "beta-work")
    roots = Roots(tmp_path / "not-a-repository", first)  # the one inside a git repository is preferred
    (tmp_path / "not-a-repository").mkdir()
    server = from_root(mcp_server, monkeypatch)

    async def main() -> None:
        async with mcp_server.client(server, mode="legacy", list_roots_callback=roots) as c:
            before = await session_of(c, await started(c, "wr.evidence_first_bug_fix", {}))
            assert before["gitBranch"] == "alpha-work"
            roots.paths = [second]
            await c.send_roots_list_changed()
            with anyio.fail_after(30):  # the notification is heard before a later call, not necessarily the next
                while True:
                    after = await session_of(c, await started(c, "wr.evidence_first_bug_fix", {}))
                    if after["gitBranch"] != "alpha-work":
                        break
            assert (after["gitBranch"], after["workspacePath"]) == ("beta-work", str(second))
            assert roots.asked == 2

    anyio.run(main)
