"""The branch graph of a run as a figure of the PDF: runs/readmodels/graph_drawing.py's paper drawing
(top to bottom, long straight stretches collapsed, styled in itself, no script, nothing loaded), with a
caption that says how to read it. It draws the graph as the run page tells it (graph_story.py): a step
answered again after a rewind is the new branch's first card, a checkpoint a tag on its step's card."""

from __future__ import annotations

from django.utils.html import format_html
from django.utils.safestring import SafeString, mark_safe

from runs.contract.dashboard import RunDetail
from runs.readmodels import graph_drawing, graph_story

INTRO = (
    "One card per step, top to bottom; a column per branch; each card says where its step sits in the "
    "workflow's outline, as the dashboard does (“step 2 of 3, round 2 of 3”)."
)
# What each mark of the drawing means, as the caption says it (only the marks the drawing holds).
MARKS = {
    "lane": "A “Branch n” tag marks the first step of each branch (branch 1 starts at the run's first step).",
    "checkpoint": "A dashed card was made by a checkpoint (it stays at its step).",
    "checkpoint-mark": "A “checkpoint” tag: the agent saved a checkpoint during that step.",
    "again": f"A “{graph_drawing.AGAIN_WORDS}” tag: the branch's first step, {graph_drawing.AGAIN_PHRASE} (the "
    "steps above it are shared).",
    "by-hand": "A dotted card started a branch by hand (an operator fork).",
    "complete": "A green card completed the run.",
    "blocked": "A red card is where a branch is blocked: the answer to its step was refused.",
    "loop": "↻ n: the n-th time round a loop.",
    "newest": "“newest” marks the newest node.",
}
GAP = "“⋯” stands for the nodes of one branch not drawn, with the steps they span."
TOO_BIG = "This run has too many branches to draw legibly on a page: they are listed under the run."


def figure(run: RunDetail) -> SafeString:
    """The run's branch graph as a <figure> (a note instead when it would not be legible)."""
    story = graph_story.told(run.graph)
    nodes, lanes = len(story.graph.nodes), story.graph.lanes
    title = f"Branch graph of {run.run.workflow_name}: {nodes} nodes in {lanes} branch{'es' if lanes != 1 else ''}"
    drawing = (
        graph_drawing.for_paper(
            story.graph,
            shown=None,
            title=title,
            again=story.again,
            checkpoints=lambda card: tuple(mark.node_id for mark in story.checkpoints.get(card, [])),
        )
        if story.graph.nodes
        else None
    )
    if drawing is None:
        return format_html('<p class="muted small graph-figure">{}</p>', TOO_BIG if run.graph.nodes else "")
    # The drawing escapes every text it holds (graph_drawing.py).
    return format_html(
        '<figure class="graph-figure">{}<figcaption class="muted small">{}</figcaption></figure>',
        mark_safe(drawing),
        caption(story, drawing),
    )


def caption(story: graph_story.Told, drawing: str) -> str:
    """How to read the drawing: only the marks it holds."""
    legend = graph_drawing.legend(story.graph, shown=None, checkpoints=bool(story.checkpoints), again=story.again)
    marks = [MARKS[entry.key] for entry in legend if entry.key in MARKS]
    return " ".join([INTRO, *marks, *([GAP] if 'class="gap"' in drawing else [])])
