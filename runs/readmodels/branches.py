"""Which branch a note, an artifact, a finding, a synthesis or a status belongs to, answered once for
the dashboard, the HTTP API, the MCP resources and the reports.

A run is a tree of nodes (a rewound agent forks it). Every leaf ends a branch, and a branch owns what
was recorded on the path from the run's root to its leaf:

- its notes: the step outputs and checkpoints whose child node is on that path, in path order;
- its artifacts: theirs, in the same order; the latest of each kind is the one that stands (as the
  synthesis marks it `final`);
- its findings, changed files and other artifacts: the tables (artifact_tables.py) of the standing ones;
- its synthesis: the one recorded for the completing node, when that node is on its path (only a
  branch that completed has one; another branch's is never its own);
- its status: complete (it reached the workflow's end), canceled (the run was canceled before it
  did), blocked (the last answer at its pending step was a refusal the agent must resend), else open.

Branches are numbered in the graph's lane order (runs/readmodels/graph.py: depth-first, oldest child
first; a branch is a lane), so "branch 2" is the same branch on the dashboard's drawing, in the API,
in the resources and in the reports.

Reading a whole run takes a fixed number of queries whatever its size (the dashboard's run page reads
it): the nodes, the step outputs, the checkpoints, the syntheses and the blocked answers, each once.
`read_many` reads several runs (a session's) in the same queries, without their records. Which step
each node stands at (`step_numbers`: a checkpoint or an operator fork is not a step) is numbered here
too, so every door says "step N" of the same thing. Paths are
followed in memory. How each branch ended, in words, is outcomes.py's; why a blocked branch is
blocked (the refused answer) is blocked.py's; both build on what is read here. `records_on_path`
is the same question for a single node, read up its path in SQL (O(depth)), for the synthesis a
completion records.
"""

from __future__ import annotations

from collections.abc import Container, Iterable
from dataclasses import dataclass, field
from datetime import datetime
from functools import cached_property
from typing import Any, Literal

from runs.contract.dashboard import ArtifactTables, Finding
from runs.models import Ack, AckOutcome, Checkpoint, Event, EventKind, Node, Output, Run, RunStatus, RunSynthesis
from runs.readmodels import artifact_tables, graph
from runs.readmodels.shapes import Synthesis
from workflows_app.engine.jsontypes import JsonObject

BranchStatus = Literal["complete", "open", "blocked", "canceled"]
STEP: Literal["step"] = "step"
CHECKPOINT: Literal["checkpoint"] = "checkpoint"


# --- the shape of the tree: pure, shared with whatever only has the drawn graph ----------------------


@dataclass(frozen=True)
class Lane[K]:
    """One branch as the graph draws it: its own nodes (from the first after the fork to its tip)."""

    number: int  # 1 for the run's first branch, then in lane order
    lane: int
    nodes: list[K]
    forked_from: K | None  # the node it grew from; None for a root (the run's first branch)

    @property
    def tip(self) -> K:
        return self.nodes[-1]


def lanes[K](placed: Iterable[tuple[K, K | None, int]]) -> list[Lane[K]]:
    """The branches of a laid-out tree: `placed` are (node, parent, lane) in the layout's drawing order
    (graph.lay_out: a lane's nodes come one after another, from its first to its tip)."""
    by_lane: dict[int, Lane[K]] = {}
    for node, parent, lane in placed:
        found = by_lane.get(lane)
        if found is None:
            by_lane[lane] = Lane(number=0, lane=lane, nodes=[node], forked_from=parent)
        else:
            found.nodes.append(node)
    return [
        Lane(number=number, lane=lane.lane, nodes=lane.nodes, forked_from=lane.forked_from)
        for number, lane in enumerate((by_lane[key] for key in sorted(by_lane)), start=1)
    ]


# --- which step a node stands at --------------------------------------------------------------------------


def step_numbers[K](placed: Iterable[tuple[K, K | None]], same_step: Container[K]) -> dict[K, int]:
    """The step of the workflow each node stands at, counted along its own path: the one rule every door
    numbers steps by (sentences, callouts, the graph's cards, the branch tabs, the node page, reports).

    The run's first node stands at step 1. A step taken leads to a node at the next number; a node in
    `same_step` (made by a checkpoint, or started by hand by an operator fork) stays at its parent's
    number: it waits at the same step. So step N is the Nth step of the workflow taken on that path, and
    a checkpoint never moves the count. `placed` lists every node with its parent, a parent before its
    children (the graph's layout order, or oldest first); a completed node's number is one past the last
    step taken (it waits at none: the pages say "after step N - 1")."""
    numbers: dict[K, int] = {}
    for node, parent in placed:
        before = numbers.get(parent) if parent is not None else None
        if before is None:
            numbers[node] = 1
        else:
            numbers[node] = before if node in same_step else before + 1
    return numbers


