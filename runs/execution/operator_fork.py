"""The operator fork (LangGraph's `update_state`, from the dashboard or the HTTP API): a developer starts a
new branch from a node, with edited context and a reason, and hands the new stateToken to the agent.

What "edited context" means. The change is a JSON object merged into the node's context at the top level,
the way continue_workflow merges the context an agent sends: a key with a value sets it (the value
replaces the old one whole, nested objects included); a key whose value is null removes it; keys the
change does not name keep their values. `{}` keeps the context as it is (a fresh branch from the same
point). The change is refused (CONTEXT_CHANGE_INVALID, with a JSON pointer) when it is not an object,
is larger or nested deeper than an agent's context may be, holds NaN, an infinity or a NUL character,
would take the run's context past its limit, or sets or removes a key WorkRail reserves: `sessionKey`
and `ticketId` name the session (a branch cannot move to another one), and the loop variables of the
workflow's loops (`currentIteration`, `currentItem`, `currentIndex` or the names a loop gives them) are
the loop's own, overlaid on the context while the loop runs.

What is recorded, in one transaction through the journal: a `node_created` for the new node (a child of
the given node, at the same pending step, with the same cursor, loop frames and preferences, and the
edited context), an `attempt_issued` for its ackToken, and an `operator_forked` event with the reason,
what was set and removed, and where it came from. Replaying the log (rebuild_projections, a bundle
import) makes the same node. Nothing on existing branches changes: nodes are snapshots, and the run's
status moves only when the agent acknowledges a step on the new branch. A node at a parallel step
shares its parent's delegated runs, as a checkpoint node does.

Errors are data, and nothing is written when one is raised: an unknown node (NOT_FOUND), a canceled run
(RUN_CANCELED), a node whose branch is complete (NODE_COMPLETE), a missing or overlong reason
(INVALID_INPUT), a bad change (CONTEXT_CHANGE_INVALID), too many writes (RATE_LIMITED).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any, Literal, cast

from django.conf import settings

from runs.contract.errors import ErrorCode, WorkRailError
from runs.contract.fork import MAX_REASON_CHARS, AgentCall, AgentCallArguments, OperatorForkResult
from runs.contract.inputs import (
    MAX_CONTEXT_BYTES,
    MAX_CONTEXT_DEPTH,
    MAX_RUN_CONTEXT_BYTES,
    SESSION_ID_KEYS,
    is_unicode_text,
    json_size,
)
from runs.execution.recording import NewNode, create_node
from runs.models import Node, Run, RunStatus
from runs.readmodels.run_view import get_node
from runs.store import events, ownership, ratelimit, tokens
from runs.store.journal import Journal, write
from runs.store.pinned import compiled_workflow
from runs.store.tokens import TokenKind
from workflows_app import engine
from workflows_app.engine import Transition, loops
from workflows_app.engine.jsontypes import JsonObject
from workflows_app.engine.model import CompiledWorkflow, EngineState, is_loop
from workflows_app.engine.tree import top_steps, walk

Via = Literal["dashboard", "api"]
MAX_KEY_CHARS = 200
INSTRUCTIONS = (
    "Give the agent this call: it returns the pending step on the new branch, with the edited context and a "
    "fresh ackToken. The agent then does the step and acknowledges it as usual. The earlier branches are kept "
    "unchanged; files the agent changed in the project are not branched (check git status)."
)


@dataclass(frozen=True)
class ForkPlan:
    """What a fork would record (the dashboard shows it before the developer confirms)."""

    current: JsonObject  # the node's context
    context: JsonObject  # the new branch's context
    context_set: JsonObject
    context_removed: list[str]
    reason: str


def preview_fork(node_id: str | int, change: Any, reason: Any) -> ForkPlan:
    """The fork `fork_node` would record, checked the same way (the same errors), recording nothing."""
    why = _checked_reason(reason)
    edits = _checked_shape(change)
    node = get_node(node_id)
    ownership.require_mine(node.run.session)
    _refuse_node(node)
    return _plan(node, edits, compiled_workflow(node.run.pinned_id), why)


def fork_node(node_id: str | int, change: Any, reason: Any, *, via: Via) -> OperatorForkResult:
    """A new branch from `node_id` with `change` merged into its context and `reason` recorded (see the
    module's docstring); returns the new node's stateToken and the continue_workflow call for the agent."""
    why = _checked_reason(reason)
    edits = _checked_shape(change)
    with write() as now:
        node = get_node(node_id)
        run = node.run
        ownership.require_mine(run.session)
        _refuse_node(node)
        compiled = compiled_workflow(run.pinned_id)
        plan = _plan(node, edits, compiled, why)
        context, context_set, removed = plan.context, plan.context_set, plan.context_removed
        ratelimit.take(f"run:{run.public_id}")
        journal = Journal(run.session, now)
        journal.projector.know(run, node)
        state = cast(EngineState, {**node.engine_state, "context": context})
        pending = engine.pending_view(compiled, state)  # rendered with the edited context
        if pending is None:  # a node that is not complete always has a pending step; kept honest all the same
            raise WorkRailError(
                ErrorCode.NODE_COMPLETE,
                f"Node {node.public_id} has no pending step.",
                "Fork from an earlier node of the branch.",
            )
        same_place = Transition("advanced", state, pending, None)
        child, attempt = create_node(journal, run, NewNode(node, same_place, False, node.preferences))
        assert attempt is not None, "a node with a pending step gets an ackToken"
        journal.record(
            events.OperatorForked(
                run_id=run.public_id,
                node_id=node.public_id,
                child_node_id=child.public_id,
                reason=why,
                context_set=context_set,
                context_removed=removed,
                via=via,
            )
        )
        journal.flush()
    home = settings.WORKRAIL_HOME
    state_token = tokens.mint(home, TokenKind.STATE, child.public_id)
    return OperatorForkResult(
        session_id=run.session.public_id,
        run_id=run.public_id,
        forked_from=str(node.public_id),
        node_id=str(child.public_id),
        state_token=state_token,
        ack_token=tokens.mint(home, TokenKind.ACK, attempt.public_id),
        pending_step_id=str(pending["stepId"]),
        pending_title=str(pending.get("title") or pending["stepId"]),
        context=context,
        context_set=context_set,
        context_removed=removed,
        reason=why,
        call=AgentCall(tool="continue_workflow", arguments=AgentCallArguments(state_token=state_token)),
        instructions=INSTRUCTIONS,
    )


def _refuse_node(node: Node) -> None:
    run = node.run
    if run.status == RunStatus.CANCELED:
        raise WorkRailError(
            ErrorCode.RUN_CANCELED,
            f"Run {run.public_id} was canceled; no branch can be started in it.",
            "Start the workflow again (start_workflow) if the work should continue.",
        )
    if node.is_complete:
        raise WorkRailError(
            ErrorCode.NODE_COMPLETE,
            f"Node {node.public_id} is where its branch completed: there is no pending step to go on with.",
            "Fork from an earlier node of the branch, where the step to redo is pending (its node page has the "
            "same form). Nothing was recorded.",
        )


def _plan(node: Node, edits: JsonObject, compiled: CompiledWorkflow, why: str) -> ForkPlan:
    current: JsonObject = dict(node.engine_state.get("context") or {})
    _refuse_reserved(edits, current, compiled)
    context_set = {key: value for key, value in edits.items() if value is not None and not _same(current, key, value)}
    removed = [key for key, value in edits.items() if value is None and key in current]
    context = {key: value for key, value in current.items() if key not in removed} | context_set
    _check_run_size(context)
    return ForkPlan(current, context, context_set, removed, why)


def locked_keys(compiled: CompiledWorkflow) -> set[str]:
    """The context keys a fork may not change: the session's keys and the workflow's loop variables."""
    return set(SESSION_ID_KEYS) | loop_variables(compiled)


def locked_keys_of_run(run_id: str) -> set[str]:
    """`locked_keys` of the workflow the run is pinned to (the fork form shows them read-only)."""
    return locked_keys(compiled_workflow(Run.objects.only("pinned_id").get(public_id=run_id).pinned_id))


def change_between(current: JsonObject, edited: JsonObject) -> JsonObject:
    """The change that turns `current` into `edited` (both whole contexts): the keys whose values differ,
    with their new values, and null for the keys `edited` no longer has. For an editor that shows the
    whole context: what the developer left as it was is not part of the change."""
    change: JsonObject = {key: value for key, value in edited.items() if not _same(current, key, value)}
    change.update({key: None for key in current if key not in edited})
    return change


def agent_call_text(result: OperatorForkResult) -> str:
    """The call as the JSON text a developer pastes to the agent."""
    return json.dumps(result.call.dump(), indent=2, ensure_ascii=False)


def _same(context: JsonObject, key: str, value: Any) -> bool:
    """Whether `context` already holds `value` under `key`, as JSON (where 1, 1.0 and true differ)."""
    return key in context and _canonical(context[key]) == _canonical(value)


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


# --- checks -----------------------------------------------------------------------------------------


def _invalid(message: str, pointer: str) -> WorkRailError:
    return WorkRailError(
        ErrorCode.CONTEXT_CHANGE_INVALID,
        f"{message} Nothing was recorded.",
        "Fix the context change at details.pointer and send the fork again: a JSON object whose keys are set to "
        "their new values, or to null to remove them.",
        details={"pointer": pointer},
    )


def _pointer(*parts: str) -> str:
    return "/context" + "".join("/" + part.replace("~", "~0").replace("/", "~1") for part in parts)


def _checked_reason(reason: Any) -> str:
    text = " ".join(reason.split()) if isinstance(reason, str) else ""
    if not text:
        raise WorkRailError(
            ErrorCode.INVALID_INPUT,
            "A fork needs a reason.",
            "Say in a sentence why the branch is started (what the agent should do differently); it is shown on "
            "the run page and to the agent.",
            details={"pointer": "/reason"},
        )
    if len(text) > MAX_REASON_CHARS or "\x00" in text or not is_unicode_text(text):
        raise WorkRailError(
            ErrorCode.INVALID_INPUT,
            f"The reason is longer than {MAX_REASON_CHARS} characters, or holds a NUL character or half of a "
            "character (a lone surrogate such as \\ud800).",
            f"Keep the reason to a sentence or two (at most {MAX_REASON_CHARS} characters).",
            details={"pointer": "/reason"},
        )
    return text


_HALF_CHARACTER = "{what} holds half of a character (a lone surrogate such as \\ud800), which is not Unicode text."


def _checked_shape(change: Any) -> JsonObject:
    """The change as a JSON object the store can keep and the engine can walk (as runs/contract/inputs.py
    bounds an agent's context), walked without recursion."""
    if not isinstance(change, dict):
        raise _invalid(f"The context change is {_json_kind(change)}, not a JSON object.", "/context")
    stack: list[tuple[Any, int, tuple[str, ...]]] = [(change, 1, ())]
    while stack:
        value, depth, where = stack.pop()
        if isinstance(value, float) and not math.isfinite(value):
            raise _invalid("The context change holds NaN or an infinity, which JSON cannot store.", _pointer(*where))
        if isinstance(value, str) and "\x00" in value:
            raise _invalid("The context change holds a NUL character (U+0000).", _pointer(*where))
        if isinstance(value, str) and not is_unicode_text(value):
            raise _invalid(_HALF_CHARACTER.format(what="The context change"), _pointer(*where))
        if isinstance(value, dict | list):
            if depth > MAX_CONTEXT_DEPTH:
                raise _invalid(
                    f"The context change is nested deeper than {MAX_CONTEXT_DEPTH} levels.", _pointer(*where)
                )
            items = value.items() if isinstance(value, dict) else enumerate(value)
            for key, child in items:
                if isinstance(key, str) and "\x00" in key:
                    raise _invalid("A key of the context change holds a NUL character (U+0000).", _pointer(*where))
                if isinstance(key, str) and not is_unicode_text(key):
                    raise _invalid(_HALF_CHARACTER.format(what="A key of the context change"), _pointer(*where))
                stack.append((child, depth + 1, (*where, str(key))))
    for key in change:
        if not key.strip() or len(key) > MAX_KEY_CHARS:
            raise _invalid(f"A context key must be 1 to {MAX_KEY_CHARS} characters, not only spaces.", _pointer(key))
    if json_size(change) > MAX_CONTEXT_BYTES:
        raise _invalid(f"The context change is larger than {MAX_CONTEXT_BYTES} bytes.", "/context")
    return change


def _refuse_reserved(change: JsonObject, current: JsonObject, compiled: CompiledWorkflow) -> None:
    """The keys WorkRail reserves may be sent as they are (an editor echoes the whole context), not changed:
    the session keys name the session; a loop's variables are the loop's own, and set in the context they
    would be hidden while it runs."""
    loop_names = loop_variables(compiled)
    for key, value in change.items():
        if key not in SESSION_ID_KEYS and key not in loop_names:
            continue
        if (value is None and key not in current) or _same(current, key, value):
            continue
        if key in SESSION_ID_KEYS:
            raise _invalid(f"'{key}' names the session this run belongs to; a branch cannot change it.", _pointer(key))
        raise _invalid(
            f"'{key}' is a variable of one of this workflow's loops: the loop sets it, the context cannot.",
            _pointer(key),
        )


def loop_variables(compiled: CompiledWorkflow) -> set[str]:
    """The names the workflow's loops give their iteration, item and index."""
    names: set[str] = set()
    for step in walk(top_steps(compiled)):
        if is_loop(step):
            spec = loops.LoopSpec.of(step)
            names |= {spec.iteration_var, spec.item_var, spec.index_var}
    return names


def _check_run_size(context: JsonObject) -> None:
    size = json_size(context)
    if size > MAX_RUN_CONTEXT_BYTES:
        raise _invalid(
            f"With this change the run's context would hold {size} bytes; a run's context is limited to "
            f"{MAX_RUN_CONTEXT_BYTES} bytes.",
            "/context",
        )


def _json_kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    return "not JSON"
