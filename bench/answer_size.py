"""How many characters of text an agent reads, from discovery to a workflow's last step.

Run: .venv/bin/python bench/answer_size.py [--library DIR] [--workflow ID ...] [--filter JSON]
                                           [--original "CMD ..."]

One `manage.py mcp` server over stdio (harness/stdio.py), with WorkRail's workflow library configured
as a user configures it (`--library DIR`, a directory of WorkRail workflow files): a git repository in
WORKRAIL_WORKFLOW_REPOS (a local one, made of DIR as `workflows/` and the `spec/` beside DIR, which holds
`workflow-tags.json` in WorkRail's own repository), pinned with `manage.py sync_workflows`; WorkRail's
`wr.` ids load only from git. Default: the corpus the tests use (WR_TEST_CORPUS_DIR, else shared/ beside
the checkout), when it exists. For each workflow (default: WorkRail's wr.bug-investigation when the
library has it, and every bundled workflow) it counts the characters of the text content of each
answer, which is what an agent reads first:
- the tools' descriptions and input schemas (tools/list: each title, description and inputSchema);
- list_workflows without filters, and filtered (`--filter`, default {"query": "<the id's words>"};
  a server that refuses the filter prints "refused");
- inspect_workflow in mode metadata, and in mode preview;
- start_workflow with a goal of about 600 characters, then every answer of a whole walk to the end,
  by an agent that fills every blank of each nextCall with a placeholder-but-valid value
  (harness/agent.py), delegated runs included (counted apart);
- a rewind view (continue_workflow with only the stateToken of the third answer, which by then has a
  branch grown from it) and a resume (resume_session with the goal's words, then continue_workflow
  with the tip's stateToken).
The totals: discovery (tools, both lists, inspect metadata), "discovery + the first nine answers" (the
figure issue 28 compares: 38k in the original), and the whole run with its discovery.

`--original CMD` starts another MCP server with CMD (split like a shell would; e.g. the TypeScript
original: `--original "npx -y @exaudeus/workrail"`) and walks the same workflows on it, printing its
figures beside ours (it bundles WorkRail's library itself). Its answers are read the same way (the
text content); its walk sends the stateToken and ackToken it answered with and notes for each step
(its nextCall when it gives one).
The original is not installable in this repository's environment, so that column has not been
measured here; without the option it is left out. Figures only: nothing is asserted.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the checkout, for bench._common
from bench._common import CORPUS, REPO, clean_env
from harness.agent import next_arguments
from harness.processes import clean_env as bare_env
from harness.processes import manage_command, run_captured
from harness.stdio import HarnessError, StdioServer

LIBRARY_WORKFLOW = "wr.bug-investigation"
BUNDLED = [
    "wr.evidence_first_bug_fix",
    "wr.code_review",
    "wr.change_in_slices",
    "wr.risk_scaled_mr_review",
    "wr.workflow_authoring",
]
GOAL = (
    "Customers on the Pro plan are charged twice when their card needs a 3-D Secure check: the first charge "
    "is made before the check, and a second one after it succeeds. It started with the payments release of "
    "last Tuesday (v4.12). Find the root cause and where in the code it lives, and say how sure you are. "
    "Requirements from the ticket: reproduce it with a test before explaining it; keep the fix direction "
    "high level; note every file you read; list what the support team should tell affected customers; the "
    "docs page on retries and the changelog must be updated by whoever fixes it, so name both in the hand-off."
)
MAX_CALLS = 400
NINE = 9  # discovery plus the first nine answers: the figure the issue compares with the original's


@dataclass
class Walk:
    """What an agent read on one server, for one workflow: (label, characters) in reading order."""

    workflow: str
    tools: int = 0
    discovery: list[tuple[str, int]] = field(default_factory=list)
    answers: list[tuple[str, int]] = field(default_factory=list)  # start, then each step's answer
    delegated: list[int] = field(default_factory=list)
    extra: list[tuple[str, int]] = field(default_factory=list)  # inspect preview, rewind, resume
    note: str = ""

    def discovery_total(self) -> int:
        return self.tools + sum(chars for label, chars in self.discovery)

    def rows(self) -> list[tuple[str, int | None]]:
        rows: list[tuple[str, int | None]] = [("tools: descriptions and input schemas", self.tools)]
        rows += self.discovery + self.extra[:1]
        rows += [(label, chars) for label, chars in self.answers]
        if self.delegated:
            rows.append((f"delegated runs ({len(self.delegated)} answers)", sum(self.delegated)))
        rows += self.extra[1:]
        first = self.answers[:NINE]
        run = sum(chars for _, chars in self.answers) + sum(self.delegated)
        rows += [
            ("= discovery without the tools' descriptions", self.discovery_total() - self.tools),
            ("= discovery (tools, both lists, inspect metadata)", self.discovery_total()),
            (f"= discovery + the first {len(first)} answers", self.discovery_total() + sum(c for _, c in first)),
            (f"= whole run ({len(self.answers)} answers) with its discovery", self.discovery_total() + run),
        ]
        return rows


def text_of(result: dict[str, Any]) -> str:
    return "\n".join(part.get("text", "") for part in result.get("content", []) if part.get("type") == "text")


class Reader:
    """One server, and the characters of what it answered."""

    def __init__(self, server: StdioServer) -> None:
        self.server = server

    def call(self, tool: str, arguments: dict[str, Any]) -> tuple[dict[str, Any], int]:
        result = self.server.call(tool, arguments)
        return result, len(text_of(result))

    def tools(self) -> int:
        listed = self.server.request("tools/list", {})["tools"]
        return sum(
            len(tool.get("title") or "") + len(tool.get("description") or "") + len(json.dumps(tool["inputSchema"]))
            for tool in listed
        )


def id_words(workflow_id: str) -> str:
    return " ".join(re.split(r"[._-]+", workflow_id.removeprefix("wr.")))


def walk(reader: Reader, workflow_id: str, filters: dict[str, Any] | None, ours: bool) -> Walk:
    found = Walk(workflow_id, tools=reader.tools())
    _, listed = reader.call("list_workflows", {})
    found.discovery.append(("list_workflows, no filter", listed))
    chosen = filters if filters is not None else {"query": id_words(workflow_id)}
    result, chars = reader.call("list_workflows", chosen)
    if result.get("isError"):  # a server without that filter: an agent would not have read a list there
        found.discovery.append((f"list_workflows {json.dumps(chosen)} (refused: not counted)", 0))
    else:
        found.discovery.append((f"list_workflows {json.dumps(chosen)}", chars))
    _, chars = reader.call("inspect_workflow", {"workflowId": workflow_id})
    found.discovery.append(("inspect_workflow (metadata)", chars))
    _, chars = reader.call("inspect_workflow", {"workflowId": workflow_id, "mode": "preview"})
    found.extra.append(("inspect_workflow (preview; not in the totals)", chars))
    start = {"workflowId": workflow_id, "goal": GOAL} if ours else {"workflowId": workflow_id}
    result, chars = reader.call("start_workflow", start)
    if result.get("isError"):
        found.note = f"start_workflow refused: {text_of(result)[:300]}"
        return found
    found.answers.append(("start_workflow", chars))
    answers = [result["structuredContent"]]
    for _ in range(MAX_CALLS):
        answer = answers[-1]
        if answer.get("isComplete"):
            break
        for delegation in (answer.get("pending") or {}).get("delegations") or []:
            if delegation.get("stateToken") and delegation.get("status") != "complete":
                found.delegated += delegated_walk(reader, delegation["stateToken"])
        result, chars = reader.call("continue_workflow", step_arguments(answer))
        if result.get("isError"):
            found.note = f"continue_workflow refused: {text_of(result)[:300]}"
            return found
        answer = result["structuredContent"]
        pending = answer.get("pending") or {}
        label = "blocked, retry" if answer.get("kind") == "blocked" else pending.get("stepId") or "complete"
        found.answers.append((f"  answer {len(found.answers) + 1}: {label}", chars))
        answers.append(answer)
    if len(answers) > 2:
        _, chars = reader.call("continue_workflow", {"stateToken": answers[2]["stateToken"]})
        found.extra.append(("rewind view (the third answer's stateToken; not in the totals)", chars))
    result, chars = reader.call("resume_session", {"query": GOAL[:120]})
    found.extra.append(("resume_session (not in the totals)", chars))
    tip = answers[-1]["stateToken"]
    _, chars = reader.call("continue_workflow", {"stateToken": tip})
    found.extra.append(("resume: continue_workflow with the tip's stateToken (not in the totals)", chars))
    return found


def step_arguments(answer: dict[str, Any]) -> dict[str, Any]:
    """Ours (and any server that says its next call): nextCall, blanks filled. Else the tokens and notes."""
    if answer.get("nextCall"):
        return next_arguments(answer)
    return {
        "stateToken": answer["stateToken"],
        "ackToken": answer["ackToken"],
        "output": {"notesMarkdown": f"Completed {(answer.get('pending') or {}).get('stepId', 'the step')}."},
    }


def delegated_walk(reader: Reader, state_token: str) -> list[int]:
    """A delegated run carried out to its end, as a subagent would: the characters of each answer."""
    result, chars = reader.call("continue_workflow", {"stateToken": state_token})
    read = [chars]
    for _ in range(MAX_CALLS):
        answer = result["structuredContent"]
        if result.get("isError") or answer.get("isComplete"):
            break
        result, chars = reader.call("continue_workflow", step_arguments(answer))
        read.append(chars)
    return read


def serve(command: list[str], env: dict[str, str], work: Path, label: str) -> StdioServer:
    server = StdioServer(env, work, work / f"{label}.log", timeout=120, command=command)
    server.initialize()
    return server


def measure(
    command: list[str], env: dict[str, str], work: Path, label: str, workflows: list[str], filters: Any, ours: bool
) -> dict[str, Walk]:
    server = serve(command, env, work, label)
    try:
        reader = Reader(server)
        return {workflow_id: walk(reader, workflow_id, filters, ours) for workflow_id in workflows}
    finally:
        server.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    corpus = Path(os.environ.get("WR_TEST_CORPUS_DIR") or CORPUS)  # as the tests find it
    default_library = corpus if corpus.is_dir() else None
    parser.add_argument("--library", type=Path, default=default_library, help="a directory of WorkRail workflows")
    parser.add_argument("--workflow", action="append", help="a workflow id to walk (repeatable)")
    parser.add_argument("--filter", type=json.loads, help="list_workflows arguments for the filtered list (JSON)")
    parser.add_argument("--original", help="the command that starts the original (TypeScript) WorkRail over stdio")
    args = parser.parse_args()
    library: Path | None = args.library.resolve() if args.library else None
    workflows = args.workflow or [
        *([LIBRARY_WORKFLOW] if library and has_workflow(library, LIBRARY_WORKFLOW) else []),
        *BUNDLED,
    ]
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        (work / "project").mkdir()
        extra = {"WORKRAIL_WORKFLOW_REPOS": library_repository(library, work)} if library else {}
        env = clean_env(
            work / "home",
            WORKRAIL_PROJECT_DIR=str(work / "project"),
            WORKRAIL_RATE_LIMIT_BURST="100000",
            WORKRAIL_RATE_LIMIT_PER_MINUTE="1000000",
            **extra,
        )
        if library:
            done = run_captured(manage_command("sync_workflows"), env=env, cwd=work, timeout=300)
            if "pinned at" not in done.stdout:  # a file with errors is left out (exit 1), the rest is pinned
                raise HarnessError(f"sync_workflows failed: {done.stdout[-1000:]}{done.stderr[-2000:]}")
        ours = measure(manage_command("mcp"), env, work, "ours", workflows, args.filter, ours=True)
        theirs: dict[str, Walk] = {}
        if args.original:
            # The original bundles WorkRail's library itself: it is started as it is, in its own environment.
            theirs = measure(shlex.split(args.original), bare_env(), work, "original", workflows, args.filter, False)
    print(f"Characters of text an agent reads ({REPO.name}; library: {library or 'none'})")
    for workflow_id, found in ours.items():
        report(found, theirs.get(workflow_id))


def library_repository(library: Path, work: Path) -> str:
    """WorkRail's library as a user adds it: a git repository (here a local one, reached by file://)
    holding its workflows/ and, beside them as in WorkRail's own repository, spec/workflow-tags.json.
    The WORKRAIL_WORKFLOW_REPOS entry that names it."""
    repo = work / "workrail-library"
    shutil.copytree(library, repo / "workflows")
    spec = library.parent / "spec"
    if spec.is_dir():
        shutil.copytree(spec, repo / "spec")
    for command in (
        ["git", "init", "-q", "-b", "main"],
        ["git", "add", "-A"],
        ["git", "-c", "user.name=bench", "-c", "user.email=bench@example.com", "commit", "-q", "-m", "library"],
    ):
        subprocess.run(command, cwd=repo, check=True, env={**os.environ, "GIT_CONFIG_GLOBAL": os.devnull})
    return f"workrail=file://{repo}#main:workflows"


def has_workflow(library: Path, workflow_id: str) -> bool:
    for path in library.rglob("*.json"):
        try:
            if json.loads(path.read_text()).get("id") == workflow_id:
                return True
        except (ValueError, OSError, AttributeError):
            continue
    return False


def report(ours: Walk, theirs: Walk | None) -> None:
    print()
    print(f"== {ours.workflow}" + (f" ({ours.note})" if ours.note else ""))
    other = dict(theirs.rows()) if theirs is not None else {}
    heading = f"{'':78} {'ours':>8}" + (f" {'original':>9}" if theirs is not None else "")
    print(heading)
    for label, chars in ours.rows():
        line = f"{label:78} {chars if chars is not None else '-':>8}"
        if theirs is not None:
            line += f" {other.get(label, '-'):>9}"
        print(line)
    if theirs is not None and theirs.note:
        print(f"original: {theirs.note}")


if __name__ == "__main__":
    try:
        main()
    except HarnessError as exc:
        raise SystemExit(f"answer_size: {exc}") from exc
