"""Parallel steps: each delegation of a `parallel` step runs as a run of its own (a nested run of the
named workflow or routine, in the same session), linked to the node that handed it out. The parent
step can be acknowledged once every delegation that runs is complete; its notes report the results.

The delegations are started when a node first reaches the parallel step (inside the same
transaction), so a replay returns the same children and a rewind that reaches the step again on a
new branch hands out fresh ones. A checkpoint node standing on the same step shares its parent's.

Both sides are linked in what an agent reads: the parent step shows each run's status and what it
recorded (its notes, bounded, with the resource for the rest), and a delegated run, when opened and
when complete, names the step that handed it out, its brief, and the call that goes back there.
"""

from __future__ import annotations

from typing import NamedTuple

from django.conf import settings
from django.db.models import Max

from runs.contract.errors import HeldIssue
from runs.contract.execution import IssueDict
from runs.execution.catalog import current_catalog
from runs.execution.recording import begin_run
from runs.models import Node, Run, RunStatus
from runs.readmodels import recap
from runs.store import tokens
from runs.store.journal import Journal
from runs.store.pinned import compiled_workflow
from runs.store.tokens import TokenKind
from workflows_app import engine
from workflows_app.engine.delegations import shared_context
from workflows_app.engine.jsontypes import JsonObject

MAX_CHECKPOINT_HOPS = 64  # checkpoint nodes standing on one step, walked to find who handed it out
# What the delegations' runs recorded, shown on the parent step: this many bytes of notes in all, shared
# between the runs that recorded something (each gets at least RECORDED_FLOOR_BYTES).
RECORDED_BUDGET_BYTES = 12 * 1024
RECORDED_FLOOR_BYTES = 2 * 1024


def spawn(journal: Journal, run: Run, node: Node, pending: JsonObject | None) -> None:
    """Starts a run for each delegation that runs, when `node` is the first to reach a parallel step."""

    for delegation in (pending or {}).get("delegations") or []:
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


def with_runs(run: Run, node: Node, pending: JsonObject) -> JsonObject:
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
    shown = []
    for delegation in handed_out:
        child = children.get(delegation["index"])
        entry = catalog.get(delegation["workflowId"])
        item = {**delegation, "available": child is not None or not delegation["runs"]}
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
        shown.append(item)
    return {**pending, "delegations": shown, **({"sharedContext": shared} if shared else {})}


def combined_by(run: Run, node: Node, step: JsonObject | None, pending: JsonObject) -> JsonObject:
    """`pending` for a parallel step's synthesis (the step WorkRail injects after it to combine what the
    delegations found): with the delegations of the node that stood on the parallel step just before, each
    with what its run recorded, so the step that combines them shows them. Any other step as it is."""
    virtual = (step or {}).get("virtualOf") or {}
    if virtual.get("kind") != "synthesis" or node.parent is None:
        return pending
    before = node.parent
    shown = engine.pending_view(compiled_workflow(run.pinned_id), before.engine_state) or {}
    if shown.get("stepId") != virtual.get("stepId") or not shown.get("delegations"):
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


def pending_issues(run: Run, node: Node, pending: JsonObject | None) -> list[IssueDict]:
    """Why the parallel step cannot be acknowledged yet: delegations whose runs are not complete."""
    handed_out = (pending or {}).get("delegations")
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


class HandedOut(NamedTuple):
    """Where a delegated run came from: the node that handed it out, that node's pending step (the
    engine's view, with every delegation), and this run's delegation in it."""

    parent: Node
    step: JsonObject
    delegation: JsonObject


def handed_out(run: Run) -> HandedOut | None:
    """The parallel step that handed out `run`, or None for a run nobody delegated."""
    if run.parent_node_id is None or run.delegation_index is None:
        return None
    parent = Node.objects.select_related("run").filter(pk=run.parent_node_id).first()
    if parent is None:
        return None
    step = engine.pending_view(compiled_workflow(parent.run.pinned_id), parent.engine_state) or {}
    for delegation in step.get("delegations") or []:
        if delegation["index"] == run.delegation_index:
            return HandedOut(parent, step, delegation)
    return None


def brief_keys(source: HandedOut | None) -> list[str]:
    """The context keys a delegated run was handed: its inputs, never asked of it again."""
    return list((source.delegation.get("context") or {}) if source is not None else [])


def delegated_by(run: Run, source: HandedOut, *, complete: bool) -> JsonObject:
    """What a delegated run's answer says of its parent (runs/contract/execution.py, DelegatedBy): the
    step, the brief, and once the run is complete, which sibling runs are still open and the parent's
    node to go back to (where it stands on that step now)."""
    handed = source.step.get("delegations") or []
    link: JsonObject = {
        "runId": source.parent.run.public_id,
        "stepId": source.step.get("stepId", ""),
        "stepTitle": source.step.get("title", ""),
        "number": source.delegation["index"] + 1,
        "count": len(handed),
        "goal": source.delegation.get("goal", ""),
        "brief": brief_keys(source),
    }
    if complete:
        siblings = Run.objects.filter(parent_node=source.parent).exclude(pk=run.pk).order_by("delegation_index")
        link["unfinished"] = [sibling.public_id for sibling in siblings if sibling.status != RunStatus.COMPLETE]
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
