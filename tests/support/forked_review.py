"""The forked merge-request review of issue 20, built through the services the MCP tools use.

Branch 1 runs wr.risk_scaled_mr_review to its end: changed files, findings with a Critical one, the verdict
"Request changes" in the findings step's notes, the user's confirmation. Then the agent is rewound to
the node of the review's third step and goes on from there with other notes: branch 2, the newest,
open (its tip waits at the findings step). Notes carry what a Markdown report must keep as written:
`MR !42`, `has_perm()`, a task list's `[ ]`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from harness.answers import context_for
from tests.support.mcp_calls import continue_workflow, start_workflow

REVIEW = "wr.risk_scaled_mr_review"
SESSION_KEY = "MR-42"
VERBATIM_NOTE = (
    "Reviewed MR !42: `has_perm()` is called twice, and has_perm() skips staff_users.\n\n"
    "- [ ] add a test\n- [x] read the diff"
)
VERDICT = "Request changes"
CRITICAL = "Permission check bypassed for staff"
CHANGED_FILES = {
    "kind": "mr_review.changed_files",
    "changedFiles": [
        {"path": "app/permissions.py", "summary": "has_perm() short-circuits for staff", "risk": "H"},
        {"path": "app/views.py", "summary": "Calls has_perm() twice", "risk": "L"},
    ],
}
FINDINGS = {
    "kind": "mr_review.findings",
    "findings": [
        {
            "severity": "Critical",
            "title": CRITICAL,
            "location": {"file": "app/permissions.py", "line": 17},
            "rationale": "Staff users skip the object check.",
            "suggestion": "Check the object before the staff flag.",
        },
        {
            "severity": "Minor",
            "title": "Duplicate call",
            "location": {"file": "app/views.py", "line": 40},
            "rationale": "The permission check runs twice per request.",
            "suggestion": "Call it once.",
        },
    ],
}
SECOND_LOOK_FILES = {
    "kind": "mr_review.changed_files",
    "changedFiles": [{"path": "app/permissions.py", "summary": "Second look: only this file", "risk": "M"}],
}


@dataclass
class ForkedReview:
    session_id: str
    run_id: str
    answers: list[dict[str, Any]] = field(default_factory=list)
    second: list[dict[str, Any]] = field(default_factory=list)


def _notes(pending: dict[str, Any], branch: int) -> str:
    step = pending["stepId"]
    if step == "triage-change":
        return VERBATIM_NOTE
    if step == "record-findings" and branch == 1:
        return f"1 critical, 1 minor.\n\n**Verdict:** {VERDICT}: the permission check is bypassed."
    if step == "confirm-comments":
        return "The user confirmed: keep both comments, post them with the verdict Request changes."
    return f"Branch {branch}: did {step}."


def _output(pending: dict[str, Any], branch: int) -> dict[str, Any]:
    output: dict[str, Any] = {"notesMarkdown": _notes(pending, branch)}
    kind = ((pending.get("outputContract") or {}).get("example") or {}).get("kind")
    if kind == "mr_review.changed_files":
        output["artifacts"] = [CHANGED_FILES if branch == 1 else SECOND_LOOK_FILES]
    elif kind == "mr_review.findings":
        output["artifacts"] = [FINDINGS]
    elif (pending.get("outputContract") or {}).get("example"):
        output["artifacts"] = [pending["outputContract"]["example"]]
    return output


def _advance(answer: dict[str, Any], branch: int, ack: str | None = None) -> dict[str, Any]:
    return continue_workflow(
        stateToken=answer["stateToken"],
        ackToken=ack or answer["ackToken"],
        output=_output(answer["pending"], branch),
        context=context_for(answer["pending"]),
    )


def forked_review(second_branch_steps: int = 2) -> ForkedReview:
    first = start_workflow(REVIEW, context={"sessionKey": SESSION_KEY, "changeRef": "MR !42"})
    answers = [first]
    while not answers[-1].get("isComplete"):
        assert len(answers) < 40, "the review did not complete"
        answers.append(_advance(answers[-1], 1))
    built = ForkedReview(first["session"]["sessionId"], first["session"]["runId"], answers)
    # Rewound to the node of the third step: a fresh ackToken there forks the run.
    older = answers[2]
    fresh = str(continue_workflow(stateToken=older["stateToken"])["ackToken"])
    answer = _advance(older, 2, ack=fresh)
    built.second.append(answer)
    for _ in range(second_branch_steps - 1):
        answer = _advance(answer, 2)
        built.second.append(answer)
    assert not answer.get("isComplete")
    return built
