"""A report as HTML: the dashboard's own partials (dashboard/_run.html with its branch-graph SVG, the
`markdown` filter over runs/dashboard/markdown.py's sanitizer) inside a page of ours, templates/reports/report.html.

It is what the PDF is made from; nothing in it loads anything (no <link>, <script> or <img>), the
stylesheets are handed to WeasyPrint separately (pdf.py).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from django.template.loader import render_to_string

from exports.reports import branch_tree, note_budget
from exports.reports.data import Report
from exports.reports.limits import same_watch
from runs.contract.dashboard import CheckpointEntry, RunDetail, StepEntry

TEMPLATE = "reports/report.html"

# The branch graph's colours, inside the SVG itself: WeasyPrint draws an inline SVG on its own, without
# the page's stylesheet (the dashboard styles it from dashboard.css, which the CSP-bound page may not
# put in the SVG). The dashboard's light theme, with plain colours instead of custom properties.
GRAPH_STYLE = (
    "<style>"
    ".edge{fill:none;stroke:#b7bcc4;stroke-width:2}"
    ".edge.on-branch{stroke:#2458c6;stroke-width:2.5}"
    ".node{fill:#fff;stroke:#8a929e;stroke-width:2}"
    ".node.on-branch{fill:#2458c6;stroke:#2458c6}"
    ".node.complete{fill:#1b7f43;stroke:#1b7f43}"
    ".node.checkpoint{stroke-dasharray:2 2}"
    ".node.on-branch.checkpoint{fill:#6d3fc0;stroke:#6d3fc0;stroke-dasharray:none}"
    ".node-hit{fill:none;stroke:none}"
    ".tip-ring{fill:none;stroke:#9a5b00;stroke-width:2.5}"
    ".tip-label{fill:#9a5b00;font-size:11px;font-weight:700;font-family:sans-serif}"
    "</style>"
)
# The opening tag of the graph as dashboard/_graph.html writes it, and the drawing with its legend.
# Agent text cannot forge them: the templates escape every `<` they are given, and notes go through
# the sanitizer, which drops <svg>.
_GRAPH_OPENING = re.compile(r'(<svg class="run-graph" [^>]*>)')
_DRAWING = re.compile(
    r'<div class="graph-scroll" id="graph-(?P<run>[^"]+)".*?</svg>\s*</div>\s*<ul class="legend".*?</ul>', re.S
)
# Beyond this many steps (columns) the drawing, shrunk to the page's width, puts nodes less than 3 mm
# apart: it says nothing the list of branches under it does not, and it costs a tenth of the PDF's
# time (bench/reports.py).
MAX_DRAWN_COLUMNS = 60
TOO_LONG_TO_DRAW = (
    '<p class="muted small">This run is too long to draw legibly on a page ({depth} steps deep): '
    "its branches are listed under the run.</p>"
)


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
    depths = {run.run.run_id: run.graph.depth for run in report.runs}

    def drawing(match: re.Match[str]) -> str:
        depth = depths.get(match.group("run"), 0)
        if depth <= MAX_DRAWN_COLUMNS:
            return _GRAPH_OPENING.sub(lambda opening: opening.group(1) + GRAPH_STYLE, match.group(0))
        return TOO_LONG_TO_DRAW.format(depth=depth)

    return _DRAWING.sub(drawing, html)
