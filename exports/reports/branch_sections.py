"""Every branch of a run as a report lists it: finished branches first, then open ones, each with its
own steps, notes, tables, gaps, outcome and verdict.

Everything a branch owns comes from the one branch read model (runs.readmodels.branches: `read(run)`,
`RunBranches.view(tip)`, `outcomes()`), so a branch's synthesis, findings and changed files are never
another branch's. Branches share the steps before the point they forked at: the first branch listed
shows its steps from the start, and each one after it only the steps no branch before it showed,
with a line saying which branch shows the shared ones. A step is named by its place in the workflow's
outline, as the dashboard names it (exports/reports/places.py: "step 2 of 3, round 2"); a checkpoint
is a mark after the answer to the step it was saved during, as the run page lists it
(runs/readmodels/checkpoints.py: on_their_steps), and a step recorded without notes is not listed.

The timeline's confirmations come from the workflow: a step whose `requireConfirmation` held when the
agent was given it (the engine's view of the node, as the agent saw it) asked for the user's explicit
confirmation, which the agent writes in that step's notes; in a full-auto mode (the node's
preferences) the agent was told to decide as the user would instead (runs/execution/modes.py).
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from dataclasses import dataclass
from datetime import datetime
from typing import Literal

from exports.reports import branch_tree, places
from runs.contract.dashboard import ArtifactTables, BlockedStep, GapEntry, GraphNode, RunDetail, StepEntry
from runs.models import Node, Output
from runs.readmodels import blocked, outcomes, run_view, step_places
from runs.readmodels.artifact_tables import SEVERITIES
from runs.readmodels.branches import BranchOutcome, BranchView, PathRecord, RunBranches
from runs.store.pinned import compiled_workflow, steps_by_id
from workflows_app import engine

FINISHED = ("complete", "canceled")
GUIDED = "guided"
Confirmation = Literal["user", "agent"]


@dataclass(frozen=True)
class BranchSection:
    number: int  # as the dashboard's graph numbers it
    status: str  # complete, canceled, blocked, open
    is_newest: bool
    tip_id: str  # its tip node (public id)
    forked_from: str | None  # the node (public id) it forked from; None for the run's first branch
    forked_from_branch: int | None  # the number of the branch that node is on
    # Where it grew from, as the run page's list of branches says it (branch_tree.fork_words: "redoes Triage
    # (step 1 of 8), from branch 1"); "" for the run's first branch.
    forked: str
    path_steps: int  # how many steps and checkpoints are recorded on its path, from the start
    steps_taken: int  # how many of those are steps (checkpoints left out)
    shared_steps: int  # the first `shared_steps` of them are listed under branch `shared_with`
    shared_until: str  # the step the last of those was recorded at: "step 2 of 8" ("" when none is shared)
    shared_with: int | None
    steps: list[StepEntry]  # its own steps (numbered shared_steps + 1, ...)
    tables: ArtifactTables  # of the artifacts that stand on its path
    synthesis: dict[str, object] | None  # its own (a completed branch's), never another's
    verdict: outcomes.Verdict | None  # the dashboard's rule; the report shows its whole statement (`said`)
    gaps: list[GapEntry]  # user-only questions full auto went past, on its path
    limitations: list[str]  # known limitations stated in a standing coding handoff
    pending: GraphNode | None  # an unfinished branch's tip: the step it waits at
    last_activity: datetime
    blocked: BlockedStep | None = None  # why a blocked branch is held: the refusal that stands (blocked.py)

    @property
    def finished(self) -> bool:
        return self.status in FINISHED

    @property
    def severity_counts(self) -> list[tuple[str, int]]:
        counts: Counter[str] = Counter(f.severity for f in self.tables.findings)
        return [(severity, counts[severity]) for severity in SEVERITIES if counts[severity]]


def listing_order(outcomes: list[BranchOutcome]) -> list[BranchOutcome]:
    """Finished branches (complete, then canceled) first, then the open and blocked ones; by number."""
    return sorted(outcomes, key=lambda o: (o.status not in FINISHED, o.status != "complete", o.branch.number))


def _title(record: PathRecord) -> str:
    return (record.record.step_title if isinstance(record.record, Output) else "") or record.step_id


def _limitations(view: BranchView) -> list[str]:
    found: list[str] = []
    for _, artifact in view.standing:
        items = artifact.get("knownLimitations") if artifact.get("kind") == "wr.coding_handoff" else None
        if isinstance(items, list):
            found += [item.strip() for item in items if isinstance(item, str) and item.strip()]
    return found


def _place(drawn: dict[str, GraphNode], tree: RunBranches, node_pk: int) -> str:
    """Where a node's pending step sits, as its card on the dashboard's graph says it."""
    node = drawn.get(str(tree.public(node_pk))) if node_pk in tree.nodes else None
    return places.words(node.place if node is not None else None, tree.step_number(node_pk))


def sections(detail: RunDetail, tree: RunBranches) -> list[BranchSection]:
    """The run's branches in listing order. `tree` is read with its records (branches.read(run))."""
    drawn = {node.node_id: node for node in detail.graph.nodes}
    placed = step_places.of_run(tree.run)  # where each step sits in the outline, as the run page says it
    shown_by: dict[int, int] = {}  # child node pk of a record already listed -> the branch listing it
    made: list[BranchSection] = []
    refused = blocked.refusals(tree)
    forked = branch_tree.fork_words(detail)
    for outcome in listing_order(tree.outcomes()):
        branch = outcome.branch
        view = tree.view(branch.tip)
        assert view is not None  # a branch has a tip
        own = [record for record in view.records if record.record.child_id not in shown_by]
        shared = len(view.records) - len(own)
        shared_with = shown_by.get(view.records[shared - 1].record.child_id or 0) if shared else None
        for record in own:
            shown_by[record.record.child_id or 0] = branch.number
        path_ids = {str(tree.public(pk)) for pk in view.path}
        tip = drawn.get(str(outcome.tip_public_id))
        steps = run_view.branch_steps(tree.run, dataclasses.replace(view, records=own), tree, placed)
        made.append(
            BranchSection(
                number=branch.number,
                status=outcome.status,
                is_newest=branch.is_newest,
                tip_id=str(outcome.tip_public_id),
                forked_from=str(tree.public(branch.forked_from)) if branch.forked_from is not None else None,
                forked_from_branch=tree.branch_of(branch.forked_from).number
                if branch.forked_from is not None
                else None,
                forked=forked.get(branch.number, "") if branch.forked_from is not None else "",
                path_steps=len(view.records),
                steps_taken=sum(isinstance(record.record, Output) for record in view.records),
                shared_steps=shared,
                shared_until=_place(drawn, tree, view.records[shared - 1].record.node_id or 0) if shared else "",
                shared_with=shared_with,
                steps=steps,
                tables=view.tables,
                synthesis=dict(outcome.synthesis) if outcome.synthesis else None,
                verdict=outcomes.verdict(
                    [artifact for _, artifact in view.standing],
                    [(_title(record), record.notes_markdown) for record in view.records],
                ),
                gaps=[gap for gap in detail.gaps if gap.node_id in path_ids],
                limitations=_limitations(view),
                pending=tip if tip is not None and not tip.is_complete else None,
                last_activity=tree.nodes[branch.tip].created_at,
                blocked=(
                    blocked.as_entry(refused[branch.number], tip.step_number if tip is not None else None)
                    if outcome.status == "blocked" and branch.number in refused
                    else None
                ),
            )
        )
    return made


def confirmations(detail: RunDetail, tree: RunBranches) -> dict[str, Confirmation]:
    """The nodes (public ids) whose pending step asked for the user's confirmation, and who gave it:
    "user" (guided mode: the agent asked the user) or "agent" (a full-auto mode: it decided for them)."""
    asking = {step_id for step_id, step in steps_by_id(tree.run.pinned_id).items() if step.get("requireConfirmation")}
    candidates = [pk for pk, row in tree.nodes.items() if row.step_id in asking and not row.is_complete]
    if not candidates:
        return {}
    compiled = compiled_workflow(tree.run.pinned_id)
    found: dict[str, Confirmation] = {}
    for pk, state, preferences in Node.objects.filter(pk__in=candidates).values_list(
        "pk", "engine_state", "preferences"
    ):
        pending = engine.pending_view(compiled, state)
        if pending and pending.get("requireConfirmation"):
            autonomy = (preferences or {}).get("autonomy", GUIDED)
            found[str(tree.public(pk))] = "user" if autonomy == GUIDED else "agent"
    return found
