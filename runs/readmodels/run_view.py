"""The developer's view of one run (its graph, the steps of one branch, artifacts, gaps, warnings,
synthesis) and of one node (what was recorded there, the recap, the branches, a token to resume).

A fixed number of queries per page whatever the size of the run: every table is read once for the
whole run, and the branch is followed in memory.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.conf import settings

from runs.contract.dashboard import (
    BranchEntry,
    GapEntry,
    GraphEdge,
    GraphNode,
    NodeDetail,
    RunDetail,
    RunGraph,
    RunSummary,
    StepEntry,
    WarningEntry,
)
from runs.models import Checkpoint, Event, EventKind, Gap, Node, Output, Run, RunSynthesis
from runs.readmodels import artifact_tables, graph, recap
from runs.readmodels.overview import not_found, run_summary, stall_cutoff
from runs.store import tokens
from runs.store.pinned import compiled_workflow, steps_by_id
from runs.store.tokens import TokenKind
from workflows_app import engine

MAX_NODE_ID_CHARS = 20  # a 63-bit id has at most 19 digits


def get_run(run_id: str) -> Run:
    run = Run.objects.select_related("session", "parent_run").filter(public_id=run_id[:40]).first()
    if run is None:
        raise not_found("run", run_id, "Pick a run from its session's page (/sessions/<id>/) or /api/v1/sessions/<id>.")
    return run


def parse_node_id(node_id: str | int) -> int:
    text = str(node_id).strip()
    if not text.isascii() or not text.isdigit() or len(text) > MAX_NODE_ID_CHARS:
        raise not_found("node", text, "Node ids are the numbers shown in a run's graph (/runs/<id>/).")
    return int(text)


def get_node(node_id: str | int) -> Node:
    node = (
        Node.objects.select_related("run__session", "run__parent_run").filter(public_id=parse_node_id(node_id)).first()
    )
    if node is None or node.run.session.importing:  # a node keeps its id while its import is staged
        raise not_found("node", str(node_id), "Node ids are the numbers shown in a run's graph (/runs/<id>/).")
    return node


def summary_of(run: Run, cutoff: datetime | None = None) -> RunSummary:
    parent = run.parent_run.public_id if run.parent_run else None
    return run_summary(run, run.session.public_id, cutoff or stall_cutoff(), parent)


def _step_text(run: Run, step_id: str | None) -> tuple[str, str]:
    """The step's title and prompt as the pinned workflow has them."""
    step = steps_by_id(run.pinned_id).get(step_id or "") or {}
    return str(step.get("title") or step_id or ""), str(step.get("prompt") or "")


def run_detail(run_id: str, *, tip: str | None = None) -> RunDetail:
    run = get_run(run_id)
    cutoff = stall_cutoff()
    rows = list(
        Node.objects.filter(run=run)
        .order_by("created_at", "pk")
        .values_list("pk", "public_id", "parent_id", "pending_step_id", "is_complete", "created_at")
    )
    by_pk = {pk: (public, parent, step, complete, at) for pk, public, parent, step, complete, at in rows}
    public_of = {pk: public for pk, public, *_ in rows}
    outputs = list(Output.objects.filter(node__run=run).order_by("created_at", "pk"))
    checkpoints = list(Checkpoint.objects.filter(node__run=run).order_by("created_at", "pk"))
    made_by_checkpoint = {c.child_id for c in checkpoints if c.child_id is not None}

    layout = graph.lay_out((pk, parent) for pk, _, parent, *_ in rows)
    titles = _rendered_titles(run, outputs, [p.node_id for p in layout.nodes if p.is_leaf and not by_pk[p.node_id][3]])
    newest = rows[-1][0] if rows else None
    chosen = _chosen_tip(tip, rows, layout, newest)
    nodes = []
    for placed in layout.nodes:
        public, parent, step_id, complete, at = by_pk[placed.node_id]
        title = titles.get(placed.node_id) or _step_text(run, step_id)[0]
        nodes.append(
            GraphNode(
                node_id=str(public),
                parent_id=str(public_of[parent]) if parent is not None else None,
                step_id=step_id or None,
                title="Complete" if complete else title,
                depth=placed.depth,
                lane=placed.lane,
                is_complete=complete,
                is_tip=placed.node_id == newest,
                is_leaf=placed.is_leaf,
                via="start" if parent is None else ("checkpoint" if placed.node_id in made_by_checkpoint else "step"),
                created_at=at,
            )
        )
    edges = [GraphEdge(source=n.parent_id, target=n.node_id) for n in nodes if n.parent_id is not None]

    on_path = graph.path_to(chosen, {pk: parent for pk, _, parent, *_ in rows}) if chosen is not None else []
    steps = _steps(run, on_path, by_pk, public_of, outputs, checkpoints)
    tip_row = by_pk.get(chosen) if chosen is not None else None
    pending = tip_row[2] if tip_row and not tip_row[3] else None
    return RunDetail(
        run=summary_of(run, cutoff),
        graph=RunGraph(
            nodes=nodes,
            edges=edges,
            lanes=layout.lanes,
            depth=layout.depth,
            tip=str(public_of[newest]) if newest is not None else None,
        ),
        branch_tip=str(public_of[chosen]) if chosen is not None else None,
        steps=steps,
        tables=artifact_tables.tables((s.step_id, a) for s in steps for a in s.artifacts),
        gaps=[
            GapEntry(
                node_id=str(public_of.get(g.node_id, "")),
                step_id=g.step_id,
                reason=g.reason,
                description=g.description,
                created_at=g.created_at,
            )
            for g in Gap.objects.filter(run=run).order_by("created_at", "pk")
        ],
        warnings=_warnings(run),
        synthesis=RunSynthesis.objects.filter(run=run)
        .order_by("-created_at", "-pk")
        .values_list("synthesis", flat=True)
        .first(),
        delegations=[
            run_summary(child, run.session.public_id, cutoff, run.public_id)
            for child in Run.objects.filter(parent_run=run).order_by("delegation_index", "pk")
        ],
        pending_step_id=pending or None,
        pending_title=(titles.get(chosen) or _step_text(run, pending)[0]) if pending and chosen is not None else None,
    )


