"""The developer's view of one run (its graph, the steps of one branch, artifacts, gaps, warnings,
synthesis) and of one node (what was recorded there, the recap, the branches, a token to resume).

A fixed number of queries per page whatever the size of the run: every table is read once for the
whole run, and the branch is followed in memory.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Literal

from django.conf import settings
from django.db.models import F

from runs.contract.dashboard import (
    BranchEntry,
    BranchOutcomeEntry,
    GapEntry,
    GraphEdge,
    GraphNode,
    NodeDetail,
    NodeRef,
    OtherAnswer,
    RunDetail,
    RunGraph,
    RunSummary,
    StateName,
    StepEntry,
    StepPlace,
    WarningEntry,
    Whereabouts,
)
from runs.contract.fork import OperatorForkNote
from runs.models import Checkpoint, Event, EventKind, Gap, Node, Output, Run, RunStatus
from runs.readmodels import (
    artifact_tables,
    attention,
    branches,
    commits,
    forks,
    graph_drawing,
    listing,
    naming,
    outcomes,
    outline_words,
    paused,
    people,
    recap,
    step_places,
    step_text,
)
from runs.readmodels.clock import stall_cutoff
from runs.readmodels.loop_marks import loop_marks
from runs.readmodels.overview import STALLED, not_found, run_summary, run_words
from runs.store import ownership, tokens
from runs.store.pinned import compiled_workflow, steps_by_id
from runs.store.tokens import TokenKind
from workflows_app import engine
from workflows_app.engine.model import CompiledStep

MAX_NODE_ID_CHARS = 20  # a 63-bit id has at most 19 digits
# What made a node (the graph's `via`, the node page's `made_by`).
Via = Literal["start", "step", "checkpoint", "fork"]


def get_run(run_id: str) -> Run:
    read = Run.objects.select_related("session", "parent_run").filter(public_id=run_id[:40])
    run = paused.with_import_marks(read).first()  # whether it is paused, in the same query
    if run is None:
        raise not_found("run", run_id, "Pick a run from its session's page (/sessions/<id>/) or /api/v1/sessions/<id>.")
    ownership.require_mine(run.session)
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
    ownership.require_mine(node.run.session)
    return node


def summary_of(
    run: Run, cutoff: datetime | None = None, status_summary: str | None = None, halted: bool = False
) -> RunSummary:
    parent = run.parent_run.public_id if run.parent_run else None
    return run_summary(run, run.session.public_id, cutoff or stall_cutoff(), parent, status_summary, halted)


def _step_text(run: Run, step_id: str | None) -> step_text.StepText:
    """The step's title and prompt as the pinned workflow has them (placeholders named, not raw)."""
    return step_text.as_written(steps_by_id(run.pinned_id).get(step_id or ""), step_id)


def run_detail(run_id: str, *, tip: str | None = None) -> RunDetail:
    return shown_run(run_id, tip=tip).detail


@dataclass(frozen=True)
class ShownRun:
    """A run's page and the branches it was read from (the reports say more about each branch)."""

    detail: RunDetail
    branches: branches.RunBranches


