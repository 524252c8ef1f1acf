"""What a report shows, read through the dashboard's own read services (no second way to read the store).

A report covers a whole session, or one of its runs. Each run is read as the dashboard's run page reads
it (runs.readmodels.run_view.shown_run): its branch graph, the steps of the branch that ends at its
newest node with that branch's own artifact tables and synthesis, gaps, warnings; and its branches as
runs.readmodels.branches reads them (each one's status), for the branch graph in words.

One change from the dashboard, for determinism: statuses are the stored ones. The dashboard shows a
quiet in-progress run as "stalled", a judgement relative to the clock; a report of an unchanged store
must not depend on when it is made, so it says "in progress" and gives the last activity time instead.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from exports.reports.branch_sections import BranchSection, Confirmation, confirmations, sections
from exports.reports.short_ids import ShortIds
from runs.contract.dashboard import CheckpointEntry, RunDetail, RunSummary, SessionDetail, SessionSummary
from runs.models import Session
from runs.readmodels import clock, overview, run_view
from runs.readmodels.branches import RunBranches
from runs.readmodels.overview import STALLED, not_found

IN_PROGRESS = "in_progress"


@dataclass(frozen=True)
class Report:
    session: SessionSummary
    detail: SessionDetail
    runs: list[RunDetail]  # in the session's order (oldest first), or the one run asked for
    branches: dict[str, RunBranches]  # each run's branches, by run id
    run_id: str | None  # the run a run report is about; None for a session report
    session_notes: list[CheckpointEntry]  # checkpoints not tied to a run (notes-only sessions)
    stored: Session  # the session row, for recording the export
    sections: dict[str, list[BranchSection]]  # each run's branches as listed (finished first), by run id
    confirmations: dict[str, dict[str, Confirmation]]  # each run's nodes that asked for a confirmation
    ids: ShortIds  # every id the report names, shortened in the text and listed in full in its appendix

    @property
    def last_activity(self) -> datetime:
        """The moment the report is "as of": the session's own last activity, never the clock."""
        return self.session.last_activity

    @property
    def step_count(self) -> int:
        return sum(len(run.steps) for run in self.runs)


def stored_status[S: (SessionSummary, RunSummary)](summary: S) -> S:
    """The summary with its stored status ("stalled" is the dashboard's clock-relative view of
    "in progress": see the module's docstring)."""
    if summary.status == STALLED:
        return summary.model_copy(update={"status": IN_PROGRESS})
    return summary


def _stable_run(detail: RunDetail) -> RunDetail:
    return detail.model_copy(
        update={
            "run": stored_status(detail.run),
            "delegations": [stored_status(child) for child in detail.delegations],
        }
    )


def build_report(session_id: str, run_id: str | None = None, on_run: Callable[[], None] | None = None) -> Report:
    """The report of a session, or of its run `run_id`. Unknown ids raise WorkRailError (NOT_FOUND);
    `on_run` is called after each run is read (a progress bar)."""
    with clock.as_stored():  # the statuses and their words as stored, whatever the clock says
        return _report(session_id, run_id, on_run)


def _report(session_id: str, run_id: str | None, on_run: Callable[[], None] | None) -> Report:
    detail = overview.session_detail(session_id)
    session = stored_status(detail.session)
    run_ids = [run.run_id for run in detail.runs]
    if run_id is not None:
        if run_id not in run_ids:
            raise not_found(
                "run of this session",
                run_id,
                f"Pick one of the session's runs ({', '.join(run_ids[:10]) or 'it has none'}), or leave the run out "
                "for a report of the whole session.",
            )
        run_ids = [run_id]
    runs = []
    trees = {}
    listed = {}
    asked = {}
    ids = ShortIds()
    ids.add(session.session_id, "session")
    for one in run_ids:
        shown = run_view.shown_run(one)
        detail_of_run = _stable_run(shown.detail)
        runs.append(detail_of_run)
        trees[one] = shown.branches
        listed[one] = sections(detail_of_run, shown.branches)
        asked[one] = confirmations(detail_of_run, shown.branches)
        _name_ids(ids, detail_of_run, listed[one])
        if on_run is not None:
            on_run()
    return Report(
        session=session,
        detail=detail.model_copy(update={"session": session, "runs": [stored_status(r) for r in detail.runs]}),
        runs=runs,
        branches=trees,
        run_id=run_id,
        session_notes=[c for c in detail.checkpoints if c.run_id is None] if run_id is None else [],
        stored=overview.get_session(session.session_id),
        sections=listed,
        confirmations=asked,
        ids=ids,
    )


def _name_ids(ids: ShortIds, detail: RunDetail, listed: list[BranchSection]) -> None:
    """The ids a report names for a run: the run's, each branch's tip and the node it forked from."""
    name = detail.run.workflow_name or detail.run.workflow_id
    ids.add(detail.run.run_id, f"run of {name}")
    if detail.run.delegated_by:
        ids.add(detail.run.delegated_by, "the run that handed it out")
    for branch in sorted(listed, key=lambda b: b.number):
        ids.add(branch.tip_id, f"{name}: the last node of branch {branch.number}", in_text=False)
        if branch.forked_from is not None:
            ids.add(branch.forked_from, f"{name}: the node branch {branch.number} forked from", in_text=False)
    for warning in detail.warnings:
        ids.add(warning.node_id, f"{name}: a node a warning was recorded at", in_text=False)
    for child in detail.delegations:
        ids.add(child.run_id, f"run of {child.workflow_name} (handed out)")