def _rendered_titles(run: Run, outputs: list[Output], open_leaves: list[int]) -> dict[int, str]:
    """Step titles as the agent saw them (loop variables filled in): from the output recorded at a node,
    or, for an open leaf (no output yet), rendered again from its engine state."""
    titles = {o.node_id: o.step_title for o in outputs if o.step_title}
    compiled = compiled_workflow(run.pinned_id)
    for pk, state in Node.objects.filter(pk__in=[pk for pk in open_leaves if pk not in titles]).values_list(
        "pk", "engine_state"
    ):
        pending = engine.pending_view(compiled, state)
        if pending is not None:
            titles[pk] = str(pending["title"])
    return titles


def _rendered_step(run: Run, node: Node) -> tuple[str, str]:
    """The title and prompt of the node's pending step as the agent was given them."""
    if node.is_complete:
        return "", ""
    pending = engine.pending_view(compiled_workflow(run.pinned_id), node.engine_state)
    if pending is None:
        return _step_text(run, node.pending_step_id)
    return str(pending["title"]), str(pending.get("prompt") or "")


def _chosen_tip(tip: str | None, rows: list[Any], layout: graph.Layout, newest: int | None) -> int | None:
    """The node whose branch is shown: the one asked for (any node of the run), else the newest."""
    if tip:
        wanted = parse_node_id(tip)
        for pk, public, *_ in rows:
            if public == wanted:
                return int(pk)
        raise not_found("node", tip, "Pick a node of this run from its graph.")
    return newest


def _steps(
    run: Run,
    on_path: list[int],
    by_pk: dict[int, Any],
    public_of: dict[int, int],
    outputs: list[Output],
    checkpoints: list[Checkpoint],
) -> list[StepEntry]:
    """What was recorded on the way to the chosen node: step outputs and checkpoints, in path order."""
    position = {pk: index for index, pk in enumerate(on_path)}
    entries: list[tuple[int, datetime, StepEntry]] = []
    for output in outputs:
        if output.child_id in position:
            started = by_pk[output.node_id][4]
            _, prompt = _step_text(run, output.step_id)
            entries.append(
                (
                    position[output.child_id],
                    output.created_at,
                    StepEntry(
                        node_id=str(public_of[output.node_id]),
                        child_id=str(public_of[output.child_id]),
                        kind="step",
                        step_id=output.step_id,
                        title=output.step_title or output.step_id,
                        prompt=prompt,
                        notes_markdown=output.notes_markdown,
                        artifacts=output.artifacts,
                        started_at=started,
                        recorded_at=output.created_at,
                        seconds=round((output.created_at - started).total_seconds(), 3),
                    ),
                )
            )
    for checkpoint in checkpoints:
        if checkpoint.child_id in position and checkpoint.node_id is not None:
            step_id = by_pk[checkpoint.node_id][2] or ""
            started = by_pk[checkpoint.node_id][4]
            entries.append(
                (
                    position[checkpoint.child_id],
                    checkpoint.created_at,
                    StepEntry(
                        node_id=str(public_of[checkpoint.node_id]),
                        child_id=str(public_of[checkpoint.child_id]),
                        kind="checkpoint",
                        step_id=step_id,
                        title=f"Checkpoint during {_step_text(run, step_id)[0] or 'the run'}",
                        prompt="",
                        notes_markdown=checkpoint.notes_markdown,
                        artifacts=checkpoint.artifacts,
                        started_at=started,
                        recorded_at=checkpoint.created_at,
                        seconds=round((checkpoint.created_at - started).total_seconds(), 3),
                    ),
                )
            )
    entries.sort(key=lambda item: (item[0], item[1]))
    return [entry for _, _, entry in entries]