def shown_run(run_id: str, *, tip: str | None = None) -> ShownRun:
    """The run with the branch ending at `tip` (any node of the run; the newest node without one): its
    steps, artifact tables and synthesis are that branch's own (branches.py decides what belongs to it)."""
    run = get_run(run_id)
    cutoff = stall_cutoff()
    tree = branches.read(run)
    rows = tree.nodes
    outputs = tree.outputs
    made_by_checkpoint = {c.child_id for c in tree.checkpoints if c.child_id is not None}

    layout = tree.layout
    open_leaves = [p.node_id for p in layout.nodes if p.is_leaf and not rows[p.node_id].is_complete]
    titles = {o.node_id: o.step_title for o in outputs if o.step_title}
    titles |= _seen_titles(run, tree, titles, open_leaves)
    newest = tree.newest
    chosen = _chosen_tip(tip, tree)
    loops = loop_marks(run)
    places = step_places.of_run(run)
    numbers = tree.step_numbers
    blocked_tips = {b.tip for b in tree.branches if b.status == "blocked"}
    nodes = []
    for placed in layout.nodes:
        row = rows[placed.node_id]
        loop = loops.get(placed.node_id)
        title = titles.get(placed.node_id) or _step_text(run, row.step_id)[0]
        nodes.append(
            GraphNode(
                node_id=str(row.public_id),
                parent_id=str(tree.public(row.parent_id)) if row.parent_id is not None else None,
                step_id=row.step_id or None,
                title="Complete" if row.is_complete else title,
                depth=placed.depth,
                lane=placed.lane,
                is_complete=row.is_complete,
                is_tip=placed.node_id == newest,
                is_leaf=placed.is_leaf,
                via=_made_by(tree, row, made_by_checkpoint),
                step_number=numbers[placed.node_id],
                is_blocked=placed.node_id in blocked_tips,
                created_at=row.created_at,
                iteration=loop.iteration if loop else None,
                loop_title=loop.loop_title if loop else "",
                place=places.get(placed.node_id),
            )
        )
    edges = [GraphEdge(source=n.parent_id, target=n.node_id) for n in nodes if n.parent_id is not None]

    shown = tree.view(chosen) if chosen is not None else None
    steps = _steps(run, shown, tree, titles, places) if shown is not None else []
    tip_row = rows.get(chosen) if chosen is not None else None
    pending = tip_row.step_id if tip_row and not tip_row.is_complete else None
    told = outcomes.of_run(tree)
    shown_number = shown.branch.number if shown is not None else None
    halted = paused.of_runs([run], {run.pk: tree}).get(run.pk)
    summary = summary_of(run, cutoff, run_words(run, told, cutoff, halted is not None), halted is not None)
    told = [_with_run_state(o, summary.state) for o in told]
    told = with_lines(tree, told, places)
    shown_outcome = next((o for o in told if o.number == shown_number), None)
    canceled_by = people.canceled_by(run.session_id, run.public_id).words if run.status == "canceled" else ""
    state = attention.RunState(
        run, tree, told, shown_outcome, summary.status == STALLED, canceled_by, places, paused=halted
    )
    detail = RunDetail(
        run=summary,
        graph=RunGraph(
            nodes=nodes,
            edges=edges,
            lanes=layout.lanes,
            depth=layout.depth,
            tip=str(tree.public(newest)) if newest is not None else None,
        ),
        branch_tip=str(tree.public(chosen)) if chosen is not None else None,
        steps=steps,
        tables=shown.tables if shown is not None else artifact_tables.tables([]),
        gaps=[
            GapEntry(
                node_id=str(rows[g.node_id].public_id) if g.node_id in rows else "",
                step_id=g.step_id,
                reason=g.reason,
                description=g.description,
                created_at=g.created_at,
            )
            for g in Gap.objects.filter(run=run).order_by("created_at", "pk")
        ],
        warnings=_warnings(run),
        synthesis=shown.synthesis if shown is not None else None,
        delegations=[
            run_summary(child, run.session.public_id, cutoff, run.public_id)
            # Declared delegations by their index, then runs the agent linked (no index), on every backend.
            for child in Run.objects.filter(parent_run=run).order_by(F("delegation_index").asc(nulls_last=True), "pk")
        ],
        where=_where(run, tree, cutoff, places, titles, halted),
        pending_step_id=pending or None,
        pending_is_live=bool(pending) and _pending_is_live(run, shown_outcome),
        pending_title=(titles.get(chosen) or _step_text(run, pending)[0]) if pending and chosen is not None else None,
        operator_forks=_forks_on(run, tree, shown.path if shown is not None else []),
        canceled_by=canceled_by,
        branch=shown_outcome,
        other_branches=[o for o in told if o.number != shown_number],
        pending_needs_user=bool(
            pending and shown_outcome is not None and shown_outcome.is_newest and run.waits_for_user
        ),
        panels=attention.panels(state),
        commits=commits.of_run(run),
        place=places.get(chosen) if chosen is not None else None,
    )
    return ShownRun(detail, tree)


def _where(
    run: Run,
    tree: branches.RunBranches,
    cutoff: datetime,
    places: dict[int, StepPlace],
    titles: dict[int, str],
    halted: paused.Paused | None,
) -> Whereabouts | None:
    """The run's own line, as the session's head says it (attention.each); a delegated run's page says it
    the same way (its number among the session's runs is not shown there)."""
    halts = {run.pk: halted} if halted is not None else {}
    return attention.each(attention.places([run], {run.pk: tree}, at=places, titles=titles, halted=halts), cutoff)[0]


def with_lines(
    tree: branches.RunBranches, told: list[BranchOutcomeEntry], places: dict[int, StepPlace]
) -> list[BranchOutcomeEntry]:
    """Each branch with its line in the dashboard's words (attention.branch_line), its step placed in the
    outline."""

    def place(o: BranchOutcomeEntry) -> StepPlace | None:
        pk = tree.by_public_id(int(o.tip_node_id))
        return places.get(pk) if pk is not None else None

    def last_step(o: BranchOutcomeEntry) -> str:
        """A finished branch's last step (the one pending at its end's parent), so that its line names a step
        as every other branch's does."""
        pk = tree.by_public_id(int(o.tip_node_id)) if o.status == "complete" else None
        parent = tree.nodes.get(tree.nodes[pk].parent_id or 0) if pk is not None else None
        step = steps_by_id(run_pinned).get(parent.step_id) if parent is not None else None
        return outline_words.title_words(str(step.get("title") or "")) if step is not None else ""

    def lined(o: BranchOutcomeEntry) -> BranchOutcomeEntry:
        where = place(o)
        said = o.model_copy(update={"line": attention.branch_line(o, where, last_step(o))})
        said._place_words = step_places.full_words(where)
        if o.status != "complete":
            said._step_named = step_places.named(o.step_title or o.step_id or "", where)
        return said

    run_pinned = tree.run.pinned_id
    return [lined(o) for o in told]


