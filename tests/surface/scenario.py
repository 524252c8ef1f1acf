"""The fixed conversation the surface snapshot records: one MCP client session that exercises every tool,
every kind of answer (step, replay, branch, recap, checkpoint, completion, loop, refusal), the resources
and the prompts, as a literal agent would, against a server with an empty home.

It talks to the product only through the wire (the real `mcp` client driving `manage.py mcp`), never by
importing the product's modules, so it records the same calls on any commit, before and after a
refactor moves the code around. Each call is recorded as the client received it; what legitimately
differs between runs (tokens, ids, times) is replaced afterwards (tests/surface/normalize.py).
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

from mcp import Client
from mcp.shared.exceptions import MCPError

SHORT = "surface.short"
LOOPS = "surface.loops"
CONTINUE, STOP = "continue", "stop"

# Two workflows the scenario owns, written into the project directory, so the scenario does not depend on
# the tests' fixture files (which a refactor may move) and covers a short run and every loop kind.
PROJECT_WORKFLOWS: dict[str, dict[str, Any]] = {
    SHORT: {
        "id": SHORT,
        "name": "Surface: a short workflow",
        "description": "Two plain steps, so a run completes in two acknowledgements.",
        "version": "1.0.0",
        "steps": [
            {"id": "write-notes", "title": "Write notes", "prompt": "Write down what {{topic}} needs."},
            {"id": "sign-off", "title": "Sign off", "prompt": "Sign off the notes for {{topic}}."},
        ],
    },
    LOOPS: {
        "id": LOOPS,
        "name": "Surface: loops",
        "description": "A forEach loop over context items, then a loop steered by wr.loop_control artifacts.",
        "version": "1.0.0",
        "steps": [
            {"id": "list-items", "title": "List the items", "prompt": "There are {{items.length}} items; list them."},
            {
                "id": "item-loop",
                "type": "loop",
                "title": "Each item",
                "loop": {"type": "forEach", "items": "items", "itemVar": "item", "maxIterations": 5},
                "body": [{"id": "handle-item", "title": "Handle {{item}}", "prompt": "Handle {{item}}."}],
            },
            {
                "id": "review-loop",
                "type": "loop",
                "title": "Review until done",
                "loop": {
                    "type": "while",
                    "conditionSource": {"kind": "artifact_contract", "contractRef": "wr.contracts.loop_control"},
                    "maxIterations": 3,
                },
                "body": [
                    {
                        "id": "review-pass",
                        "title": "Review",
                        "prompt": "Review the work; send a wr.loop_control artifact: continue or stop.",
                        "outputContract": {"contractRef": "wr.contracts.loop_control", "required": True},
                    }
                ],
            },
            {"id": "wrap-up", "title": "Wrap up", "prompt": "Summarise the items handled."},
        ],
    },
}

# Set when the server starts: start_session is off by default, resume_session and checkpoints are on.
SERVER_FLAGS = {
    "WORKRAIL_ENABLE_START_SESSION": "1",
    "WORKRAIL_ENABLE_RESUME_SESSION": "1",
    "WORKRAIL_ENABLE_CHECKPOINT": "1",
}


def write_project_workflows(project_dir: Path) -> None:
    """The scenario's own workflows, where the server finds a project's workflows (./.workrail/workflows)."""
    folder = project_dir / ".workrail" / "workflows"
    folder.mkdir(parents=True, exist_ok=True)
    for workflow_id, document in PROJECT_WORKFLOWS.items():
        (folder / f"{workflow_id}.json").write_text(json.dumps(document, indent=2), encoding="utf-8")


def as_wire(result: Any) -> Any:
    """A result model as the JSON the server sent: wire names, and only the fields the answer carried."""
    return result.model_dump(mode="json", by_alias=True, exclude_unset=True)


@dataclass
class Recorder:
    """Calls the server and keeps every request and answer in order."""

    client: Client
    entries: list[dict[str, Any]] = field(default_factory=list)

    def record(self, label: str, request: dict[str, Any], answer: Any) -> None:
        self.entries.append({"label": label, "request": request, "answer": answer})

    async def request(self, label: str, method: str, params: dict[str, Any], send: Callable[[], Awaitable[Any]]) -> Any:
        """Any request; a JSON-RPC error is recorded as the error the client raised."""
        try:
            answer = as_wire(await send())
        except MCPError as error:
            answer = {"jsonrpcError": as_wire(error.error)}
        self.record(label, {"method": method, "params": params}, answer)
        return answer

    async def tool(self, label: str, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        """tools/call; returns the structured answer (or the JSON-RPC error) for the next calls to use."""
        answer = await self.request(
            label,
            "tools/call",
            {"name": name, "arguments": arguments},
            lambda: self.client.call_tool(name, arguments),
        )
        return answer.get("structuredContent") or answer


def tampered(token: str) -> str:
    """The same token with its last character changed: well formed, but its signature no longer matches."""
    return token[:-1] + ("B" if token[-1] == "A" else "A")


def loop_control(decision: str) -> dict[str, Any]:
    return {"kind": "wr.loop_control", "decision": decision}


async def run_scenario(client: Client) -> list[dict[str, Any]]:
    """Drives the whole scenario through `client` (connected with the initialize handshake)."""
    rec = Recorder(client)
    session = client.session
    initialize = session.initialize_result
    rec.record("the server's initialize result", {"method": "initialize"}, as_wire(initialize))
    await rec.request("every tool with its schemas", "tools/list", {}, client.list_tools)
    await _resources_and_prompts(rec)
    await _catalog(rec)
    short_run = await _short_run(rec)
    loop_run = await _loop_run(rec)
    await _checkpoints_and_sessions(rec, short_run, loop_run)
    await _resources_of_runs(rec, short_run, loop_run)
    await _refusals(rec, short_run)
    return rec.entries


async def _resources_and_prompts(rec: Recorder) -> None:
    client = rec.client
    await rec.request("resources", "resources/list", {}, client.list_resources)
    await rec.request("resource templates", "resources/templates/list", {}, client.list_resource_templates)
    await rec.request("prompts", "prompts/list", {}, client.list_prompts)
    for label, name, arguments in (
        ("a prompt with its arguments", SHORT, {"topic": "the release"}),
        ("a prompt for a workflow with loops", LOOPS, {}),
        ("a prompt with an unknown argument", SHORT, {"colour": "red"}),
        ("a prompt that does not exist", "nope.nothing", {}),
    ):
        await rec.request(
            label,
            "prompts/get",
            {"name": name, "arguments": arguments},
            partial(client.get_prompt, name, arguments),
        )


async def _catalog(rec: Recorder) -> None:
    await rec.tool("the whole catalog", "list_workflows", {})
    await rec.tool("only routines", "list_workflows", {"kind": "routine"})
    await rec.tool("one namespace", "list_workflows", {"namespace": "surface"})
    await rec.tool("a project workflow's outline", "inspect_workflow", {"workflowId": SHORT})
    await rec.tool(
        "a project workflow with loops, previewed", "inspect_workflow", {"workflowId": LOOPS, "mode": "preview"}
    )
    await rec.tool(
        "a bundled workflow with a loop, previewed",
        "inspect_workflow",
        {"workflowId": "wr.code_review", "mode": "preview"},
    )
    await rec.tool("a bundled routine", "inspect_workflow", {"workflowId": "wr.routine-focused_plan"})


async def _short_run(rec: Recorder) -> dict[str, Any]:
    """Start without a goal, advance, replay, fork from the first step, rehydrate, complete."""
    first = await rec.tool(
        "start without a goal", "start_workflow", {"workflowId": SHORT, "context": {"topic": "the release"}}
    )
    ack = {
        "stateToken": first["stateToken"],
        "ackToken": first["ackToken"],
        "output": {"notesMarkdown": "The release needs a changelog and a tag."},
        "context": {"owner": "Dana"},
    }
    second = await rec.tool("advance with notes and context", "continue_workflow", ack)
    await rec.tool("the same acknowledgement again (idempotent replay)", "continue_workflow", ack)
    different = {**ack, "output": {"notesMarkdown": "Something else entirely."}}
    await rec.tool("the same ackToken with a different output", "continue_workflow", different)
    back = await rec.tool(
        "rehydrate the first step from its stateToken only", "continue_workflow", {"stateToken": first["stateToken"]}
    )
    await rec.tool(
        "fork: acknowledge the first step again from the rehydrated tokens",
        "continue_workflow",
        {
            "stateToken": back["stateToken"],
            "ackToken": back["ackToken"],
            "output": {"notesMarkdown": "On second thought, the release needs only a tag."},
        },
    )
    await rec.tool("rehydrate the first branch's tip", "continue_workflow", {"stateToken": second["stateToken"]})
    done = await rec.tool(
        "complete the short workflow",
        "continue_workflow",
        {
            "stateToken": second["stateToken"],
            "ackToken": second["ackToken"],
            "output": {"notesMarkdown": "Signed off."},
        },
    )
    await rec.tool("rehydrate a completed run", "continue_workflow", {"stateToken": done["stateToken"]})
    return {"first": first, "second": second, "done": done}


async def _loop_run(rec: Recorder) -> dict[str, Any]:
    """Start with a goal and walk a forEach loop and an artifact-driven loop to completion. The pass without
    its artifact is blocked; its answer's tokens (the same step, a fresh ackToken) are the next call's."""
    start = answer = await rec.tool(
        "start with a goal and loop inputs",
        "start_workflow",
        {"workflowId": LOOPS, "goal": "Handle the two items", "context": {"items": ["alpha", "beta"]}},
    )
    outputs: list[tuple[str, dict[str, Any]]] = [
        ("the items listed", {"notesMarkdown": "Two items: alpha and beta."}),
        ("first forEach round", {"notesMarkdown": "Handled alpha."}),
        ("second forEach round", {"notesMarkdown": "Handled beta."}),
        ("a review pass without its required artifact", {"notesMarkdown": "Reviewed once."}),
        (
            "a review pass that asks for another round",
            {"notesMarkdown": "One fix left.", "artifacts": [loop_control(CONTINUE)]},
        ),
        ("a review pass that ends the loop", {"notesMarkdown": "All good.", "artifacts": [loop_control(STOP)]}),
        ("wrap up: the run completes", {"notesMarkdown": "Both items handled."}),
    ]
    for label, output in outputs:
        answer = await rec.tool(
            label,
            "continue_workflow",
            {"stateToken": answer["stateToken"], "ackToken": answer["ackToken"], "output": output},
        )
    return {"start": start, "done": answer}


async def _checkpoints_and_sessions(rec: Recorder, short_run: dict[str, Any], loop_run: dict[str, Any]) -> None:
    await rec.tool(
        "checkpoint a run's step",
        "checkpoint_workflow",
        {"stateToken": short_run["second"]["stateToken"], "output": {"notesMarkdown": "Tag name agreed: v2.1."}},
    )
    await rec.tool(
        "checkpoint a completed run",
        "checkpoint_workflow",
        {"stateToken": loop_run["done"]["stateToken"], "output": {"notesMarkdown": "Follow-up for beta filed."}},
    )
    notes = await rec.tool(
        "start a checkpoint-only session",
        "start_session",
        {"title": "Release notes", "sessionKey": "release-notes", "tags": ["release"]},
    )
    await rec.tool("start_session with the same key joins it", "start_session", {"sessionKey": "release-notes"})
    await rec.tool(
        "checkpoint into the session",
        "checkpoint_workflow",
        {"sessionToken": notes["sessionToken"], "output": {"notesMarkdown": "Changelog drafted for the release."}},
    )
    await rec.tool("resume by the user's words", "resume_session", {"query": "release changelog tag"})
    await rec.tool("resume by a goal's words", "resume_session", {"query": "two items"})
    await rec.tool("resume with nothing to go on", "resume_session", {})
    await rec.tool("resume that finds nothing", "resume_session", {"query": "kubernetes migration"})


async def _resources_of_runs(rec: Recorder, short_run: dict[str, Any], loop_run: dict[str, Any]) -> None:
    client = rec.client
    short_id = short_run["first"]["session"]["runId"]
    loop_id = loop_run["start"]["session"]["runId"]
    loop_session = loop_run["start"]["session"]["sessionId"]
    tip = short_run["second"]["stateToken"]
    for label, uri in (
        ("the catalog resource", "workrail://workflows"),
        ("a workflow resource", f"workrail://workflows/{LOOPS}"),
        ("a forked run's resource", f"workrail://runs/{short_id}"),
        ("a completed run with loops", f"workrail://runs/{loop_id}"),
        ("a run's notes", f"workrail://runs/{short_id}/notes"),
        ("a run's notes on one branch", f"workrail://runs/{short_id}/notes?stateToken={tip}"),
        ("a session's artifacts", f"workrail://sessions/{loop_session}/artifacts"),
        ("a run that does not exist", "workrail://runs/run_0000000000000000"),
        ("a resource that does not exist", "workrail://nothing"),
    ):
        await rec.request(label, "resources/read", {"uri": uri}, partial(client.read_resource, uri))
    for label, method, uri in (
        ("subscribe to a run", "resources/subscribe", f"workrail://runs/{short_id}"),
        ("unsubscribe from it", "resources/unsubscribe", f"workrail://runs/{short_id}"),
        ("subscribe to the catalog, which cannot be", "resources/subscribe", "workrail://workflows"),
        (
            "subscribe to a session that does not exist",
            "resources/subscribe",
            "workrail://sessions/ses_0000000000000000",
        ),
    ):
        send = client.subscribe_resource if method == "resources/subscribe" else client.unsubscribe_resource
        await rec.request(label, method, {"uri": uri}, partial(send, uri))


async def _refusals(rec: Recorder, short_run: dict[str, Any]) -> None:
    state = short_run["second"]["stateToken"]
    await rec.tool("a malformed stateToken", "continue_workflow", {"stateToken": "not-a-token"})
    await rec.tool("a token of the wrong kind", "continue_workflow", {"stateToken": short_run["second"]["ackToken"]})
    await rec.tool("a tampered stateToken", "continue_workflow", {"stateToken": tampered(state)})
    await rec.tool(
        "a tampered ackToken",
        "continue_workflow",
        {"stateToken": state, "ackToken": tampered(short_run["second"]["ackToken"]), "output": {"notesMarkdown": "x"}},
    )
    await rec.tool("an unknown workflow id", "start_workflow", {"workflowId": "nope.nothing"})
    await rec.tool("inspect an unknown workflow id", "inspect_workflow", {"workflowId": "nope.nothing"})
    await rec.tool("an argument of the wrong type", "inspect_workflow", {"workflowId": SHORT, "mode": 3})
    await rec.tool("a required argument missing", "start_workflow", {})
    await rec.tool("an unknown tool argument", "start_workflow", {"workflowId": SHORT, "bogus": True})
    await rec.tool("an output of the wrong shape", "continue_workflow", {"stateToken": state, "output": "notes"})
    await rec.tool(
        "an artifact that breaks its contract",
        "checkpoint_workflow",
        {"stateToken": state, "output": {"artifacts": [{"kind": "wr.loop_control", "decision": "maybe"}]}},
    )
    await rec.tool("checkpoint with neither token", "checkpoint_workflow", {"output": {"notesMarkdown": "x"}})
    await rec.tool("a tool that does not exist", "no_such_tool", {})
