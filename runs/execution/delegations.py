"""Parallel steps: each delegation of a `parallel` step runs as a run of its own (a nested run of the
named workflow or routine, in the same session), linked to the node that handed it out. The parent
step can be acknowledged once every delegation that runs is complete; its notes report the results.

The delegations are started when a node first reaches the parallel step (inside the same
transaction), so a replay returns the same children and a rewind that reaches the step again on a
new branch hands out fresh ones. A checkpoint node standing on the same step shares its parent's.

Both sides are linked in what an agent reads: the parent step shows each run's status and what it
recorded (its notes, bounded, with the resource for the rest), and a delegated run, when opened and
when complete, names the step that handed it out, its brief, and the call that goes back there.

A step that only asks in words for delegation (WorkRail's "spawn TWO WorkRail Executors running
`routine-x`") hands nothing out itself: the agent starts each run with start_workflow and the step's
stateToken as parentStateToken. Such a run is linked the same way (Run.parent_run and parent_node,
with no delegation_index: no parallel step numbered it), to the node that first reached the step, and
both ends read the same: the step shows its linked runs and what they recorded, and the run's answers
name the step and, once it is complete, the call that goes back there.
"""

from __future__ import annotations

from typing import NamedTuple, cast

from django.conf import settings
from django.db.models import Max

from runs.contract.errors import ErrorCode, HeldIssue, WorkRailError
from runs.contract.execution import IssueDict
from runs.execution.catalog import current_catalog
from runs.execution.loading import load_node
from runs.execution.recording import begin_run, session_key_of
from runs.models import Node, Run, RunStatus
from runs.readmodels import recap
from runs.store import tokens
from runs.store.journal import Journal
from runs.store.pinned import compiled_workflow
from runs.store.statements import Select
from runs.store.tokens import TokenKind
from workflows_app import engine
from workflows_app.engine.asks import step_asks
from workflows_app.engine.delegations import shared_context
from workflows_app.engine.jsontypes import JsonObject
from workflows_app.engine.model import CompiledStep, DelegationView, PendingView, is_loop

MAX_CHECKPOINT_HOPS = 64  # checkpoint nodes standing on one step, walked to find who handed it out
# What the delegations' runs recorded, shown on the parent step: this many bytes of notes in all, shared
# between the runs that recorded something (each gets at least RECORDED_FLOOR_BYTES).
RECORDED_BUDGET_BYTES = 12 * 1024
RECORDED_FLOOR_BYTES = 2 * 1024
LINKED_RUNS_SHOWN = 20  # the newest runs linked to one step, shown on it; the count says how many in all


def spawn(journal: Journal, run: Run, node: Node, pending: PendingView | None) -> None:
    """Starts a run for each delegation that runs, when `node` is the first to reach a parallel step."""

    for delegation in (pending.get("delegations") if pending is not None else None) or []:
        if not delegation["runs"]:
            continue
        entry = current_catalog().get(delegation["workflowId"])
        if entry is None:  # shown as unavailable; the agent does that part itself
            continue
        begun = engine.start(entry.compiled, delegation["context"])
        begin_run(journal, entry, begun, node.preferences, handed_out_by=(run, node, delegation["index"]))


def origin(node: Node) -> Node:
    """The node that handed out the delegations `node` stands on: itself, or for a checkpoint node the
    first ancestor that reached the same step instance."""
    instance = (node.engine_state.get("pending") or {}).get("stepInstance")
    current = node
    for _ in range(MAX_CHECKPOINT_HOPS):
        parent = current.parent
        if parent is None or (parent.engine_state.get("pending") or {}).get("stepInstance") != instance:
            return current
        current = parent
    return current