def _with_run_state(outcome: BranchOutcomeEntry, run_state: StateName) -> BranchOutcomeEntry:
    """The newest open branch is where the run stands: it takes the run's state (needs you, paused, stalled)."""
    if outcome.is_newest and outcome.status == "open" and run_state in ("needs_you", "paused", "stalled", "running"):
        return outcome.model_copy(update={"state": run_state})
    return outcome


def _pending_is_live(run: Run, shown: BranchOutcomeEntry | None) -> bool:
    """Whether someone's move is pending at the shown tip: not on a canceled run, nor on a branch left
    behind (nobody works there; its panel says how to resume it)."""
    return run.status != RunStatus.CANCELED and shown is not None and not shown.left_behind


def _made_by(tree: branches.RunBranches, row: branches.NodeRow, made_by_checkpoint: set[int]) -> Via:
    if row.parent_id is None:
        return "start"
    if row.pk in tree.started_by_hand:
        return "fork"
    return "checkpoint" if row.pk in made_by_checkpoint else "step"


def _forks_on(run: Run, tree: branches.RunBranches, path: list[int]) -> list[OperatorForkNote]:
    """The operator forks whose branch the shown path takes, in path order."""
    made = forks.forks_of_run(run) if path else {}
    ours = [(pk, made[tree.public(pk)]) for pk in path if tree.public(pk) in made]
    sources = [tree.parents[pk] for pk, _ in ours if tree.parents[pk] is not None]
    seen = step_text.as_seen(compiled_workflow(run.pinned_id), [pk for pk in sources if pk is not None]) if ours else {}
    shown = []
    for pk, fork in ours:
        source = tree.parents[pk]
        if source is None:
            shown.append(fork)
            continue
        row = tree.nodes[source]
        title = seen[source].title if source in seen else _step_text(run, row.step_id).title
        number = None if row.is_complete else tree.steps_taken(source) + 1
        branch = tree.branch_of(source).number if source in tree.nodes else None
        shown.append(fork.model_copy(update={"from_step_number": number, "from_title": title, "from_branch": branch}))
    return shown


def _seen_titles(
    run: Run, tree: branches.RunBranches, titled: dict[int, str], open_leaves: list[int]
) -> dict[int, str]:
    """Titles as the agent saw them (loop variables filled in) where no output recorded one, rendered
    again from the engine state: at open leaves, and where a step whose title depends on the context
    was checkpointed. Few nodes: the steps' prompts are shown as written (placeholders named), which
    costs no state; the node page shows a prompt exactly as the agent was given it."""
    steps = steps_by_id(run.pinned_id)
    wanted = [
        pk
        for pk, row in tree.nodes.items()
        if pk not in titled and not row.is_complete and (pk in open_leaves or "{{" in _title_of(steps.get(row.step_id)))
    ]
    seen = step_text.as_seen(compiled_workflow(run.pinned_id), wanted)
    return {pk: text.title for pk, text in seen.items()}


def _rendered_step(run: Run, node: Node) -> tuple[str, str]:
    """The title and prompt of the node's pending step as the agent was given them."""
    if node.is_complete:
        return "", ""
    pending = engine.pending_view(compiled_workflow(run.pinned_id), node.engine_state)
    if pending is None:
        return _step_text(run, node.pending_step_id)
    return str(pending["title"]), str(pending.get("prompt") or "")


def _chosen_tip(tip: str | None, tree: branches.RunBranches) -> int | None:
    """The node whose branch is shown: the one asked for (any node of the run), else the newest."""
    if tip:
        chosen = tree.by_public_id(parse_node_id(tip))
        if chosen is None:
            raise not_found("node", tip, "Pick a node of this run from its graph.")
        return chosen
    return tree.newest


def branch_steps(
    run: Run, shown: branches.BranchView, tree: branches.RunBranches, places: dict[int, StepPlace]
) -> list[StepEntry]:
    """The steps of one branch view as the run page lists them, each placed in the outline as the page
    places it (`places`: step_places.of_run(run), read once for all of a run's branches); the reports list
    every branch so."""
    titles = {o.node_id: o.step_title for o in tree.outputs if o.step_title}
    titles |= _seen_titles(run, tree, titles, [])
    return _steps(run, shown, tree, titles, places)


