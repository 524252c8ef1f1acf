"""start_workflow: a new run of a workflow, pinned to its hash, in a new session or in the one its
sessionKey or ticketId names."""

from __future__ import annotations

import difflib

from django.conf import settings

from runs.contract.errors import ErrorCode, WorkRailError
from runs.contract.execution import ExecutionResult, WarningDict, engine_warnings
from runs.contract.inputs import StartWorkflowInput
from runs.contract.preferences import CHOICES, follow_recommendation, resolve
from runs.execution import delegations, workspace
from runs.execution.answer import OUTCOME_KIND, chat_opening, node_response
from runs.execution.catalog import current_catalog, find_workflow, renamed_workflow, unknown_workflow_ids
from runs.execution.recording import begin_run, journal_for_new_run, observe
from runs.store import ratelimit, tokens
from runs.store.journal import Journal, write
from runs.store.tokens import TokenKind
from workflows_app import engine
from workflows_app.catalog import resolved_references
from workflows_app.engine import expectations
from workflows_app.engine.jsontypes import JsonObject, as_json
from workflows_app.engine.model import CompiledWorkflow


def start_workflow(request: StartWorkflowInput) -> ExecutionResult:
    context = with_goal(request.context or {}, request.goal)
    parent_token = request.parent_state_token
    parent_id = tokens.parse(settings.WORKRAIL_HOME, parent_token, TokenKind.STATE).id if parent_token else None
    catalog = current_catalog()
    entry = find_workflow(catalog, request.workflow_id)
    begun = engine.start(entry.compiled, context)
    references = resolved_references(entry, workspace.current().path)  # outside the write: stats files
    with write() as now:
        ratelimit.take(ratelimit.STARTS, what="new runs and sessions")
        linked_to = delegations.link_target(parent_id, context) if parent_id is not None else None
        if linked_to is not None:  # a run the agent delegates to: in its parent's session, from its preferences
            journal = Journal(linked_to[0].session, now)
            baseline = linked_to[1].preferences
        else:
            journal = journal_for_new_run(context, entry.compiled["name"], now)
            baseline = journal.session.preferences
        effective = resolve(baseline, mode=request.mode, preferences=request.preferences)
        chosen = set(CHOICES) if request.mode is not None else set()
        chosen |= set(request.preferences.as_dict()) if request.preferences is not None else set()
        effective, notices = follow_recommendation(entry.compiled, effective, chosen)
        notices += unread_context_warnings(entry.compiled, context)
        notices += unknown_workflow_ids(entry.compiled, catalog)
        notices += renamed_workflow(request.workflow_id, entry.id, catalog)
        handed_out_by = (*linked_to, None) if linked_to is not None else None
        run, node, attempt = begin_run(journal, entry, begun, effective, handed_out_by=handed_out_by)
        delegations.spawn(journal, run, node, begun.pending)
        observe(journal, run)
        extra = chat_opening(entry.compiled)
        if references:
            extra["references"] = [as_json(reference) for reference in references]
        response = node_response(
            journal,
            run,
            node,
            attempt,
            begun.pending,
            [*notices, *engine_warnings(begun.warnings)],
            kind=OUTCOME_KIND[begun.kind],
            extra=extra,
        )
        journal.flush()
        return response


GROUPING_KEYS = tuple(expectations.SESSION_KEYS)  # read by WorkRail itself: they name the session


def with_goal(context: JsonObject, goal: str | None) -> JsonObject:
    """The start context with the task's goal under `goal`, where a workflow reading "the session goal"
    finds it. Two different goals in one call is a mistake the agent should hear about."""
    if goal is None:
        return context
    goal = goal.strip()
    if context.get("goal") not in (None, goal):
        raise WorkRailError(
            ErrorCode.INVALID_INPUT,
            "The call gives two different goals: 'goal' and 'context.goal'.",
            "Send the task's goal once, as 'goal'.",
            details={"pointer": "/context/goal"},
        )
    return {**context, "goal": goal}


def unread_context_warnings(compiled: CompiledWorkflow, context: JsonObject) -> list[WarningDict]:
    """A context key nothing in the workflow reads is usually a misnamed one (`change` for `changeRef`):
    say so at once, with the names the workflow does read, instead of letting it pass unnoticed."""
    read = expectations.names_referenced(compiled)
    unread = [key for key in context if key not in read and key not in GROUPING_KEYS]
    if not unread:
        return []
    hints = []
    for key in unread:
        close = difflib.get_close_matches(key, sorted(read), n=1, cutoff=0.5)
        hints.append(f"'{key}'" + (f" (did you mean '{close[0]}'?)" if close else ""))
    known = ", ".join(sorted(read)[:20]) or "none"
    return [
        {
            "code": "CONTEXT_NOT_READ",
            "message": f"Nothing in this workflow reads context {', '.join(hints)}; it was kept, but steers nothing. "
            f"The workflow reads: {known}. Send the value under the name the workflow uses.",
        }
    ]
