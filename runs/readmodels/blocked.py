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

A developer reads it first: whose move it is (the agent's, the user's, or the delegated runs'), in one
sentence that says what the agent must resend; the exact call to give a stuck agent (the refusal's
nextCall: the same stateToken and the fresh ackToken the refusal gave, which is the only one that
can still answer the step; a stateToken alone already lets anyone fetch it, so showing it adds no
power); what the agent sent (kept with the refusal: runs/execution/recording.py); the expected
artifact's shape (the step's contract, as the agent was given it); and why each part of the call is
there when the issues do not say.

Used by every door that shows a blocked branch (run, session and node pages, the HTTP API, the
`workrail://runs/{id}` resource) and by the reports: `refusals(tree)` gives a `Refusal` per blocked
branch number, `as_entry` the published shape (runs/contract/dashboard.py, BlockedStep).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal

from runs.contract.dashboard import BlockedIssue, BlockedStep, ExpectedArtifact, RefusedAnswer, ResendItem
from runs.models import Ack
from runs.readmodels.artifact_names import artifact_name
from runs.readmodels.branches import Branch, RunBranches
from workflows_app.engine.codes import for_people

MAX_ISSUES = 20  # a refusal lists every problem; a page shows this many (the count says how many more)
WhoseMove = Literal["agent", "user", "delegations"]
USER_CODES = {"USER_DEPENDENCY_UNMET"}
DELEGATION_CODES = {"DELEGATIONS_PENDING"}
# What the agent must send again for each kind of issue, in words a developer reads: "with ..." ({name}: the
# artifact as people call it, artifact_names.py).
_WITH = {
    "ARTIFACT_MISSING": "{name}",
    "ARTIFACT_INVALID": "a corrected copy of {name}",
    "NOTES_REQUIRED": "its notes",
    "PLACEHOLDER_UNCHANGED": "its own values where it sent back a '<fill in …>' blank",
    "VALIDATION_FAILED": "an answer that passes the step's checks",
    "OUTPUT_INVALID": "an answer of the right shape",
    "ASSESSMENT_MISSING": "the assessment",
    "ASSESSMENT_INVALID": "a corrected assessment",
    "ASSESSMENT_FOLLOWUP_REQUIRED": "the follow-up its assessment asks for",
    "LOOP_DECISION_MISSING": "the loop decision (whether to go round the loop again)",
    "LOOP_CONTROL_UNMATCHED": "a loop decision that names its own loop",
}


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
    call: dict[str, Any] | None = None  # the refusal's nextCall: {"tool", "arguments"} with the real tokens
    sent: dict[str, Any] | None = None  # what the refused call sent, in short (None when not kept)
    pending: dict[str, Any] = field(default_factory=dict)  # the pending step as the refusal gave it

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
    for ack_pk, node_pk, created_at, response_json, sent in Ack.objects.filter(pk__in=list(newest)).values_list(
        "pk", "node_id", "created_at", "response_json", "refused"
    ):
        tree, branch = newest[ack_pk]
        found[(tree.run.pk, branch.number)] = _refusal(tree, branch, node_pk, created_at, response_json, sent)
    return found


def _refusal(tree: RunBranches, branch: Branch, node_pk: int, at: datetime, response_json: str, sent: Any) -> Refusal:
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
        call=_call(answer.get("nextCall")),
        sent=sent if isinstance(sent, dict) else None,
        pending=pending,
    )


def _call(next_call: Any) -> dict[str, Any] | None:
    if not isinstance(next_call, dict) or not isinstance(next_call.get("arguments"), dict):
        return None
    return {"tool": str(next_call.get("tool") or "continue_workflow"), "arguments": next_call["arguments"]}


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


def as_entry(refusal: Refusal, step_number: int | None = None) -> BlockedStep:
    """The published shape of a refusal (the API, the resource and the pages read it); `step_number` is
    the refused step's number on its branch, as the branch's outcome says it."""
    move = whose_move(refusal)
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
                for_people=issue_words(refusal, issue),
                pointer=str(issue["pointer"]) if issue.get("pointer") else None,
                reason=str(issue["reason"]) if issue.get("reason") else None,
            )
            for issue in refusal.issues[:MAX_ISSUES]
        ],
        issue_count=len(refusal.issues),
        resend=refusal.resend,
        retry=refusal.retry,
        whose_move=move,
        for_you=for_you(refusal, move, step_number),
        verdict=verdict(refusal, move, step_number),
        call=json.dumps(refusal.call, indent=2, ensure_ascii=False) if refusal.call else None,
        sent=_sent(refusal.sent),
        expected_artifact=expected_artifact(refusal),
        resend_items=resend_items(refusal),
    )