def _steps(
    run: Run,
    shown: branches.BranchView,
    tree: branches.RunBranches,
    titles: dict[int, str],
    places: dict[int, StepPlace],
) -> list[StepEntry]:
    """What was recorded on the way to the shown node: step outputs and checkpoints, in path order. A step
    answered on more than one branch (the agent rewound to it and answered again) says what the other
    branches' answers were: the graph draws the step once, but each branch has its own answer."""
    answers: dict[int, list[Output]] = {}
    for output in tree.outputs:
        answers.setdefault(output.node_id, []).append(output)
    makers = people.node_makers(run.session_id)  # who answered each step: the node the answer made says
    entries = []
    for record in shown.records:
        item = record.record
        node_pk = item.node_id or 0  # a run's checkpoint always has its node
        started = tree.shown_at(node_pk)  # when the step was given, not a checkpoint saved during it
        written = _step_text(run, record.step_id)
        others: list[OtherAnswer] = []
        if isinstance(item, Output):
            title, prompt = item.step_title or item.step_id, written.prompt
            for o in answers.get(node_pk, []):
                if o.pk == item.pk or o.child_id not in tree.nodes:
                    continue
                other = OtherAnswer(
                    branch=tree.branch_of(o.child_id).number,
                    notes_preview=_preview(o.notes_markdown),
                    recorded_at=o.created_at,
                    earlier=(o.created_at, o.pk) < (item.created_at, item.pk),
                )
                other._tip = tree.public(tree.branch_of(o.child_id).nodes[-1])
                others.append(other)
        else:
            title, prompt = f"Checkpoint during {titles.get(node_pk) or written.title or 'the run'}", ""
        made = makers.get(tree.public(item.child_id or 0), people.NOBODY)
        entry = StepEntry(
            node_id=str(tree.public(node_pk)),
            child_id=str(tree.public(item.child_id or 0)),
            kind=record.kind,
            step_id=record.step_id,
            step_number=tree.step_number(node_pk),
            place=places.get(node_pk),
            title=title,
            prompt=prompt,
            notes_markdown=item.notes_markdown,
            artifacts=item.artifacts,
            started_at=started,
            recorded_at=item.created_at,
            seconds=round((item.created_at - started).total_seconds(), 3),
            other_answers=others,
            answers_note=_answers_note(others),
            owner=made.owner,
            door=made.door,
            by=made.words,
        )
        entry._footnotes = _footnotes(others)
        entries.append(entry)
    return entries


PREVIEW_CHARS = 120


def _preview(notes: str) -> str:
    line = next((text.strip() for text in notes.splitlines() if text.strip()), "")
    return line if len(line) <= PREVIEW_CHARS else line[: PREVIEW_CHARS - 1].rstrip() + "…"


def _footnotes(others: list[OtherAnswer]) -> list[tuple[str, int]]:
    """What the other branches answered at this step, one footnote each, said after this answer (friction15
    17: a note between the prompt and the answer read like the answer): "↺ redone here; branch 1 had
    answered: 'Did list-changed-files.'" at the redo, "↺ redone on branch 2: '...'" at the answer it redid.
    In the graph's one word for it (graph_drawing.AGAIN_WORDS) and branch words only (friction15b 14: no
    "rewind"). Each with the tip of the branch it names, for the run page's link."""

    def said(other: OtherAnswer) -> str:
        return f"'{other.notes_preview}'" if other.notes_preview else "no notes"

    mark = f"↺ {graph_drawing.AGAIN_WORDS}"
    earlier = [o for o in others if o.earlier]
    later = [o for o in others if not o.earlier]
    notes = [
        (f"{mark + ' here; ' if n == 0 else ''}branch {o.branch} had answered: {said(o)}", o.tip)
        for n, o in enumerate(earlier)
    ]
    return notes + [(f"{mark} on branch {o.branch}: {said(o)}", o.tip) for o in later]


def _answers_note(others: list[OtherAnswer]) -> str:
    """The footnotes (_footnotes) in one line, for the API and the reports."""
    return " · ".join(words for words, _ in _footnotes(others))


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
    return _node_detail(node, branches.read(node.run, records=False))


def node_page(node_id: str) -> tuple[NodeDetail, list[NextStep]]:
    """A node as its page shows it: its detail and its next steps named by their branches, from one read of the
    run's tree (the page read the node and the tree a second time for the names)."""
    node = get_node(node_id)
    tree = branches.read(node.run, records=False)
    detail = _node_detail(node, tree)
    return detail, _next_steps_named(tree, node.pk, detail.branches)


