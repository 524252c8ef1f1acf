"""Why a branch is blocked: the refused answer that holds it, read back as the agent was given it.

When continue_workflow refuses a step (a missing artifact, an output that fails its contract, context
only the user can give, a parallel step still waiting), the refusal is recorded as an Ack with outcome
BLOCKED, and its `response_json` is the exact answer the agent got: `blocked.issues` (code, message,
JSON pointer into the arguments), `blocked.retry`, the pending step (its title as the agent saw it),
and `nextCall` (the arguments to send again, with a fresh ackToken). branches.py decides which
refusals still stand (those at a branch's pending step not followed by a step taken from there:
`Branch.refusals`); this module reads the newest of them, once, for every blocked branch of a run.

Since when: the oldest refusal that still stands (an agent that keeps resending the same mistake does
not move the date); the newest one says what is wrong now.

Used by every door that shows a blocked branch (run, session and node pages, the HTTP API, the
`workrail://runs/{id}` resource) and by the reports: `refusals(tree)` gives a `Refusal` per blocked
branch number, `as_entry` the published shape (runs/contract/dashboard.py, BlockedStep).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from runs.contract.dashboard import BlockedIssue, BlockedStep
from runs.models import Ack
from runs.readmodels.branches import Branch, RunBranches

MAX_ISSUES = 20  # a refusal lists every problem; a page shows this many (the count says how many more)


@dataclass(frozen=True)
class Refusal:
    """The refused answer holding one branch."""

    branch: int  # its number
    node: int  # the node (pk) whose step was refused
    node_id: int  # its public id
    step_id: str
    step_title: str  # as the agent was given it (loop variables filled in)
    since: datetime  # the oldest refusal still standing
    last_refused_at: datetime  # the newest
    refusals: int  # how many still stand (the agent resent and was refused again)
    issues: list[dict[str, Any]]  # the newest refusal's, as recorded: code, message, pointer, reason
    retry: str  # what the refusal told the agent to do
    resend: list[str]  # the parts of continue_workflow to send again: "output.artifacts (mr_review.findings)"

    def headline(self) -> str:
        """The first issue in a sentence: the reason in words."""
        if not self.issues:
            return "the answer was refused"
        first = str(self.issues[0].get("message") or self.issues[0].get("code") or "the answer was refused")
        more = len(self.issues) - 1
        return first + (f" (and {more} more issue{'s' if more > 1 else ''})" if more else "")


def refusals(tree: RunBranches) -> dict[int, Refusal]:
    """The refusal holding each blocked branch of `tree`, by branch number: one query, for the newest
    standing refusal of each (none when no branch is blocked)."""
    return {number: refusal for (_, number), refusal in refusals_of([tree]).items()}


def refusals_of(trees: Iterable[RunBranches]) -> dict[tuple[int, int], Refusal]:
    """refusals() of several runs, by (run pk, branch number), in one query (none when no branch is
    blocked)."""
    newest = {
        branch.refusals[-1]: (tree, branch)
        for tree in trees
        for branch in tree.branches
        if branch.status == "blocked" and branch.refusals
    }
    if not newest:
        return {}
    found: dict[tuple[int, int], Refusal] = {}
    for ack_pk, node_pk, created_at, response_json in Ack.objects.filter(pk__in=list(newest)).values_list(
        "pk", "node_id", "created_at", "response_json"
    ):
        tree, branch = newest[ack_pk]
        found[(tree.run.pk, branch.number)] = _refusal(tree, branch, node_pk, created_at, response_json)
    return found


def _refusal(tree: RunBranches, branch: Branch, node_pk: int, at: datetime, response_json: str) -> Refusal:
    try:
        answer = json.loads(response_json)
    except ValueError:  # a damaged row: say what is known
        answer = {}
    answer = answer if isinstance(answer, dict) else {}
    blocked = _object(answer.get("blocked"))
    pending = _object(answer.get("pending"))
    issues = [issue for issue in blocked.get("issues") or [] if isinstance(issue, dict)]
    row = tree.nodes.get(node_pk)
    step_id = str(pending.get("stepId") or (row.step_id if row else ""))
    return Refusal(
        branch=branch.number,
        node=node_pk,
        node_id=row.public_id if row else 0,
        step_id=step_id,
        step_title=str(pending.get("title") or step_id),
        since=min(tree.refused_at.get(pk, at) for pk in branch.refusals),
        last_refused_at=at,
        refusals=len(branch.refusals),
        issues=issues,
        retry=str(blocked.get("retry") or ""),
        resend=_resend(answer.get("nextCall")),
    )


def _object(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _resend(next_call: Any) -> list[str]:
    """What nextCall asks the agent to send again, part by part (tokens aside: it is always the same
    stateToken and the fresh ackToken the refusal gave)."""
    arguments = next_call.get("arguments") if isinstance(next_call, dict) else None
    if not isinstance(arguments, dict):
        return []
    parts: list[str] = []
    output = arguments.get("output")
    if isinstance(output, dict):
        if "notesMarkdown" in output:
            parts.append("output.notesMarkdown (the step's notes)")
        kinds = [str(a.get("kind")) for a in output.get("artifacts") or [] if isinstance(a, dict) and a.get("kind")]
        if kinds:
            parts.append(f"output.artifacts ({', '.join(kinds)})")
    context = arguments.get("context")
    if isinstance(context, dict) and context:
        parts.append("context: " + ", ".join(sorted(str(key) for key in context)))
    return parts


def as_entry(refusal: Refusal) -> BlockedStep:
    """The published shape of a refusal (the API, the resource and the pages read it)."""
    return BlockedStep(
        node_id=str(refusal.node_id),
        step_id=refusal.step_id,
        step_title=refusal.step_title,
        since=refusal.since,
        last_refused_at=refusal.last_refused_at,
        refusals=refusal.refusals,
        reason=refusal.headline(),
        issues=[
            BlockedIssue(
                code=str(issue.get("code") or ""),
                message=str(issue.get("message") or ""),
                pointer=str(issue["pointer"]) if issue.get("pointer") else None,
                reason=str(issue["reason"]) if issue.get("reason") else None,
            )
            for issue in refusal.issues[:MAX_ISSUES]
        ],
        issue_count=len(refusal.issues),
        resend=refusal.resend,
        retry=refusal.retry,
    )