# --- what a path holds ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class PathRecord:
    """A step output or a checkpoint, placed where it happened on a path."""

    position: int  # the depth of the node it led to (1 for the first node after the root)
    kind: Literal["step", "checkpoint"]
    step_id: str  # the step it was recorded for (a checkpoint's: its node's pending step)
    record: Output | Checkpoint

    @property
    def notes_markdown(self) -> str:
        return self.record.notes_markdown

    @property
    def artifacts(self) -> list[Any]:
        return list(self.record.artifacts or [])

    def sort_key(self) -> tuple[int, int, datetime, int]:
        # A step output before a checkpoint at the same place (never both: a node is made by one).
        return (self.position, 0 if self.kind == STEP else 1, self.record.created_at, self.record.pk)


def last_of_each_kind(kinds: list[str]) -> set[int]:
    """The positions, in a path's artifacts (given by their kinds, in path order), of those that stand:
    the latest of each kind."""
    return set({kind: index for index, kind in enumerate(kinds)}.values())


def standing(records: Iterable[PathRecord]) -> list[tuple[str, JsonObject]]:
    """The artifacts that stand on a path: the latest of each kind, as (step id, artifact), in path order."""
    every = [(r.step_id, a) for r in records for a in r.artifacts if isinstance(a, dict)]
    kept = last_of_each_kind([str(artifact.get("kind")) for _, artifact in every])
    return [item for index, item in enumerate(every) if index in kept]


# The nodes from `node` up to the run's root, with their distance from `node`. Bounded by the node's
# depth, so a damaged parent chain cannot loop forever.
_PATH = """
WITH RECURSIVE path(id, parent_id, hops) AS (
    SELECT id, parent_id, 0 FROM {node} WHERE id = %s
    UNION ALL
    SELECT n.id, n.parent_id, p.hops + 1 FROM {node} n JOIN path p ON n.id = p.parent_id
    WHERE p.hops < %s
)
"""
_OUTPUTS = _PATH + "SELECT o.*, p.hops AS path_hops FROM {output} o JOIN path p ON o.child_id = p.id"
_CHECKPOINTS = (
    _PATH + "SELECT c.*, p.hops AS path_hops, cn.pending_step_id AS path_step_id "
    "FROM {checkpoint} c JOIN path p ON c.child_id = p.id LEFT JOIN {node} cn ON cn.id = c.node_id"
)


def records_on_path(node: Node) -> list[PathRecord]:
    """What was recorded on the path from the run's root to `node`, in path order: one recursive query
    per table, O(depth) (the whole run need not be read)."""
    tables = {"node": Node._meta.db_table, "output": Output._meta.db_table, "checkpoint": Checkpoint._meta.db_table}
    params = [node.pk, node.depth + 1]
    found = [
        PathRecord(node.depth - getattr(o, "path_hops"), STEP, o.step_id, o)  # noqa: B009 - a raw query's column
        for o in Output.objects.raw(_OUTPUTS.format(**tables), params)
    ]
    found += [
        PathRecord(
            node.depth - getattr(c, "path_hops"),  # noqa: B009 - as above
            CHECKPOINT,
            getattr(c, "path_step_id") or "",  # noqa: B009 - as above
            c,
        )
        for c in Checkpoint.objects.raw(_CHECKPOINTS.format(**tables), params)
    ]
    return sorted(found, key=PathRecord.sort_key)


# --- a whole run ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class NodeRow:
    pk: int
    public_id: int
    parent_id: int | None
    step_id: str  # its pending step ("" once complete)
    is_complete: bool
    created_at: datetime


@dataclass(frozen=True)
class Branch:
    number: int  # as the graph's lanes are numbered: 1 for the run's first branch
    lane: int
    nodes: list[int]  # its own nodes (pks), from the first after the fork to its tip
    forked_from: int | None  # the node (pk) it grew from; None for the run's first branch
    status: BranchStatus
    is_newest: bool  # its tip is the run's newest node: where the run most recently stands
    # When blocked: the refused answers (Ack pks, oldest first) that still stand at its pending step.
    refusals: tuple[int, ...] = ()

    @property
    def tip(self) -> int:
        return self.nodes[-1]