def _node_detail(node: Node, tree: branches.RunBranches) -> NodeDetail:
    run = node.run
    title, prompt = _rendered_step(run, node)
    makers = people.node_makers(run.session_id)
    number = tree.step_number(node.pk) if node.pk in tree.nodes else node.depth + 1
    places = step_places.of_run(run)
    # When the step was given: for a node a checkpoint made, the node before it (RunBranches.shown_at).
    shown = tree.shown_at(node.pk) if node.pk in tree.nodes else node.created_at
    here = [
        StepEntry(
            node_id=str(node.public_id),
            child_id=str(o.child.public_id),
            kind="step",
            step_id=o.step_id,
            step_number=number,
            place=places.get(node.pk),
            title=o.step_title or o.step_id,
            prompt=prompt,
            notes_markdown=o.notes_markdown,
            artifacts=o.artifacts,
            started_at=shown,
            recorded_at=o.created_at,
            seconds=round((o.created_at - shown).total_seconds(), 3),
            **_by(makers.get(o.child.public_id, people.NOBODY)),
        )
        for o in Output.objects.filter(node=node).select_related("child").order_by("created_at", "pk")
    ] + [
        StepEntry(
            node_id=str(node.public_id),
            child_id=str(c.child.public_id) if c.child else None,
            kind="checkpoint",
            step_id=node.pending_step_id,
            step_number=number,
            place=places.get(node.pk),
            title="Checkpoint",
            prompt="",
            notes_markdown=c.notes_markdown,
            artifacts=c.artifacts,
            started_at=shown,
            recorded_at=c.created_at,
            seconds=round((c.created_at - shown).total_seconds(), 3),
            **_by(makers.get(c.child.public_id, people.NOBODY) if c.child else people.NOBODY),
        )
        for c in Checkpoint.objects.filter(node=node).select_related("child").order_by("created_at", "pk")
    ]
    here.sort(key=lambda entry: entry.recorded_at)
    told = outcomes.of_run(tree)
    halted = run.pk in paused.of_runs([run], {run.pk: tree})
    summary = summary_of(run, None, run_words(run, told, stall_cutoff(), halted), halted)
    told = with_lines(tree, [_with_run_state(o, summary.state) for o in told], places)
    mine = (
        next((o for o in told if o.number == tree.branch_of(node.pk).number), None) if node.pk in tree.nodes else None
    )
    through = branches_through(tree, node.pk)
    on = _on(tree, node.pk, through)
    refused = mine.blocked if mine is not None else None
    children = list(Node.objects.filter(parent=node).order_by("created_at", "pk"))
    parent = Node.objects.filter(pk=node.parent_id).first() if node.parent_id else None
    titles = _node_titles(run, [n for n in (parent, *children) if n is not None])
    fork = forks.fork_into(node)
    if fork is not None and parent is not None:
        fork = fork.model_copy(
            update={
                "from_step_number": _step_number(tree, parent),
                "from_title": titles[parent.pk],
                "from_branch": tree.branch_of(parent.pk).number if parent.pk in tree.nodes else None,
            }
        )
    taken = tree.steps_taken(node.pk) if node.pk in tree.nodes else 0
    made_by = _made_by(tree, tree.nodes[node.pk], tree.made_by_checkpoint)  # as the graph draws it
    session = run.session
    return NodeDetail(
        node_id=str(node.public_id),
        run=summary,
        session_name=naming.session_name(session.session_key, session.title, session.public_id),
        parent_id=str(parent.public_id) if parent is not None else None,
        parent=_ref(tree, parent, titles, places) if parent is not None else None,
        depth=node.depth,
        step_number=None if node.is_complete else taken + 1,
        steps_taken=taken,
        place=places.get(node.pk),
        made_by=made_by,
        step_id=node.pending_step_id or None,
        title="Complete" if node.is_complete else title,
        prompt="" if node.is_complete else prompt,
        is_complete=node.is_complete,
        preferences=node.preferences,
        created_at=node.created_at,
        state_token=state_token(node),
        by=makers.get(node.public_id, people.NOBODY).words,
        recorded=here,
        recap=recap.path_recap(node),
        branches=_branches(node, children, tree, titles, makers, places),
        context=node.engine_state.get("context") or {},
        operator_fork=fork,
        on_branch=mine,
        # Only the branches the graph draws through this step's card: one that redid the step has its own card
        # (friction60a 2: "Where branches 1, 2 and 3 went on from this step" named branch 3, which came from the
        # step before); it stands with the run's other branches.
        on_branches=[o for o in told if o.number in on],
        on_branches_words=_on_branches_words(tree, node.pk, through),
        other_branches=[o for o in told if o is not mine and o.number not in on],
        # The refusal is this node's when its step is the refused one: the node itself, or the branch's tip
        # (a checkpoint below the refused node keeps the same pending step).
        blocked=refused
        if mine is not None and refused is not None and str(node.public_id) in (refused.node_id, mine.tip_node_id)
        else None,
    )


def _by(made: people.Maker) -> dict[str, str]:
    """A step entry's who: owner, door and the words."""
    return {"owner": made.owner, "door": made.door, "by": made.words}


