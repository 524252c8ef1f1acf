"""A run's branch graph as text: one line per branch, forks indented under the branch they grew from.

The dashboard draws the graph as SVG from runs.readmodels.graph's layout (a lane per branch); this says
the same branches in words, as runs.readmodels.branches reads them (numbered by lane, each with its
status), for the Markdown report and as the PDF's companion to the drawing:

    ● Branch 1: 6 steps, ends at "Complete" (complete)
    ├─ Branch 2: redoes Plan (step 2 of 6), from branch 1, 1 step, ends at "Review the area" (waiting
       at step 4 of 6)
    └─ Branch 3: started by hand at Review the area (step 4 of 6), from branch 1, 1 step, ends at "Record
       findings" (waiting at step 5 of 6, newest)

Where a branch grew from is said as the dashboard's list of branches says it (graph_page.fork_words over
graph_story's telling): a branch that answered a step again after a rewind forked after the last step both
share, the answered-again step being its own first; a checkpoint is no fork of its own.

A place is said as the dashboard's graph cards say it (exports/reports/places.py: "step 2 of 3, round
2", by the workflow's outline). A branch's steps are counted as every door counts them
(runs.readmodels.branches.step_numbers: a checkpoint or an operator fork is not a step): those taken from
the node it forked from (which stands at the step the branch took again) to its tip.

No node id is written: people read branches by number and steps by place; a report lists the node ids in
its appendix for developers (short_ids.py).

Titles come from the store (loop variables filled in from the agent's context), so they are flattened
to one line and shortened; the caller puts the lines in a code block.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from exports.reports import places
from runs.contract.dashboard import GraphNode, RunDetail
from runs.readmodels import graph_page, graph_story
from runs.readmodels.branches import BranchStatus, RunBranches, lanes

TITLE_CHARS = 60
_CONTROL = re.compile(r"[\x00-\x1f\x7f\u2028\u2029]+")


@dataclass
class Branch:
    number: int
    nodes: list[GraphNode]
    parent: GraphNode | None  # the node it forked from (None for the run's first branch)
    parent_branch: int | None  # the number of the branch that node is on
    status: BranchStatus
    forked: str = ""  # where it grew from, in the dashboard's words (fork_words); "" for the run's first branch
    children: list[Branch] = field(default_factory=list)


def fork_words(detail: RunDetail) -> dict[int, str]:
    """Where each branch but the first (by number) grew from, as the run page's list of branches says it:
    "redoes Plan (step 2 of 6), from branch 1" (graph_page.fork_words, over graph_story.told)."""
    story = graph_story.told(detail.graph)
    placed = {node.node_id: node for node in story.graph.nodes}
    return {
        lane.number: graph_page.fork_words(story, placed[lane.nodes[0]], named=True)
        for lane in lanes((node.node_id, node.parent_id, node.lane) for node in story.graph.nodes)
        if lane.number > 1
    }


def branches(detail: RunDetail, tree: RunBranches) -> list[Branch]:
    """The run's branches, each with the branches that forked from it; the roots (one per run, unless
    the store is damaged) in lane order. `tree` is the run's branches as `detail` was read from."""
    by_id = {node.node_id: node for node in detail.graph.nodes}

    def drawn(pk: int) -> GraphNode:
        return by_id[str(tree.public(pk))]

    forked = fork_words(detail)
    made: dict[int, Branch] = {}
    roots: list[Branch] = []
    for branch in tree.branches:
        parent = drawn(branch.forked_from) if branch.forked_from is not None else None
        grew_from = tree.branch_of(branch.forked_from).number if branch.forked_from is not None else None
        nodes = [drawn(pk) for pk in branch.nodes]
        made[branch.number] = Branch(
            branch.number, nodes, parent, grew_from, branch.status, forked.get(branch.number, "")
        )
        owner = made.get(grew_from) if grew_from is not None else None
        if owner is None:
            roots.append(made[branch.number])
        else:
            owner.children.append(made[branch.number])
    return roots


def one_line(text: str, limit: int = TITLE_CHARS) -> str:
    flat = " ".join(_CONTROL.sub(" ", str(text)).split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def describe(branch: Branch) -> str:
    last = branch.nodes[-1]
    marks: list[str] = []
    if branch.status != "open":
        marks.append(branch.status)
    if not last.is_complete:  # the step its tip waits at, as its card says it
        marks.append(f"waiting at {places.words(last.place, last.step_number)}")
    if any(node.is_tip for node in branch.nodes):
        marks.append("newest")
    where = f"{branch.forked}, " if branch.parent is not None and branch.forked else ""
    # The steps taken on the branch's own nodes: after those taken before it, up to its tip.
    low = branch.parent.step_number if branch.parent is not None else 1
    high = last.step_number - 1
    taken = high - low + 1
    steps = "no step yet" if taken < 1 else ("1 step" if taken == 1 else f"{taken} steps")
    title = one_line(last.title or last.step_id or "")
    ends = f'"{title}"' if title else places.words(last.place, last.step_number)
    text = f"Branch {branch.number}: {where}{steps}, ends at {ends}"
    return text + (f" ({', '.join(marks)})" if marks else "")


def lines(detail: RunDetail, tree: RunBranches) -> list[str]:
    """The tree, one line per branch (iterative: a run may hold thousands of forks)."""
    out: list[str] = []
    # (branch, the prefix for its own line, the prefix its children continue with)
    stack = [(root, "● ", "  ") for root in reversed(branches(detail, tree))]
    while stack:
        branch, prefix, inherited = stack.pop()
        out.append(prefix + describe(branch))
        kids = branch.children
        for index in range(len(kids) - 1, -1, -1):
            last = index == len(kids) - 1
            stack.append((kids[index], inherited + ("└─ " if last else "├─ "), inherited + ("   " if last else "│  ")))
    return out