@dataclass(frozen=True)
class BranchView:
    """One branch as far as a node of it: what is recorded on the path there, and what stands."""

    branch: Branch
    end: int  # the node (pk) the view ends at: the branch's tip, unless an earlier node was asked for
    path: list[int]
    records: list[PathRecord]
    standing: list[tuple[str, JsonObject]]  # (step id, artifact): the agent's own JSON
    tables: ArtifactTables  # of the standing artifacts
    synthesis: Synthesis | None  # the synthesis of the completion on this path, if it has one

    @property
    def status(self) -> BranchStatus:
        return self.branch.status

    @property
    def findings(self) -> list[Finding]:
        return self.tables.findings


@dataclass(frozen=True)
class BranchOutcome:
    """How one branch ended (or stands), for telling a reader about the other branches of a run."""

    branch: Branch
    tip_public_id: int
    status: BranchStatus
    synthesis: Synthesis | None
    findings: list[Finding]


@dataclass
class RunBranches:
    run: Run
    nodes: dict[int, NodeRow]  # by pk, oldest first
    layout: graph.Layout
    branches: list[Branch]
    outputs: list[Output]  # every step output of the run, oldest first (empty unless records were read)
    checkpoints: list[Checkpoint]  # every checkpoint of the run, oldest first (likewise)
    syntheses: dict[int, Synthesis]  # by completing node (pk), as recorded
    made_by_checkpoint: set[int] = field(default_factory=set)  # nodes (pks) a checkpoint made, not a step
    started_by_hand: set[int] = field(default_factory=set)  # nodes (pks) an operator fork made, not a step
    refused_at: dict[int, datetime] = field(default_factory=dict)  # refused answers (Ack pk) and when
    _lane_of: dict[int, int] = field(default_factory=dict)

    @property
    def newest(self) -> int | None:
        """The run's newest node (pk): where it most recently stands."""
        return next(reversed(self.nodes)) if self.nodes else None

    @cached_property
    def parents(self) -> dict[int, int | None]:
        return {pk: row.parent_id for pk, row in self.nodes.items()}

    def public(self, pk: int) -> int:
        return self.nodes[pk].public_id

    def by_public_id(self, public_id: int) -> int | None:
        return next((pk for pk, row in self.nodes.items() if row.public_id == public_id), None)

    def branch_of(self, pk: int) -> Branch:
        """The branch a node is on: the lane the graph draws it in."""
        return self.branches[self._lane_of[pk]]

    def path(self, pk: int) -> list[int]:
        return graph.path_to(pk, self.parents)

    def records(self, on_path: list[int]) -> list[PathRecord]:
        """The step outputs and checkpoints recorded on a path (needs the records read), in path order."""
        position = {pk: index for index, pk in enumerate(on_path)}
        found = [PathRecord(position[o.child_id], STEP, o.step_id, o) for o in self.outputs if o.child_id in position]
        found += [
            PathRecord(position[c.child_id], CHECKPOINT, self.nodes[c.node_id].step_id, c)
            for c in self.checkpoints
            if c.child_id in position and c.node_id in self.nodes
        ]
        return sorted(found, key=PathRecord.sort_key)

    @cached_property
    def step_numbers(self) -> dict[int, int]:
        """The step each node (pk) stands at: `step_numbers` (the one rule), for the whole run at once."""
        same_step = self.made_by_checkpoint | self.started_by_hand
        return step_numbers(((p.node_id, p.parent_id) for p in self.layout.nodes), same_step)

    def step_number(self, pk: int) -> int:
        """The step node `pk` stands at (its pending step is step N of its branch; see `step_numbers`)."""
        return self.step_numbers[pk]

    def shown_at(self, pk: int) -> datetime:
        """When node `pk`'s step was given to the agent: the node's moment, or, for a node a checkpoint made (the
        same step still pending), the moment of the node where that step was first given. A step's "took" runs
        from here to its answer, never from a checkpoint saved on the way (friction62a false 2, 62b 11: "took
        7 h" counted from a 3:04 PM checkpoint for a step given at 12:34 PM)."""
        while pk in self.made_by_checkpoint:
            parent = self.nodes[pk].parent_id
            if parent is None or parent not in self.nodes:
                break
            pk = parent
        return self.nodes[pk].created_at

    def steps_taken(self, pk: int) -> int:
        """How many steps were acknowledged on the path to node `pk` (checkpoints and operator forks are
        not steps)."""
        return self.step_number(pk) - 1

    def synthesis_on(self, on_path: list[int]) -> Synthesis | None:
        """The synthesis recorded for the completion on this path: none unless the path completed."""
        done = [pk for pk in on_path if pk in self.syntheses]
        return self.syntheses[done[-1]] if done else None

    def synthesis_of(self, pk: int) -> Synthesis | None:
        """The synthesis of the branch as far as node `pk`: none unless the path to it completed."""
        return self.synthesis_on(self.path(pk))

    def view(self, end: int | None = None) -> BranchView | None:
        """The branch ending at `end` (a node's pk; the newest node without one) as far as `end`."""
        end = self.newest if end is None else end
        if end is None:
            return None
        on_path = self.path(end)
        records = self.records(on_path)
        kept = standing(records)
        return BranchView(
            branch=self.branch_of(end),
            end=end,
            path=on_path,
            records=records,
            standing=kept,
            tables=artifact_tables.tables(kept),
            synthesis=self.synthesis_on(on_path),
        )

    def outcomes(self) -> list[BranchOutcome]:
        """Every branch's outcome (status, synthesis, standing findings), in branch order: what one
        branch's page can say about the others. Reads the run's records (load with records=True)."""
        outcomes = []
        for branch in self.branches:
            seen = self.view(branch.tip)
            assert seen is not None  # a branch has a tip
            outcomes.append(
                BranchOutcome(
                    branch=branch,
                    tip_public_id=self.public(branch.tip),
                    status=branch.status,
                    synthesis=seen.synthesis,
                    findings=seen.findings,
                )
            )
        return outcomes

    def fork_points(self) -> int:
        """How many nodes have more than one child (each is where the run forked)."""
        children: dict[int, int] = {}
        for row in self.nodes.values():
            if row.parent_id is not None:
                children[row.parent_id] = children.get(row.parent_id, 0) + 1
        return sum(1 for count in children.values() if count > 1)