def branches_through(tree: branches.RunBranches, pk: int) -> list[int]:
    """The numbers of the branches whose path passes through node `pk`: its own, and every branch that grew
    from it or from a node after it (a node before a fork is shared)."""
    if pk not in tree.nodes:
        return []
    return [b.number for b in tree.branches if pk in tree.path(b.tip)]


def _redone_from(tree: branches.RunBranches, pk: int) -> set[int]:
    """The first nodes of the branches that grew from node `pk` by doing its step again: answered again after a
    rewind, or started by hand from it. The graph draws either beside `pk`'s card, as the branch's own
    (graph_story.told: a child in another lane, made by a step or by a fork), so `pk`'s card is not on those
    branches, nor on any that grew from them later."""
    return {
        b.nodes[0]
        for b in tree.branches
        if b.forked_from == pk
        and b.nodes
        and b.nodes[0] in tree.nodes
        and (
            b.nodes[0] in tree.started_by_hand
            or _made_by(tree, tree.nodes[b.nodes[0]], tree.made_by_checkpoint) == "step"
        )
    }


def _on(tree: branches.RunBranches, pk: int, through: list[int]) -> list[int]:
    """The branches through node `pk` (`through`) whose path keeps its card: not those that grew from a redo of
    its step, which the graph draws as that branch's own card (_redone_from)."""
    redone = _redone_from(tree, pk)
    return [b.number for b in tree.branches if b.number in through and not redone & set(tree.path(b.tip))]


def redo_words(numbers: list[int] | tuple[int, ...]) -> str:
    """ "Redo on branch 3", "Redos on branches 2 and 3": a branch that answers a step again, by the agent after
    a rewind or started by hand, in one pattern wherever a step's page says it."""
    if len(numbers) == 1:
        return f"Redo on branch {numbers[0]}"
    return f"Redos on branches {_and(list(numbers))}"


def _on_branches_words(tree: branches.RunBranches, pk: int, through: list[int]) -> str:
    """ "On branch 1"; "On branches 1 and 2 (branch 2 branched here)"; "On branch 1 (branch 2 redid this step)";
    "On branches 1, 2 and 3 (shared by branches 1, 2 and 3)": a node before a fork is on every branch that grew
    after it. A branch that answered this step again has its own copy of it, as the graph draws it (r59: the
    graph's "Branches 1-2" beside the card, the page's "On branches 1, 2 and 3"): it is named apart, as having
    redone the step, not as one the step is on."""
    on = _on(tree, pk, through)
    if not on:
        return ""
    # A branch that redid this step, by the agent after a rewind or started by hand, is said once, in the step's
    # redo card ("Redo on branch 3", redos_apart), not here as well (friction61b 7: "On branches 1 and 2 (redo
    # on branch 3)" above "Redo on branch 3" read three times).
    redone = _redone_from(tree, pk)
    redid = [b.number for b in tree.branches if b.forked_from == pk and b.nodes and b.nodes[0] in redone]
    here = [b.number for b in tree.branches if b.forked_from == pk and b.number not in redid]
    listed = _and(on)
    whys = [f"branch{'es' if len(here) > 1 else ''} {_and(here)} branched here"] if here else []
    if not whys and len(on) > 1 and not redid:  # the redo card says why this step has other branches
        whys.append(f"shared by branches {listed}")
    head = f"On branches {listed}" if len(on) > 1 else f"On branch {listed}"
    return f"{head} ({'; '.join(whys)})" if whys else head


@dataclass(frozen=True, slots=True)
class NextStep:
    """A next step on a node's page: its entry and the numbers of the branches that went on along it, named in the
    graph's words ("Branches 1-2"), and the words before the answer that led there."""

    entry: BranchEntry
    numbers: tuple[int, ...]
    # A branch that grew from a redo of this step (answered again after a rewind, or started by hand): the graph
    # draws its answer as that branch's own card, so it is no step after this one (friction61a 1).
    redo: bool = False
    # Branches that went on to the next step but redid it: the graph draws their own redone (↺) card of it beside
    # the one `entry` is (friction63a 5, 63b 3: "Branches 1-2 · Review api" where branch 2 has its own card).
    # `tip`: where "show on the run" leads, the redo's first node; `at`: when the redo was answered.
    redone: bool = False
    tip: str = ""
    at: datetime | None = None

    @property
    def along(self) -> int:
        """How many branches went on along it (one where none is known)."""
        return len(self.numbers) or 1

    @property
    def branches(self) -> str:
        """Its branches as the graph names them: "Branches 1-2", "Branch 3"; "" where none is known."""
        return graph_drawing.branches_label(self.numbers) if self.numbers else ""

    @property
    def on_words(self) -> str:
        """The branches after "on": "branches 1-2", "branch 3"."""
        return graph_drawing.branches_label(self.numbers, lead=False) if self.numbers else ""

    @property
    def answer_label(self) -> str:
        """The answer quoted under the next step is this step's, that led there, not the next step's own (r59:
        "The answer: …" under "Review api" read as Review api's)."""
        return f"This step's answer on {self.on_words}" if self.branches else "The answer"