# --- for the developer ------------------------------------------------------------------------------------


def _codes(refusal: Refusal) -> list[str]:
    return [str(issue.get("code") or "") for issue in refusal.issues]


def whose_move(refusal: Refusal) -> WhoseMove:
    """Who must act for the step to go on: the user (something only they can give), the delegated runs
    (a parallel step waits for them), else the agent (its answer fell short of what the step asks)."""
    codes = set(_codes(refusal))
    if codes & USER_CODES:
        return "user"
    if codes and codes <= DELEGATION_CODES:
        return "delegations"
    return "agent"


def _contract(refusal: Refusal) -> dict[str, Any]:
    found = refusal.pending.get("outputContract")
    return found if isinstance(found, dict) else {}


def _kind(refusal: Refusal) -> str:
    return str(_contract(refusal).get("artifactKind") or "")


def issue_words(refusal: Refusal, issue: dict[str, Any]) -> str:
    """What is wrong, as a developer reads it. A missing artifact is named as people call it ("The agent did
    not attach the list of changed files."; its kind is in the expected artifact the page shows, for the
    API); any other issue is its message without the pointer into the pending view that only the agent uses
    (the page shows the expected artifact itself)."""
    code, message = str(issue.get("code") or ""), str(issue.get("message") or "")
    kind = _kind(refusal)
    if code == "ARTIFACT_MISSING" and kind:
        return f"The agent did not attach {artifact_name(kind)}."
    return for_people(code, message)


def _needs(refusal: Refusal) -> str:
    """What the agent must send again, in words: "the list of changed files and its notes"."""
    return _needs_words(_codes(refusal), _kind(refusal))


def _needs_words(codes: Iterable[str], kind: str) -> str:
    name = artifact_name(kind)
    said = []
    for code in codes:
        words = _WITH.get(code)
        if words is not None:
            said.append(words.format(name=name))
    said = list(dict.fromkeys(said))
    if not said:
        return "the issues below fixed"
    return " and ".join(said) if len(said) <= 2 else ", ".join(said[:-1]) + " and " + said[-1]


def _step_named(refusal: Refusal, step_number: int | None) -> str:
    """The refused step by its name first, its number after ("Record the Changed Files (step 2)"), as every
    place on the dashboard names a step."""
    return f"{refusal.step_title} (step {step_number})" if step_number else f"the step {refusal.step_title}"


def verdict(refusal: Refusal, move: WhoseMove, step_number: int | None) -> str:
    """The one-line verdict, in the dashboard's words (states.py): whose move, and what it takes."""
    return _verdict_words(move, _step_named(refusal, step_number), _needs(refusal))


def panel_verdict(entry: BlockedStep) -> str:
    """The verdict as the blocked panel's title says it, the step as "this step": the panel names the step on
    its own line under it, and a step's page in its head (the ninth reviewer read the step named three times
    in one panel). Not what it takes: the panel's "Why it was refused" lists that right under it (friction61a 5,
    61b 14: "… with the list of changed files" then "The agent did not attach the list of changed files")."""
    return _verdict_words(entry.whose_move, "this step", "")


def _verdict_words(move: WhoseMove, step: str, needs: str) -> str:
    if move == "user":
        return f"Your move: {step} waits for something only you can give."
    if move == "delegations":
        return f"Refused for now: {step} waits for its delegated runs to finish."
    return (
        f"Refused: the agent must resend {step} with {needs}." if needs else f"Refused: the agent must resend {step}."
    )


def for_you(refusal: Refusal, move: WhoseMove, step_number: int | None) -> str:
    """The developer's first line: is it theirs to act, and what happens next."""
    step = _step_named(refusal, step_number)
    tail = " If it is stuck, give it this call:" if refusal.call else ""
    if move == "user":
        wanted = "; ".join(
            str(issue.get("message") or "") for issue in refusal.issues if issue.get("code") in USER_CODES
        )
        return (
            f"You are needed: {step} waits for something only you can give ({wanted}). Tell the agent; it "
            f"resends the step with your answer." + (" If it has stopped, give it this call:" if refusal.call else "")
        )
    if move == "delegations":
        return (
            f"Nothing for you to do: {step} waits for its delegated runs to finish, and the agent resends it "
            "once they have." + tail
        )
    return f"Nothing for you to do unless the agent has stopped: it must resend {step} with {_needs(refusal)}.{tail}"


