"""Issue 20's sessions, built through the services the MCP tools use: a merge-request review that
finished on one branch and goes on, unfinished, on another; and a run whose last answer was refused.

`forked_review()`: wr.risk_scaled_mr_review run to its end on branch 1 (a Critical finding, "Verdict: Request
changes."), then the agent rewound to the changed-files step and went on along branch 2 (the newest,
open at "Review ..."), with other notes and no finding yet.

`blocked_review()`: wr.risk_scaled_mr_review whose agent sent the changed-files step without its artifact: the step
is refused (blocked) and the run stands there.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from tests.support.mcp_calls import continue_workflow, start_workflow
from tests.support.sample_session import advance

REVIEW = "wr.risk_scaled_mr_review"
VERDICT_NOTES = "Findings: 1 Critical.\n\n**Verdict:** Request changes — the query is built from input."
CRITICAL = {
    "kind": "mr_review.findings",
    "findings": [
        {
            "severity": "Critical",
            "title": "SQL built from user input",
            "location": {"file": "src/orders.py", "line": 42},
            "rationale": "The search term is concatenated into the query.",
            "suggestion": "Pass it as a parameter.",
        },
    ],
}


@dataclass
class ForkedReview:
    session_id: str
    run_id: str
    done_tip: str = ""  # node id: where branch 1 completed
    open_tip: str = ""  # node id: the newest node, branch 2's tip
    answers: list[dict[str, Any]] = field(default_factory=list)  # branch 1's, from the start


def node_id_of(answer: dict[str, Any]) -> str:
    from django.conf import settings

    from runs.store import tokens
    from runs.store.tokens import TokenKind

    return str(tokens.parse(settings.WORKRAIL_HOME, answer["stateToken"], TokenKind.STATE).id)


def _notes_for(answer: dict[str, Any]) -> str:
    step = (answer.get("pending") or {}).get("stepId")
    if step == "record-findings":
        return VERDICT_NOTES
    if step == "review-summary":
        return "Summary: one Critical finding; request changes before merging."
    return f"Did {step}."


def forked_review(key: str = "MR-42") -> ForkedReview:
    start = start_workflow(REVIEW, context={"sessionKey": key, "changeRef": "MR !42"})
    built = ForkedReview(start["session"]["sessionId"], start["session"]["runId"], answers=[start])
    answer = start
    while not answer["isComplete"]:
        pending = answer.get("pending") or {}
        if pending.get("stepId") == "record-findings":
            answer = continue_workflow(
                stateToken=answer["stateToken"],
                ackToken=answer["ackToken"],
                output={"notesMarkdown": VERDICT_NOTES, "artifacts": [CRITICAL]},
            )
        else:
            answer = advance(answer, _notes_for(answer))
        built.answers.append(answer)
    built.done_tip = node_id_of(answer)
    # The agent is rewound to the changed-files step and acknowledges it again: branch 2.
    rewound = continue_workflow(stateToken=built.answers[1]["stateToken"])
    second = advance(rewound, "After the rewind: a second look at the changed files.")
    third = advance(second, "After the rewind: reviewed the api area again.")
    built.open_tip = node_id_of(third)
    return built


@dataclass
class BlockedReview:
    session_id: str
    run_id: str
    node_id: str  # where the refused step is pending
    refused: dict[str, Any]  # the refusal's answer


def blocked_review(key: str = "MR-77") -> BlockedReview:
    start = start_workflow(REVIEW, context={"sessionKey": key, "changeRef": "MR !77"})
    second = advance(start, "Triage: a small change to the orders search.")
    assert (second.get("pending") or {}).get("stepId") == "list-changed-files"
    refused = continue_workflow(
        stateToken=second["stateToken"],
        ackToken=second["ackToken"],
        output={"notesMarkdown": "Listed the files in my head."},
    )
    assert refused["kind"] == "blocked", refused
    return BlockedReview(start["session"]["sessionId"], start["session"]["runId"], node_id_of(second), refused)
