"""A report as HTML: the dashboard's own partials (dashboard/_run.html, with its branch graph drawn for
paper by graph_figure.py instead of the dashboard's, the `markdown` filter over runs/dashboard/markdown.py's
sanitizer) inside a page of ours, templates/reports/report.html.

It is what the PDF is made from; nothing in it loads anything (no <link>, <script> or <img>), the
stylesheets are handed to WeasyPrint separately (pdf.py).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from django.template.loader import render_to_string

from exports.reports import branch_tree, graph_figure, note_budget
from exports.reports.data import Report
from exports.reports.limits import same_watch
from runs.contract.dashboard import CheckpointEntry, RunDetail, StepEntry

TEMPLATE = "reports/report.html"

# The dashboard's drawing of the branch graph (dashboard/_graph.html, its legend and script), replaced by
# the paper one (graph_figure.py). Agent text cannot forge it: the templates escape every `<` they are
# given, and notes go through the sanitizer, which drops comments.
_DRAWING = re.compile(r'<div class="graph-scroll" id="graph-(?P<run>[^"]+)".*?<!-- end of the branch graph -->', re.S)


def _for_paper(run: RunDetail) -> RunDetail:
    """The run as the PDF shows it: each step without its prompt (the workflow's text, not what the
    agent did) and without its artifacts as JSON (their content is in the run's tables). The dashboard
    partial skips both when they are empty, so the HTML is smaller and the PDF quicker to lay out.
    Nor the synthesis's notes as one document: print.css hides them (they are the steps' notes again),
    and they would only double what the PDF's budget counts (paper_budget.py)."""
    steps = same_watch(run.steps, map(_step_for_paper, run.steps))
    update: dict[str, object] = {"steps": steps}
    if run.synthesis and run.synthesis.get("notesMarkdown"):
        update["synthesis"] = {**run.synthesis, "notesMarkdown": ""}
    return run.model_copy(update=update)


def _notes_for_paper(notes: str) -> str:
    """A note as the PDF formats it: one whose tables would cost seconds to format, cut (note_budget.py)."""
    return note_budget.for_paper(notes) if notes and note_budget.is_heavy(notes) else notes


def _step_for_paper(step: StepEntry) -> StepEntry:
    return step.model_copy(
        update={"prompt": "", "artifacts": [], "notes_markdown": _notes_for_paper(step.notes_markdown)}
    )


def _note_for_paper(note: CheckpointEntry) -> CheckpointEntry:
    return note.model_copy(update={"notes_markdown": _notes_for_paper(note.notes_markdown)})


@dataclass(frozen=True)
class RunItem:
    detail: RunDetail
    tree: str  # the branch graph in words, beside the drawing (one line per branch)


def render(report: Report) -> str:
    context = {
        "report": report,
        "session": report.session,
        "detail": report.detail,
        "runs": [
            RunItem(_for_paper(run), "\n".join(branch_tree.lines(run, report.branches[run.run.run_id])))
            for run in report.runs
        ],
        "no_actions": (),  # the partial offers "Cancel run" for these statuses: none on paper
        "session_notes": same_watch(report.session_notes, map(_note_for_paper, report.session_notes)),
    }
    html = render_to_string(TEMPLATE, context)
    by_id = {run.run.run_id: run for run in report.runs}

    def drawing(match: re.Match[str]) -> str:
        run = by_id.get(match.group("run"))
        return graph_figure.figure(run) if run is not None else ""

    return _DRAWING.sub(drawing, html)