def _sent(sent: dict[str, Any] | None) -> RefusedAnswer | None:
    if sent is None:
        return None
    return RefusedAnswer(
        notes_preview=str(sent.get("notesPreview") or ""),
        artifact_kinds=[str(kind) for kind in sent.get("artifactKinds") or []],
        artifact_count=int(sent.get("artifactCount") or len(sent.get("artifactKinds") or [])),
        context_keys=[str(key) for key in sent.get("contextKeys") or []],
    )


def expected_artifact(refusal: Refusal) -> ExpectedArtifact | None:
    """The artifact the step's contract asks for, when the refusal is about it: its kind, its required
    fields and the contract's example (an illustration, as the agent was given it)."""
    contract = _contract(refusal)
    kind = contract.get("artifactKind")
    about_it = any(
        str(issue.get("pointer") or "").startswith("/output/artifacts") or str(issue.get("code")).startswith("ARTIFACT")
        for issue in refusal.issues
    )
    if not kind or not about_it:
        return None
    schema = contract.get("schema")
    example = contract.get("example")
    return ExpectedArtifact(
        kind=str(kind),
        contract_ref=str(contract.get("contractRef") or ""),
        required_fields=_required(schema) if isinstance(schema, dict) else [],
        example=json.dumps(example, indent=2, ensure_ascii=False) if example is not None else None,
    )


def _required(schema: dict[str, Any]) -> list[str]:
    """The schema's required fields besides `kind`, with what a list's items require: "changedFiles
    (a list; each: path, summary, risk)"."""
    properties = _object(schema.get("properties"))
    said = []
    for name in schema.get("required") or []:
        if name == "kind":
            continue
        prop = _object(properties.get(name))
        items = _object(prop.get("items"))
        if prop.get("type") == "array" and items.get("required"):
            said.append(f"{name} (a list; each: {', '.join(str(r) for r in items['required'])})")
        elif "enum" in prop:
            said.append(f"{name} (one of {', '.join(str(v) for v in prop['enum'])})")
        else:
            said.append(str(name))
    return said


def resend_items(refusal: Refusal) -> list[ResendItem]:
    """Each part of the call to resend, and why it is there when the issues table does not say."""
    arguments = (refusal.call or {}).get("arguments") or {}
    pointers = [str(issue.get("pointer") or "") for issue in refusal.issues]
    codes = set(_codes(refusal))
    sent = refusal.sent or {}
    items: list[ResendItem] = []

    def named(pointer: str) -> bool:
        return any(p == pointer or p.startswith(pointer + "/") for p in pointers)

    output = _object(arguments.get("output"))
    if "notesMarkdown" in output:
        listed = named("/output/notesMarkdown") or "NOTES_REQUIRED" in codes
        items.append(
            ResendItem(
                part="output.notesMarkdown",
                listed=listed,
                why="the step's notes: a refused answer records nothing, so they go again",
            )
        )
    kinds = [str(a.get("kind")) for a in output.get("artifacts") or [] if isinstance(a, dict) and a.get("kind")]
    if kinds:
        items.append(
            ResendItem(
                part=f"output.artifacts ({', '.join(kinds)})",
                listed=named("/output/artifacts"),
                why="the artifact this step asks for",  # friction63b 4: "contract" is no word of the page's
            )
        )
    context = _object(arguments.get("context"))
    expected = {str(e.get("key")): e for e in refusal.pending.get("expectedContext") or [] if isinstance(e, dict)}
    from_user = {
        str(d.get("contextKey")): d for d in refusal.pending.get("userDependencies") or [] if isinstance(d, dict)
    }
    for key in context:
        if key in from_user:
            why = f"only the user can give it: {from_user[key].get('description') or key}"
        elif key in sent.get("contextKeys", []):
            why = "sent with the refused answer; a refused answer's context is not applied, so it goes again"
        elif key in expected:
            # The engine's own "why" names loops and steps by id: a developer reads the plain version.
            asked = expected[key].get("setByThisStep")
            why = "also asked for by this step's prompt" if asked else "read later in the workflow; sent when known"
        else:
            why = "part of the call the refusal gave"
        items.append(ResendItem(part=f"context.{key}", listed=named(f"/context/{key}"), why=why))
    return items
