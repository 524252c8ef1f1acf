"""A report as HTML, what the PDF is made from: templates/reports/report.html, in the Markdown report's
order (a summary of every branch first, then each run's branch graph, every branch with its own steps
and tables, the timeline, and the appendix of full ids), with the dashboard's `markdown` filter (its
sanitizer) over the agent's notes.

The branch graph as a picture is its own section, templates/reports/_branch_graph.html: the paper drawing
(graph_figure.py) with the branches in words beside it.

Nothing in it loads anything (no <link>, <script> or <img>); the stylesheets are handed to WeasyPrint
separately (pdf.py).
"""

from __future__ import annotations

from dataclasses import dataclass

from django.template.loader import render_to_string
from django.utils.safestring import SafeString

from exports.reports import branch_tree, graph_figure, note_budget, places, wording
from exports.reports.branch_sections import BranchSection, Confirmation
from exports.reports.data import Report
from exports.reports.limits import Checked, same_watch
from runs.contract.dashboard import CheckpointEntry, RunDetail, StepEntry
from runs.readmodels import people
from runs.readmodels.checkpoints import on_their_steps

TEMPLATE = "reports/report.html"


def _for_paper(run: RunDetail) -> RunDetail:
    """The run as the PDF's graph section reads it: its steps (the newest branch's) and synthesis are
    not shown from here (every branch's are, from branch_sections.py), so they are left out."""
    return run.model_copy(update={"steps": [], "synthesis": None})


def _notes_for_paper(notes: str) -> str:
    """A note as the PDF formats it: one whose tables would cost seconds to format, cut (note_budget.py)."""
    return note_budget.for_paper(notes) if notes and note_budget.is_heavy(notes) else notes


def _step_for_paper(step: StepEntry) -> StepEntry:
    """A step as the PDF shows it: without its prompt (the workflow's text, not what the agent did) nor
    its artifacts as JSON (their content is in the branch's tables; their kinds are named)."""
    return step.model_copy(
        update={"prompt": "", "artifacts": [], "notes_markdown": _notes_for_paper(step.notes_markdown)}
    )


def _note_for_paper(note: CheckpointEntry) -> CheckpointEntry:
    return note.model_copy(update={"notes_markdown": _notes_for_paper(note.notes_markdown)})


@dataclass(frozen=True)
class StepItem:
    number: int  # the step it was recorded at, counted along the branch (runs.readmodels.branches.step_numbers)
    where: str  # the same as the dashboard says it, by the workflow's outline: "step 2 of 3, round 2"
    step: StepEntry
    confirmation: str  # who confirmed, when the step asked for a confirmation ("" otherwise)
    kinds: list[str]  # of the artifacts recorded with it
    took: str
    # The checkpoints saved while the step was pending: marks after its answer, as the run page lists them
    # (runs/readmodels/checkpoints.py: on_their_steps), not steps of their own.
    checkpoints: tuple[StepItem, ...] = ()

    @property
    def title(self) -> str:
        return wording.step_title(self.step)

    @property
    def heading(self) -> str:
        """ "Step 2 of 8": opens the step's heading, as on the dashboard."""
        return self.where[:1].upper() + self.where[1:]


@dataclass(frozen=True)
class BranchItem:
    section: BranchSection
    label: str  # "Branch 2 (newest, open)"
    outcome: str
    severities: str
    open_items: int  # gaps and known limitations
    steps: list[StepItem]
    why_blocked: str  # a blocked branch's reason (wording.why_blocked); empty otherwise
    summary_heading: str  # "Summary", or "Summary of branch 2" once the run has a second (wording.summary_heading)

    @property
    def pending_at(self) -> str:
        """Where an unfinished branch waits, as the dashboard says it: "step 3 of 5"."""
        pending = self.section.pending
        return places.words(pending.place, pending.step_number) if pending is not None else ""


@dataclass(frozen=True)
class TimelineRow:
    recorded: str
    took: str
    where: str  # "Branch 2, step 3 of 5"
    title: str
    confirmation: str