def with_runs(run: Run, node: Node, pending: PendingView) -> PendingView:
    """`pending` as the agent is shown it: each delegation with the workflow it runs (its name, or the
    fix when this WorkRail has no workflow of that id) and its run (id, status, the stateToken to work
    on it with). Context that every delegated run receives alike is given once, in `sharedContext`,
    and left out of those delegations' `context` (they are marked `receivesSharedContext`)."""
    handed_out = pending.get("delegations")
    if not handed_out:
        return pending
    children = _children(run, origin(node))
    recording = [child for child in children.values() if child.tip.notes_on_path > 0]
    share = max(RECORDED_FLOOR_BYTES, RECORDED_BUDGET_BYTES // max(1, len(recording)))
    catalog = current_catalog()
    # Shared: what every delegation that runs here receives alike (the others keep their whole context).
    shared = shared_context([d for d in handed_out if d["index"] in children])
    shown: list[DelegationView] = []
    for delegation in handed_out:
        child = children.get(delegation["index"])
        entry = catalog.get(delegation["workflowId"])
        item: JsonObject = {**delegation, "available": child is not None or not delegation["runs"]}
        if shared and child is not None:
            item["context"] = {k: v for k, v in (delegation.get("context") or {}).items() if k not in shared}
            item["receivesSharedContext"] = True
        if child is not None:
            item.update(
                runId=child.run.public_id,
                status=child.run.status,
                stateToken=tokens.mint(settings.WORKRAIL_HOME, TokenKind.STATE, child.tip.public_id),
            )
            if child.tip.notes_on_path > 0:
                item["recorded"] = recap.path_recap(child.tip, budget=share)
        if entry is not None:
            item["workflowName"] = entry.compiled["name"]
        elif child is None:
            item["available"] = False
            item["fix"] = missing_workflow_fix(delegation["workflowId"])
        shown.append(cast(DelegationView, item))  # the engine's view of it, with its run's
    return cast(PendingView, {**pending, "delegations": shown, **({"sharedContext": shared} if shared else {})})


def combined_by(run: Run, node: Node, step: CompiledStep | None, pending: PendingView) -> PendingView:
    """`pending` for a parallel step's synthesis (the step WorkRail injects after it to combine what the
    delegations found): with the delegations of the node that stood on the parallel step just before, each
    with what its run recorded, so the step that combines them shows them. Any other step as it is."""
    virtual = step.get("virtualOf") if step is not None and not is_loop(step) else None
    if virtual is None or virtual.get("kind") != "synthesis" or node.parent is None:
        return pending
    before = node.parent
    shown = engine.pending_view(compiled_workflow(run.pinned_id), before.engine_state)
    if shown is None or shown.get("stepId") != virtual.get("stepId") or not shown.get("delegations"):
        return pending
    handed = with_runs(run, before, shown)
    return {**pending, "delegations": handed["delegations"]}


def missing_workflow_fix(workflow_id: str) -> str:
    """What to do about a delegation whose workflow this WorkRail does not have."""
    return (
        f"No workflow or routine with the id '{workflow_id}' is loaded. Add the file that defines it to a "
        "workflow source (the project's .workrail/workflows, $WORKRAIL_HOME/workflows, or a directory in "
        "WORKRAIL_WORKFLOW_PATHS), or check the id in the parallel step; meanwhile, do this part yourself."
    )


def pending_issues(run: Run, node: Node, pending: PendingView | None) -> list[IssueDict]:
    """Why the parallel step cannot be acknowledged yet: delegations whose runs are not complete."""
    handed_out = pending.get("delegations") if pending is not None else None
    if not handed_out:
        return []
    children = _children(run, origin(node))
    unfinished = [
        (delegation, children[delegation["index"]].run)
        for delegation in handed_out
        if delegation["runs"]
        and delegation["index"] in children
        and children[delegation["index"]].run.status != RunStatus.COMPLETE
    ]
    return [
        {
            "code": HeldIssue.DELEGATIONS_PENDING.value,
            "message": f"Delegation {delegation['index'] + 1} ({delegation['workflowId']}) runs as {child.public_id}, "
            f"which is {child.status.replace('_', ' ')}. Finish it first (continue_workflow with its stateToken in "
            "pending.delegations), then acknowledge this step with what the delegations found.",
            "pointer": f"/pending/delegations/{delegation['index']}",
        }
        for delegation, child in unfinished
    ]


class _Delegated(NamedTuple):
    run: Run
    tip: Node  # the run's latest node (its engine state not loaded)


def _children(run: Run, handed_by: Node) -> dict[int, _Delegated]:
    """The delegated runs of `handed_by`, by delegation index, each with its tip."""
    runs = {child.pk: child for child in Run.objects.filter(parent_run=run, parent_node=handed_by)}
    if not runs:
        return {}
    latest = dict(
        Node.objects.filter(run_id__in=runs).values("run_id").annotate(last=Max("pk")).values_list("run_id", "last")
    )
    tips = {node.pk: node for node in Node.objects.filter(pk__in=latest.values()).defer("engine_state", "trace")}
    for pk, last in latest.items():
        tips[last].run = runs[pk]
    return {
        child.delegation_index: _Delegated(child, tips[latest[pk]])
        for pk, child in runs.items()
        if child.delegation_index is not None and pk in latest
    }


def link_target(state_token_id: int, context: JsonObject) -> tuple[Run, Node]:
    """Where start_workflow's parentStateToken links a new run: the parent run, and the node that first
    reached the step the token names (a checkpoint's node stands on its parent's step). The token is loaded
    as any stateToken is (unknown, not the caller's session: refused); the new run joins the parent's
    session, so a sessionKey or ticketId naming another session is refused rather than half obeyed."""
    node = load_node(state_token_id)
    run = node.run
    if run.status == RunStatus.CANCELED:
        raise WorkRailError(
            ErrorCode.RUN_CANCELED,
            f"The parentStateToken names a step of run {run.public_id}, which was canceled; nothing waits for a "
            "delegated run there.",
            "Start the run without parentStateToken, or with the stateToken of a step of a run that goes on.",
        )
    if node.is_complete:
        raise WorkRailError(
            ErrorCode.NODE_COMPLETE,
            "The parentStateToken names where a run completed: there is no step to link a delegated run to.",
            "Send the stateToken of the step that asks you to delegate (its answer gives it), or leave "
            "parentStateToken out.",
        )
    key = session_key_of(context)
    if key is not None and key != run.session.session_key:
        which = "sessionKey" if context.get("sessionKey") not in (None, "") else "ticketId"
        raise WorkRailError(
            ErrorCode.INVALID_INPUT,
            f"context.{which} names another session than the parent step's: a run linked with parentStateToken "
            "joins its parent's session.",
            f"Leave context.{which} out (the run joins the parent's session), or leave parentStateToken out.",
            details={"pointer": f"/context/{which}"},
        )
    return run, origin(node)


# The runs an agent linked to a step of a run (start_workflow's parentStateToken), oldest first.
_linked_runs = Select(lambda pk: Run.objects.filter(parent_run_id=pk, delegation_index__isnull=True).order_by("pk"))


def with_linked_runs(run: Run, node: Node, pending: PendingView, state_token: str, *, new_run: bool) -> PendingView:
    """`pending` with the runs linked to its step (start_workflow's parentStateToken), each with its status,
    its stateToken and what it recorded (a budget shared between them), and, where the step's prompt asks
    the agent to delegate (a step without a parallel step's own delegations), how to link one. `new_run`:
    nothing can be linked to it yet (a run, or a step, reached in this transaction): no query."""
    compiled = compiled_workflow(run.pinned_id)
    asks = step_asks(compiled, str(pending.get("stepId", "")))
    # A fragment that asks to delegate counts only where the prompt shows it (its `when` holds now).
    fragments = engine.pending_fragments(compiled, node.engine_state) if asks.delegating_fragments else ()
    if not pending.get("delegations") and asks.delegates_with(fragments):
        pending = cast(PendingView, {**pending, "delegateWith": {"parentStateToken": state_token}})
    if new_run:
        return pending
    linked = _linked_runs.all(run.pk)
    if not linked:  # the usual case, in one query
        return pending
    handed_by = origin(node)
    children = [child for child in linked if child.parent_node_id == handed_by.pk]
    if not children:
        return pending
    shown = children[-LINKED_RUNS_SHOWN:]
    tips = _tips(shown)
    recording = [child for child in shown if tips[child.pk].notes_on_path > 0]
    share = max(RECORDED_FLOOR_BYTES, RECORDED_BUDGET_BYTES // max(1, len(recording)))
    names = {child.pk: _workflow_name(child) for child in shown}
    views = []
    for child in shown:
        tip = tips[child.pk]
        view: JsonObject = {
            "runId": child.public_id,
            "workflowId": child.workflow_id,
            "workflowName": names[child.pk],
            "status": child.status,
            "stateToken": tokens.mint(settings.WORKRAIL_HOME, TokenKind.STATE, tip.public_id),
        }
        if tip.notes_on_path > 0:
            view["recorded"] = recap.path_recap(tip, budget=share)
        views.append(view)
    return cast(PendingView, {**pending, "linkedRuns": views, "linkedRunCount": len(children)})


def _workflow_name(run: Run) -> str:
    entry = current_catalog().get(run.workflow_id)
    return str(entry.compiled["name"]) if entry is not None else str(compiled_workflow(run.pinned_id)["name"])


def _tips(runs: list[Run]) -> dict[int, Node]:
    """Each run's latest node (its engine state not loaded), by the run's pk."""
    latest = dict(
        Node.objects.filter(run_id__in=[r.pk for r in runs])
        .values("run_id")
        .annotate(last=Max("pk"))
        .values_list("run_id", "last")
    )
    nodes = {node.pk: node for node in Node.objects.filter(pk__in=latest.values()).defer("engine_state", "trace")}
    by_run = {r.pk: r for r in runs}
    for run_pk, last in latest.items():
        nodes[last].run = by_run[run_pk]
    return {run_pk: nodes[last] for run_pk, last in latest.items()}


class HandedOut(NamedTuple):
    """Where a delegated run came from: the node that handed it out, that node's pending step (the
    engine's view, with every delegation), and this run's delegation in it; for a run linked with
    start_workflow's parentStateToken, None and the context the run was started with."""

    parent: Node
    step: PendingView | None  # None when the parent's state shows no pending step any more
    delegation: DelegationView | None
    started_with: JsonObject | None = None


# What a linked run's start context holds besides its brief: the goal (shown as the goal) and the keys
# that name a session (a linked run is in its parent's).
_NOT_BRIEF = frozenset({"goal", "sessionKey", "ticketId"})


def handed_out(run: Run) -> HandedOut | None:
    """The step that handed out `run` (a parallel step), or that it was linked to (parentStateToken); None
    for a run nobody delegated."""
    if run.parent_node_id is None:
        return None
    parent = Node.objects.select_related("run").filter(pk=run.parent_node_id).first()
    if parent is None:
        return None
    step = engine.pending_view(compiled_workflow(parent.run.pinned_id), parent.engine_state)
    if run.delegation_index is None:
        root = Node.objects.filter(run=run, parent__isnull=True).only("engine_state").first()
        context = (root.engine_state.get("context") or {}) if root is not None else {}
        return HandedOut(parent, step, None, {k: v for k, v in context.items() if k not in _NOT_BRIEF})
    for delegation in (step.get("delegations") if step is not None else None) or []:
        if delegation["index"] == run.delegation_index:
            return HandedOut(parent, step, delegation)
    return None


def brief_keys(source: HandedOut | None) -> list[str]:
    """The context keys a delegated run was handed: its inputs, never asked of it again."""
    if source is None:
        return []
    if source.delegation is None:
        return list(source.started_with or {})
    return list(source.delegation.get("context") or {})


def delegated_by(run: Run, source: HandedOut, *, complete: bool) -> JsonObject:
    """What a delegated run's answer says of its parent (runs/contract/execution.py, DelegatedBy): the
    step, the brief, and once the run is complete, which sibling runs are still open and the parent's
    node to go back to (where it stands on that step now). A linked run's siblings are the other runs
    linked to the same step; a parallel step's, the other delegations it handed out."""
    linked = source.delegation is None
    siblings = Run.objects.filter(parent_node=source.parent, delegation_index__isnull=linked).order_by(
        "delegation_index", "pk"
    )
    link: JsonObject = {
        "runId": source.parent.run.public_id,
        "stepId": source.step["stepId"] if source.step is not None else "",
        "stepTitle": source.step["title"] if source.step is not None else "",
        "brief": brief_keys(source),
    }
    if source.delegation is None:
        ordered = list(siblings.values_list("pk", flat=True))
        link.update(linked=True, number=ordered.index(run.pk) + 1, count=len(ordered), goal="")
    else:
        handed = (source.step.get("delegations") if source.step is not None else None) or []
        link.update(number=source.delegation["index"] + 1, count=len(handed), goal=source.delegation.get("goal", ""))
    if complete:
        link["unfinished"] = [
            sibling.public_id for sibling in siblings if sibling.pk != run.pk and sibling.status != RunStatus.COMPLETE
        ]
        waiting = _waiting_at(source.parent)
        if waiting is not None:
            link["parentStateToken"] = tokens.mint(settings.WORKRAIL_HOME, TokenKind.STATE, waiting.public_id)
    return link


def _waiting_at(handed_by: Node) -> Node | None:
    """Where the parent stands on the step that handed out the delegations: `handed_by`, or the newest
    checkpoint node below it on the same step instance. None when its branch has gone past the step."""
    instance = (handed_by.engine_state.get("pending") or {}).get("stepInstance")
    current = handed_by
    for _ in range(MAX_CHECKPOINT_HOPS):
        if current.latest_child_id is None:
            return current
        child = Node.objects.filter(pk=current.latest_child_id).first()
        if child is None or (child.engine_state.get("pending") or {}).get("stepInstance") != instance:
            return current if child is None else None
        current = child
    return current