def read(run: Run, *, records: bool = True) -> RunBranches:
    """The branches of `run`. With `records`, every step output and checkpoint is read too (one query
    each), for the notes and artifacts of any branch; without, only what the statuses need."""
    outputs: list[Output] = []
    checkpoints: list[Checkpoint] = []
    if records:
        outputs = list(Output.objects.filter(node__run=run).order_by("created_at", "pk"))
        checkpoints = list(Checkpoint.objects.filter(node__run=run).order_by("created_at", "pk"))
        return read_many([run], outputs=outputs, checkpoints=checkpoints)[run.pk]
    return read_many([run])[run.pk]


def read_many(
    runs: list[Run], *, outputs: list[Output] | None = None, checkpoints: list[Checkpoint] | None = None
) -> dict[int, RunBranches]:
    """The branches of each of `runs` (by run pk), in five queries whatever their number or size: the
    nodes, the nodes a checkpoint made, those an operator fork started, the refused answers and the
    syntheses. Records are not read
    (`read` passes those of a single run)."""
    by_pk = {run.pk: run for run in runs}
    if not by_pk:
        return {}
    nodes: dict[int, dict[int, NodeRow]] = {pk: {} for pk in by_pk}
    for run_pk, pk, public, parent, step, complete, at in (
        Node.objects.filter(run__in=list(by_pk))
        .order_by("created_at", "pk")
        .values_list("run_id", "pk", "public_id", "parent_id", "pending_step_id", "is_complete", "created_at")
    ):
        nodes[run_pk][pk] = NodeRow(pk, public, parent, step or "", complete, at)
    if checkpoints is not None:
        made_by_checkpoint = {c.child_id for c in checkpoints if c.child_id is not None}
    else:
        made_by_checkpoint = set(
            Checkpoint.objects.filter(node__run__in=list(by_pk), child__isnull=False).values_list("child_id", flat=True)
        )
    started_by_hand = _started_by_hand(by_pk.values(), nodes)
    refusals: dict[int, list[tuple[datetime, int]]] = {}
    for ack_pk, node_pk, at in Ack.objects.filter(node__run__in=list(by_pk), outcome=AckOutcome.BLOCKED).values_list(
        "pk", "node_id", "created_at"
    ):
        refusals.setdefault(node_pk, []).append((at, ack_pk))
    # Every synthesis at once: a run has one per branch that completed, rarely more than a few.
    syntheses: dict[int, dict[int, Synthesis]] = {pk: {} for pk in by_pk}
    for run_pk, node_pk, synthesis in RunSynthesis.objects.filter(run__in=list(by_pk)).values_list(
        "run_id", "node_id", "synthesis"
    ):
        syntheses[run_pk][node_pk] = synthesis
    return {
        pk: _tree(
            run,
            nodes[pk],
            made_by_checkpoint,
            started_by_hand,
            refusals,
            syntheses[pk],
            outputs if outputs is not None else [],
            checkpoints if checkpoints is not None else [],
        )
        for pk, run in by_pk.items()
    }