@dataclass(frozen=True)
class RunItem:
    detail: RunDetail
    short_id: str
    figure: SafeString  # the branch graph as a picture (graph_figure.py)
    tree: str  # the branch graph in words (one line per branch), beside the picture
    branches: list[BranchItem]  # finished first (branch_sections.py)
    timeline: list[TimelineRow]
    conclusion: str  # the run in a sentence or a few (wording.conclusion)

    @property
    def timeline_text(self) -> str:
        """The timeline as aligned lines of text: the PDF lays out 200 lines of text in a tenth of the
        time a table of 200 rows takes (bench/reports.py)."""
        where = max((len(row.where) for row in self.timeline), default=0)
        took = max((len(row.took) for row in self.timeline), default=0)
        return "\n".join(
            f"{row.recorded}  {row.took:>{took}}  {row.where:<{where}}  {row.title}"
            + (f" · confirmation: {row.confirmation}" if row.confirmation else "")
            for row in self.timeline
        )


def _branch_item(branch: BranchSection, asked: dict[str, Confirmation], *, branched: bool) -> BranchItem:
    def item(step: StepEntry, checkpoints: tuple[StepItem, ...] = ()) -> StepItem:
        return StepItem(
            step.step_number,
            places.words(step.place, step.step_number),
            _step_for_paper(step),
            _confirmation(step, asked),
            wording.artifact_kinds(step),
            wording.seconds(step.seconds),
            checkpoints,
        )

    items = (
        item(listed.step, tuple(item(saved) for saved in listed.checkpoints)) for listed in on_their_steps(branch.steps)
    )
    # Formatting stops between two steps when the report's bounds are reached (produce.watched).
    steps = Checked(items, branch.steps.watch) if isinstance(branch.steps, Checked) else list(items)
    return BranchItem(
        section=branch,
        label=wording.branch_label(branch),
        outcome=wording.outcome(branch),
        severities=wording.severities(branch),
        open_items=wording.open_items(branch),
        steps=steps,
        why_blocked=wording.why_blocked(branch.blocked) + "." if branch.blocked is not None else "",
        summary_heading=wording.summary_heading(branch, branched=branched),
    )


def _confirmation(step: StepEntry, asked: dict[str, Confirmation]) -> str:
    confirmed = asked.get(step.node_id) if step.kind == "step" else None
    return wording.CONFIRMED_BY[confirmed] if confirmed else ""


def _timeline(branches: list[BranchItem]) -> list[TimelineRow]:
    """Every step and checkpoint recorded, in the order they were recorded (a checkpoint by its own time)."""
    entries = sorted(
        (
            (each.step.recorded_at, branch.section.number, each)
            for branch in branches
            for item in branch.steps
            for each in (item, *item.checkpoints)
        ),
        key=lambda entry: (entry[0], entry[1], entry[2].number),
    )
    return [
        TimelineRow(
            recorded=wording.stamp(item.step.recorded_at) or "",
            took=item.took,
            where=f"Branch {number}, {'during ' if item.step.kind == 'checkpoint' else ''}{item.where}",
            title=wording.step_title(item.step),
            confirmation=item.confirmation,
        )
        for _, number, item in entries
    ]


def _run_item(report: Report, run: RunDetail) -> RunItem:
    run_id = run.run.run_id
    ids = report.ids
    branches = [
        _branch_item(branch, report.confirmations[run_id], branched=run.run.branched)
        for branch in report.sections[run_id]
    ]
    return RunItem(
        detail=_for_paper(run),
        short_id=ids.short(run_id),
        figure=graph_figure.figure(run),
        tree="\n".join(branch_tree.lines(run, report.branches[run_id])),
        branches=branches,
        timeline=_timeline(branches),
        conclusion=wording.conclusion(run.run.workflow_name or run.run.workflow_id, report.sections[run_id]),
    )


def render(report: Report) -> str:
    ids = report.ids
    context = {
        "report": report,
        "session": report.session,
        "session_short": ids.short(report.session.session_id),
        "run_short": ids.short(report.run_id),
        "detail": report.detail,
        "people_line": people.people_line(report.detail.people),
        "runs": [_run_item(report, run) for run in report.runs],
        "ids": ids.appendix(),
        "appendix_title": wording.APPENDIX,
        "ids_note": wording.IDS_NOTE,
        "gaps_intro": wording.GAPS_INTRO,
        "short": {run.run_id: ids.short(run.run_id) for run in report.detail.runs},
        "session_notes": same_watch(report.session_notes, map(_note_for_paper, report.session_notes)),
    }
    return render_to_string(TEMPLATE, context)