def _next_steps_named(tree: branches.RunBranches, at: int, entries: list[BranchEntry]) -> list[NextStep]:
    """Each next step of node `at` with the branches that went on along it, in the graph's words ("Branches 1-2",
    "Branch 3"): an answer branches 1 and 2 share leads to the card the graph draws after this one on both
    (r59: the page named it "Branch 1" only, beside "Branch 3", which grew from its own redo of this step)."""
    by_id = {str(tree.public(pk)): pk for pk in tree.nodes}
    redone = _redone_from(tree, at) if at in tree.nodes else set()
    named = []
    for entry in entries:
        pk = by_id.get(entry.node_id)
        redo = entry.via == "fork" or pk in redone
        through = branches_through(tree, pk) if pk is not None else []
        # The branches the graph draws through the next step's card (_on, as the page's "On branches" and
        # graph_story.told): not those that redid that step, which have their own card of it, said after it.
        numbers = through if redo or pk is None else _on(tree, pk, through)
        # Where the tree does not place it, the entry's own branch; none where that is not known either.
        along = tuple(numbers) or ((entry.branch,) if entry.branch else ())
        named.append(NextStep(entry, along, redo=redo))
        if pk is not None and not redo:
            named.extend(_redone_next(tree, pk, entry))
    return named


def _redone_next(tree: branches.RunBranches, pk: int, entry: BranchEntry) -> list[NextStep]:
    """The redone cards of next step `pk` (entry `entry`), one per redo, with the branches the graph draws
    through each, the step named with the graph's word for its card (graph_drawing.AGAIN_WORDS, or VIA_WORDS for
    one started by hand): "Branch 2 · Review api (redone) · step 4 of 8"."""
    found = []
    for first in sorted(_redone_from(tree, pk)):
        numbers = tuple(b.number for b in tree.branches if first in tree.path(b.tip))
        if numbers:
            mark = graph_drawing.VIA_WORDS["fork"] if first in tree.started_by_hand else graph_drawing.AGAIN_WORDS
            card = entry.model_copy(update={"title": f"{entry.title} ({mark})"})
            at = tree.nodes[first].created_at
            found.append(NextStep(card, numbers, redone=True, tip=str(tree.public(first)), at=at))
    return found


def redos_apart(named: list[NextStep]) -> tuple[list[NextStep], list[NextStep]]:
    """A step's next steps, and apart the branches that redid it: started by hand from it ("Branch from here"),
    or answered again by the agent after a rewind. Either is drawn by the graph as its branch's own card, not a
    step after this one (friction60a 2: REL-7's "Branch 2 · Prepare · step 1 of 5, started by hand" under
    Prepare's "Next steps"; friction61a 1: "Branch 3 · Review api", which follows branch 3's redone card)."""
    # A checkpoint saved during the step is neither: the step goes on after it, and the page says it in its own
    # card (checkpoints_here; friction62b 3: "Next step … · checkpoint" named the page's own step).
    return [s for s in named if not s.redo and s.entry.via != "checkpoint"], [s for s in named if s.redo]


def checkpoints_here(node: NodeDetail) -> list[StepEntry]:
    """The checkpoints the agent saved during this step, oldest first: notes kept on the way, not an answer
    (friction62b 3: one was shown under "Answer" on a step never answered)."""
    return [entry for entry in node.recorded if entry.kind == "checkpoint"]


def checkpoints_words(saved: list[StepEntry]) -> str:
    """The checkpoint card's title: "Checkpoint saved during this step", "2 checkpoints saved during this step"."""
    if len(saved) == 1:
        return "Checkpoint saved during this step"
    return f"{len(saved)} checkpoints saved during this step"


# The checkpoint's own page: the same step, from the checkpoint on (where it resumes or went on from), named as
# such, not as a next step (friction62b 3).
AFTER_CHECKPOINT = "This step from the checkpoint on"


def redo_answers(node: NodeDetail, named: list[NextStep]) -> dict[str, StepEntry]:
    """The answers recorded at a node that started a redo branch, by the node they led to: the redo card shows
    each with its branch, the Answers card does not (the graph draws it as that branch's own card)."""
    redos = {step.entry.node_id for step in named if step.redo}
    return {entry.child_id: entry for entry in node.recorded if entry.child_id in redos}


def _and(numbers: list[int]) -> str:
    return listing.joined([str(n) for n in numbers])


def _node_titles(run: Run, nodes: list[Node]) -> dict[int, str]:
    """The pending step's title at each node as the agent saw it ('Complete' at a branch's end)."""
    seen = step_text.as_seen(compiled_workflow(run.pinned_id), [n.pk for n in nodes if not n.is_complete])
    return {
        n.pk: "Complete"
        if n.is_complete
        else (seen[n.pk].title if n.pk in seen else _step_text(run, n.pending_step_id).title)
        for n in nodes
    }