def _started_by_hand(runs: Iterable[Run], nodes: dict[int, dict[int, NodeRow]]) -> set[int]:
    """The nodes (pks) an operator fork started (runs/execution/operator_fork.py): they wait at their
    parent's step. Read from the event log, one query for all the runs (few rows: forks are rare)."""
    runs = list(runs)
    by_public: dict[tuple[str, int | None], int] = {
        (run.public_id, row.public_id): row.pk for run in runs for row in nodes[run.pk].values()
    }
    found: set[int] = set()
    for data in Event.objects.filter(
        session_id__in={run.session_id for run in runs}, kind=EventKind.OPERATOR_FORKED
    ).values_list("data", flat=True):
        pk = by_public.get((str(data.get("runId")), _int(data.get("childNodeId"))))
        if pk is not None:
            found.add(pk)
    return found


def _int(value: Any) -> int | None:
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


def _tree(
    run: Run,
    nodes: dict[int, NodeRow],
    made_by_checkpoint: set[int],
    started_by_hand: set[int],
    refusals: dict[int, list[tuple[datetime, int]]],
    syntheses: dict[int, Synthesis],
    outputs: list[Output],
    checkpoints: list[Checkpoint],
) -> RunBranches:
    layout = graph.lay_out((pk, row.parent_id) for pk, row in nodes.items())
    newest = next(reversed(nodes)) if nodes else None
    statuses = _Statuses(run, nodes, made_by_checkpoint, refusals)
    branches = []
    for lane in lanes((p.node_id, p.parent_id, p.lane) for p in layout.nodes):
        status, standing_refusals = statuses.of(lane.tip)
        branches.append(
            Branch(
                number=lane.number,
                lane=lane.lane,
                nodes=lane.nodes,
                forked_from=lane.forked_from,
                status=status,
                is_newest=lane.tip == newest,
                refusals=standing_refusals,
            )
        )
    lane_index = {branch.lane: index for index, branch in enumerate(branches)}
    return RunBranches(
        run=run,
        nodes=nodes,
        layout=layout,
        branches=branches,
        outputs=outputs,
        checkpoints=checkpoints,
        syntheses=syntheses,
        made_by_checkpoint={pk for pk in made_by_checkpoint if pk in nodes},
        started_by_hand={pk for pk in started_by_hand if pk in nodes},
        refused_at={ack: at for pk in nodes for at, ack in refusals.get(pk, [])},
        _lane_of={p.node_id: lane_index[p.lane] for p in layout.nodes},
    )


class _Statuses:
    """A branch's status from its tip: see the module's docstring."""

    def __init__(
        self,
        run: Run,
        nodes: dict[int, NodeRow],
        made_by_checkpoint: set[int],
        refusals: dict[int, list[tuple[datetime, int]]],
    ) -> None:
        self.run = run
        self.nodes = nodes
        self.made_by_checkpoint = made_by_checkpoint
        self.refusals = refusals
        # The newest child each node's step led to (a checkpoint's child is not a step taken).
        self.stepped_at: dict[int, datetime] = {}
        for row in nodes.values():
            if row.parent_id is not None and row.pk not in made_by_checkpoint:
                previous = self.stepped_at.get(row.parent_id)
                self.stepped_at[row.parent_id] = row.created_at if previous is None else max(previous, row.created_at)

    def of(self, tip: int) -> tuple[BranchStatus, tuple[int, ...]]:
        """The branch's status, and (when blocked) the refused answers that still stand, oldest first."""
        if self.nodes[tip].is_complete:
            return "complete", ()
        if self.run.status == RunStatus.CANCELED:
            return "canceled", ()
        # The tip's pending step is the one of the nodes it was checkpointed from: an answer refused
        # there, and not followed by a step taken from there, still stands.
        chain = [tip]
        while chain[-1] in self.made_by_checkpoint:
            parent = self.nodes[chain[-1]].parent_id
            if parent is None or parent not in self.nodes or parent in chain:  # a damaged store
                break
            chain.append(parent)
        refused = sorted(refusal for pk in chain for refusal in self.refusals.get(pk, []))
        if not refused:
            return "open", ()
        stepped = [self.stepped_at[pk] for pk in chain if pk in self.stepped_at]
        last_step = max(stepped) if stepped else None
        standing = tuple(ack for at, ack in refused if last_step is None or at > last_step)
        return ("blocked", standing) if standing else ("open", ())
