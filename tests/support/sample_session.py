"""A session worth looking at, built through the services the MCP tools use: for the dashboard,
API and browser tests and the benchmarks.

`two_runs_one_forked_twice()` records a wr.risk_scaled_mr_review run that forks twice (an agent rewound to
older tokens), with notes, artifacts (changed files, findings), a checkpoint, and hostile payloads
in notes and artifacts; and a second run (wr.routine-focused_plan) in the same session.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from harness.answers import context_for
from tests.support.mcp_calls import checkpoint_workflow, continue_workflow, start_workflow

HOSTILE = (
    '<script>window.__pwned = 1</script> <img src=x onerror="window.__pwned = 2"> '
    '[click me](javascript:window.__pwned=3) <svg onload="window.__pwned=4"></svg>'
)
SESSION_KEY = "TICKET-4242"
REVIEW = "wr.risk_scaled_mr_review"
PLAN = "wr.routine-focused_plan"
CHANGED_FILES = {
    "kind": "mr_review.changed_files",
    "changedFiles": [
        {"path": "src/zeta.py", "summary": "Parse input <b>early</b>", "risk": "M"},
        {"path": "src/alpha.py", "summary": HOSTILE, "risk": "H"},
        {"path": "src/zeta.py", "summary": "Parse input early, reported twice", "risk": "L"},
    ],
}
FINDINGS = {
    "kind": "mr_review.findings",
    "findings": [
        {
            "severity": "Minor",
            "title": "Long function",
            "location": {"file": "src/zeta.py", "line": 10},
            "rationale": "Hard to follow.",
            "suggestion": "Split it.",
        },
        {
            "severity": "Critical",
            "title": "SQL built from input",
            "location": {"file": "src/alpha.py", "line": 42},
            "rationale": "The query concatenates user input.",
            "suggestion": "Use parameters.",
        },
        {
            "severity": "Major",
            "title": HOSTILE,
            # A file of the changed files (friction62a 12: src/beta.py, in none, read as the dashboard's mistake).
            "location": {"file": "src/alpha.py"},
            "rationale": "Unsafe.",
            "suggestion": "Escape it.",
        },
    ],
    # The agent's own comments, to copy as written: for two of the three findings. A comment names no severity of
    # its own: the badge beside it is its finding's (friction62a: "Nit: …" under a Minor badge read as false).
    "mrComments": [
        {
            "location": {"file": "src/alpha.py", "line": 42},
            "title": "SQL built from input",
            "body": "This builds the query from user input; could we pass `name` as a parameter instead?",
        },
        {"location": {"file": "src/zeta.py", "line": 10}, "title": "Long function", "body": "Worth splitting?"},
    ],
}


@dataclass
class Built:
    session_id: str
    review_run: str
    plan_run: str
    fork_points: list[str] = field(default_factory=list)
    answers: list[dict[str, Any]] = field(default_factory=list)


def output_for(pending: dict[str, Any] | None, notes: str) -> dict[str, Any]:
    output: dict[str, Any] = {"notesMarkdown": notes}
    contract = (pending or {}).get("outputContract") or {}
    kind = contract.get("artifactKind") or (contract.get("example") or {}).get("kind")
    if kind == "mr_review.changed_files":
        output["artifacts"] = [CHANGED_FILES]
    elif kind == "mr_review.findings":
        output["artifacts"] = [FINDINGS]
    elif contract.get("example"):
        output["artifacts"] = [contract["example"]]
    return output


def advance(answer: dict[str, Any], notes: str) -> dict[str, Any]:
    return continue_workflow(
        stateToken=answer["stateToken"],
        ackToken=answer["ackToken"],
        output=output_for(answer.get("pending"), notes),
        context=context_for(answer.get("pending")),
    )


def two_runs_one_forked_twice() -> Built:
    first = start_workflow(REVIEW, context={"sessionKey": SESSION_KEY, "changeRef": "MR !42"})
    answers = [first]
    answer = first
    for index in range(6):
        notes = f"Step {index + 1} of the review. " + (HOSTILE if index == 1 else "Looked at the diff.")
        answer = advance(answer, notes)
        answers.append(answer)
    saved = checkpoint_workflow(
        stateToken=answer["stateToken"], output={"notesMarkdown": "Checkpoint: halfway. " + HOSTILE}
    )
    built = Built(
        session_id=first["session"]["sessionId"],
        review_run=first["session"]["runId"],
        plan_run="",
        answers=answers,
    )
    # The agent is rewound twice: acknowledging older steps again with other notes forks the run.
    for older in (answers[1], answers[2]):
        retried = continue_workflow(
            stateToken=older["stateToken"],
            ackToken=_fresh_ack(older),
            output=output_for(older.get("pending"), "A second look after a rewind."),
            context=context_for(older.get("pending")),
        )
        built.fork_points.append(str(retried["stateToken"]))
    # Then the agent goes on along its first branch: the newest node is there.
    built.answers.append(advance(saved, "Went on after the checkpoint."))
    plan = start_workflow(PLAN, context={"sessionKey": SESSION_KEY})
    advance(plan, "Planned the follow-up.")
    built.plan_run = plan["session"]["runId"]
    return built


def _fresh_ack(answer: dict[str, Any]) -> str:
    """Rehydrating a node that already has a child gives a fresh ackToken: using it forks."""
    return str(continue_workflow(stateToken=answer["stateToken"])["ackToken"])