def _warnings(run: Run) -> list[WarningEntry]:
    recorded = Event.objects.filter(
        session_id=run.session_id, kind=EventKind.WARNING_RECORDED, data__runId=run.public_id
    ).order_by("seq")
    return [
        WarningEntry(
            node_id=str(e.data.get("nodeId")) if e.data.get("nodeId") is not None else None,
            code=str(e.data.get("code", "")),
            message=str(e.data.get("message", "")),
            created_at=e.created_at,
        )
        for e in recorded
    ]


# --- one node ----------------------------------------------------------------------------------------


def state_token(node: Node) -> str:
    return tokens.mint(settings.WORKRAIL_HOME, TokenKind.STATE, node.public_id)


def node_detail(node_id: str) -> NodeDetail:
    node = get_node(node_id)
    run = node.run
    title, prompt = _rendered_step(run, node)
    here = [
        StepEntry(
            node_id=str(node.public_id),
            child_id=str(o.child.public_id),
            kind="step",
            step_id=o.step_id,
            title=o.step_title or o.step_id,
            prompt=prompt,
            notes_markdown=o.notes_markdown,
            artifacts=o.artifacts,
            started_at=node.created_at,
            recorded_at=o.created_at,
            seconds=round((o.created_at - node.created_at).total_seconds(), 3),
        )
        for o in Output.objects.filter(node=node).select_related("child").order_by("created_at", "pk")
    ] + [
        StepEntry(
            node_id=str(node.public_id),
            child_id=str(c.child.public_id) if c.child else None,
            kind="checkpoint",
            step_id=node.pending_step_id,
            title="Checkpoint",
            prompt="",
            notes_markdown=c.notes_markdown,
            artifacts=c.artifacts,
            started_at=node.created_at,
            recorded_at=c.created_at,
            seconds=round((c.created_at - node.created_at).total_seconds(), 3),
        )
        for c in Checkpoint.objects.filter(node=node).select_related("child").order_by("created_at", "pk")
    ]
    here.sort(key=lambda entry: entry.recorded_at)
    return NodeDetail(
        node_id=str(node.public_id),
        run=summary_of(run),
        parent_id=str(Node.objects.filter(pk=node.parent_id).values_list("public_id", flat=True).first())
        if node.parent_id
        else None,
        depth=node.depth,
        step_id=node.pending_step_id or None,
        title="Complete" if node.is_complete else title,
        prompt="" if node.is_complete else prompt,
        is_complete=node.is_complete,
        preferences=node.preferences,
        created_at=node.created_at,
        state_token=state_token(node),
        recorded=here,
        recap=recap.path_recap(node),
        branches=_branches(node),
    )


def _branches(node: Node) -> list[BranchEntry]:
    """The children of `node`: each is a branch an agent can resume with its stateToken."""
    children = list(Node.objects.filter(parent=node).order_by("created_at", "pk"))
    outputs = {o.child_id: o for o in Output.objects.filter(child__in=children)}
    checkpoints = {c.child_id: c for c in Checkpoint.objects.filter(child__in=children)}
    entries = []
    for child in children:
        output, checkpoint = outputs.get(child.pk), checkpoints.get(child.pk)
        notes = output.notes_markdown if output else (checkpoint.notes_markdown if checkpoint else "")
        entries.append(
            BranchEntry(
                node_id=str(child.public_id),
                state_token=state_token(child),
                via="checkpoint" if checkpoint else "step",
                step_id=output.step_id if output else (node.pending_step_id or None),
                notes_preview=notes[:280] + ("…" if len(notes) > 280 else ""),
                is_complete=child.is_complete,
                pending_step_id=child.pending_step_id or None,
                created_at=child.created_at,
            )
        )
    return entries