def _step_number(tree: branches.RunBranches, node: Node) -> int | None:
    if node.is_complete or node.pk not in tree.nodes:
        return None
    return tree.steps_taken(node.pk) + 1


def recorded_with_branches(node: NodeDetail, named: list[NextStep] | None = None) -> list[tuple[StepEntry, str | None]]:
    """Each answer recorded at a node with the branches it went on as, where that tells them apart: at a fork
    point two answers to the same step differ by branch ("Answer on branch 3"; "on branches 1-2" where two went
    on along one, as the next steps and the graph name them: node_page); a node with one answer, or whose
    answers all went on as one branch, needs no label (None)."""
    words = {step.entry.node_id: step.on_words for step in named or [] if not step.redone}
    went_on_as = {
        entry.node_id: words.get(entry.node_id) or (f"branch {entry.branch}" if entry.branch else None)
        for entry in node.branches
    }
    # A redo's answer is said in its redo card (redo_answers), once.
    redos = {step.entry.node_id for step in named or [] if step.redo}
    # A checkpoint is not an answer: it has its own card (checkpoints_here).
    recorded = [entry for entry in node.recorded if entry.child_id not in redos and entry.kind != "checkpoint"]
    labels = [went_on_as.get(entry.child_id) if entry.child_id else None for entry in recorded]
    if len({label for label in labels if label is not None}) < 2:
        return [(entry, None) for entry in recorded]
    return list(zip(recorded, labels, strict=True))


def _ref(tree: branches.RunBranches, node: Node, titles: dict[int, str], places: dict[int, StepPlace]) -> NodeRef:
    return NodeRef(
        node_id=str(node.public_id),
        step_number=_step_number(tree, node),
        title=titles[node.pk],
        place=places.get(node.pk),
    )


def _branches(
    node: Node,
    children: list[Node],
    tree: branches.RunBranches,
    titles: dict[int, str],
    makers: dict[int, people.Maker],
    places: dict[int, StepPlace],
) -> list[BranchEntry]:
    """The children of `node`: each is a branch an agent can resume with its stateToken."""
    outputs = {o.child_id: o for o in Output.objects.filter(child__in=children)}
    checkpoints = {c.child_id: c for c in Checkpoint.objects.filter(child__in=children)}
    forked = forks.forked_children(node, [child.public_id for child in children if child.pk not in outputs])
    entries = []
    for child in children:
        output, checkpoint = outputs.get(child.pk), checkpoints.get(child.pk)
        fork = forked.get(child.public_id)
        notes = output.notes_markdown if output else (checkpoint.notes_markdown if checkpoint else "")
        notes = fork.reason if fork is not None else notes
        # Sibling answers to one step differ by when, by whom and what they said: each says its branch and
        # its verdict, beside its time, author and first words.
        said = (
            outcomes.verdict(
                [a for a in output.artifacts if isinstance(a, dict)], [(output.step_title, output.notes_markdown)]
            )
            if output is not None and isinstance(output.artifacts, list)
            else None
        )
        entries.append(
            BranchEntry(
                node_id=str(child.public_id),
                state_token=state_token(child),
                via="fork" if fork is not None else ("checkpoint" if checkpoint else "step"),
                step_id=output.step_id if output else (node.pending_step_id or None),
                notes_preview=notes[:280] + ("…" if len(notes) > 280 else ""),
                is_complete=child.is_complete,
                pending_step_id=child.pending_step_id or None,
                created_at=child.created_at,
                step_number=_step_number(tree, child),
                place=places.get(child.pk),
                title=titles[child.pk],
                by=makers.get(child.public_id, people.NOBODY).words,
                branch=tree.branch_of(child.pk).number if child.pk in tree.nodes else None,
                verdict=said.text if said is not None else None,
            )
        )
    # A redo's answer stands in its redo card, whole: only answers listed together need their first words.
    redone = {tree.public(pk) for pk in _redone_from(tree, node.pk)} if node.pk in tree.nodes else set()
    answers = {
        entry.node_id
        for entry, child in zip(entries, children, strict=True)
        if entry.via == "step" and child.public_id not in redone
    }
    if len(answers) < 2:  # nothing to tell apart: the notes are under "Recorded here" already
        return entries
    return [
        entry.model_copy(update={"answer_start": _first_words(entry.notes_preview)})
        if entry.node_id in answers
        else entry
        for entry in entries
    ]


def _first_words(notes: str, limit: int = 100) -> str:
    flat = " ".join(notes.split())
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


def _title_of(step: CompiledStep | None) -> str:
    """A compiled step's title as written (placeholders and all); empty for no step or no title."""
    return str((step.get("title") if step is not None else None) or "")
