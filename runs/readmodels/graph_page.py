"""A run's branch graph as its page shows it, laid out here so that the template only prints it: the
drawing (graph_drawing.for_screen, every node a link), its legend, and a link per branch (branches.py's
numbering: the graph's lanes) saying where its tip stands and the step it forked at.

The door gives the two URLs it routes (the run's page, and a node's page with NODE in place of the id);
everything else comes from the run's detail.
"""

from __future__ import annotations

from dataclasses import dataclass

from runs.contract.dashboard import GraphNode, RunDetail
from runs.readmodels import branches, graph, graph_drawing


@dataclass(frozen=True, slots=True)
class BranchLink:
    tip: str
    lane: int
    title: str
    where: str  # where its tip stands, as the graph's cards count steps: "step 4, newest"
    forked_at: int | None  # the step of the node it forked from (None for the run's first branch)
    href: str
    shown: bool
    is_newest: bool


@dataclass(frozen=True, slots=True)
class GraphPage:
    drawing: str  # SVG; graph_drawing escapes every text it holds
    legend: list[graph_drawing.LegendEntry]
    branches: list[BranchLink]


def graph_page(detail: RunDetail, run_url: str, node_url: str) -> GraphPage:
    """The graph of `detail`'s run; `node_url` has NODE where a node's id goes."""
    on_path = (
        set(graph.path_to(detail.branch_tip, {n.node_id: n.parent_id for n in detail.graph.nodes}))
        if detail.branch_tip
        else set()
    )

    def href(node: GraphNode) -> str:
        # A leaf off the shown branch shows its branch; any other node opens its page.
        if node.is_leaf and node.node_id not in on_path:
            return f"{run_url}?tip={node.node_id}"
        return node_url.replace("NODE", node.node_id)

    nodes, lanes = len(detail.graph.nodes), detail.graph.lanes
    title = (
        f"Branch graph of {detail.run.workflow_name}: {nodes} node{'' if nodes == 1 else 's'} in {lanes} "
        f"branch{'' if lanes == 1 else 'es'}, one column per step, one row per branch"
    )
    states = tip_states(detail)
    return GraphPage(
        drawing=graph_drawing.for_screen(detail.graph, shown=detail.branch_tip, href=href, title=title, states=states),
        legend=graph_drawing.legend(detail.graph, shown=detail.branch_tip, states=states),
        branches=branch_links(detail, run_url),
    )


# A panel a person may act on (AttentionPanel.kind) says more than the branch's status: it wins.
PANEL_STATES = {
    "stalled": "stalled",
    "waiting_for_user": "waiting",
    "canceled": "canceled",
    "left_behind": "left-behind",
}
STATUS_STATES = {"blocked": "blocked", "complete": "done", "canceled": "canceled"}


def tip_states(detail: RunDetail) -> dict[str, str]:
    """Each branch tip's state (a key of graph_drawing.STATE_WORDS), from the branch outcomes and the
    panels the run page shows: one meaning, drawn where the branch ends."""
    states: dict[str, str] = {}
    for outcome in [*([detail.branch] if detail.branch is not None else []), *detail.other_branches]:
        state = STATUS_STATES.get(outcome.status)
        if state is None:
            state = "left-behind" if outcome.left_behind else "running"
        states[outcome.tip_node_id] = state
    for panel in detail.panels:
        if panel.node_id is not None and states.get(panel.node_id) != "blocked":
            states[panel.node_id] = PANEL_STATES[panel.kind]
    return states


def branch_links(detail: RunDetail, run_url: str) -> list[BranchLink]:
    """A link per branch (branches.py's numbering: the graph's lanes), to show it on the run's page."""
    placed = {node.node_id: node for node in detail.graph.nodes}
    links = []
    for lane in branches.lanes((node.node_id, node.parent_id, node.lane) for node in detail.graph.nodes):
        tip = placed[lane.tip]
        where = [graph_drawing.step_words(tip)] + (["blocked"] if tip.is_blocked else [])
        where += ["newest"] if tip.is_tip else []
        fork = placed.get(lane.forked_from) if lane.forked_from is not None else None
        links.append(
            BranchLink(
                tip=tip.node_id,
                lane=tip.lane,
                title=tip.title or tip.step_id or "Step",
                where=", ".join(where),
                forked_at=fork.step_number if fork is not None else None,
                href=f"{run_url}?tip={tip.node_id}",
                shown=tip.node_id == detail.branch_tip,
                is_newest=tip.is_tip,
            )
        )
    return links
