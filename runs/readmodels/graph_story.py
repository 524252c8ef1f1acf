"""A run's graph as the run page tells it: the one source of the drawing, the branch links under it and the
phone's branch list, so that they tell the story the steps list tells.

The store's tree has a node per state (its pending step); an answer leads from a node to its child. When an
agent rewinds and answers a node's step again, the new child is a sibling of the old one under that node
(the execution contract: an older stateToken answered again). Drawn node by node, that answered-again step
would sit above the fork, as if both branches shared it, while the new branch's steps list rightly lists it
as its own ("Redone after a rewind"). So here, before anything is drawn:

- the step a branch answered again is a card of that branch (`again`: a card that stands for the node whose
  step it answers, at that node's depth, in the new branch's lane), and the branch grows from the node
  before it: the last step both branches share (none when the rewind went back to the run's first step;
  the branch then starts beside the first card, at the start);
- a branch started by hand (an operator fork) is stored as a child of the node whose step it redoes, and waits
  at that step: drawn as that node's child, it stood under the step it redoes, as if both branches shared it
  (friction r60: "Branches 1-2" on the step branch 2 redoes). So it is drawn as an agent's redo is: beside the
  step it redoes (`redoes`), at that step's row, growing from the step before it (from the start, for the run's
  first step), and whatever grew from it a row up; a fork that continues its parent's branch (started from a
  branch's last node) stays as stored;
- a checkpoint is a mark on the card of the step it was saved at (`checkpoints`), not a card of its own: its
  node waits at the same step, so drawn as a card it read as the step twice. Its node stays reachable (the
  mark links its page: it can be resumed from), and whatever grew from it grows from that card. A checkpoint
  that starts a branch of its own (saved at an older node after a rewind) stays a card: it is that branch.

Pure: from a RunGraph (branches.py's lanes and numbering, unchanged) to another RunGraph and the ids its new
cards stand for.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from runs.contract.dashboard import GraphEdge, GraphNode, RunGraph

AGAIN_SEPARATOR = "-again-"


@dataclass(frozen=True, slots=True)
class Told:
    graph: RunGraph  # as the page tells it: a card per step answered (again), checkpoints folded into theirs
    again: dict[str, str]  # an answered-again card's id -> the node whose step it answers again
    checkpoints: dict[str, list[GraphNode]] = field(default_factory=dict)  # a card -> checkpoints saved at it
    card_of: dict[str, str] = field(default_factory=dict)  # a folded checkpoint's node -> the card it marks
    redoes: dict[str, str] = field(default_factory=dict)  # a branch's first card started by hand -> the card it redoes

    @property
    def redo_cards(self) -> frozenset[str]:
        """The cards of a step redone on a branch of its own, whoever redid it: an agent after a rewind (`again`) or
        a person by hand (`redoes`). Each carries the one "↺" mark (friction r64: a redo started by hand had none)."""
        return frozenset(self.again) | frozenset(self.redoes)

    def stored(self, card_id: str) -> str:
        """The node of the store a card shows (its page): itself, or the one it answers again."""
        return self.again.get(card_id, card_id)

    def card(self, node_id: str) -> str:
        """The card that shows a node of the store: its own, or the one its checkpoint marks."""
        return self.card_of.get(node_id, node_id)

    def end(self, card_id: str) -> str:
        """The node a card's branch ends at when the card is its last: a checkpoint folded into it may be."""
        marks = self.checkpoints.get(card_id)
        return marks[-1].node_id if marks and marks[-1].is_leaf else self.stored(card_id)

    def grew_from(self, first: GraphNode) -> GraphNode | None:
        """The card a branch whose first card is `first` grew from; None for a branch that starts at the run's
        start (the first branch, or one rewound to the run's first step)."""
        if first.parent_id is None:
            return None
        return next((node for node in self.graph.nodes if node.node_id == first.parent_id), None)

    def redone(self, first: GraphNode) -> GraphNode | None:
        """The card of the step a branch started by hand redoes (its stored parent), beside which it is drawn."""
        card = self.redoes.get(first.node_id)
        return next((node for node in self.graph.nodes if node.node_id == card), None) if card else None


def told(graph: RunGraph) -> Told:
    """`graph` with its checkpoints as marks on their steps' cards, each step answered again after a rewind drawn
    on the branch that answered it, and each branch started by hand beside the step it redoes."""
    graph, checkpoints, card_of = _fold_checkpoints(graph)
    by_id = {node.node_id: node for node in graph.nodes}
    again: dict[str, str] = {}
    redoes: dict[str, str] = {}
    placed: dict[str, GraphNode] = {}  # each node's card as told, by id (parents come before their children)
    up: dict[str, int] = {}  # how many rows a node's card moves up: the branches started by hand above it
    nodes: list[GraphNode] = []
    for node in graph.nodes:
        parent = by_id.get(node.parent_id) if node.parent_id is not None else None
        drawn = placed.get(node.parent_id) if node.parent_id is not None else None
        if parent is None or drawn is None or node.lane == parent.lane or node.via not in ("step", "fork"):
            rows = up.get(node.parent_id, 0) if node.parent_id is not None else 0
            up[node.node_id] = rows
            placed[node.node_id] = node.model_copy(update={"depth": node.depth - rows}) if rows else node
            nodes.append(placed[node.node_id])
            continue
        if node.via == "fork":
            # Started by hand at `parent`'s step: beside it, from the card before it, at its row.
            redoes[node.node_id] = parent.node_id
            up[node.node_id] = node.depth - drawn.depth
            placed[node.node_id] = node.model_copy(update={"parent_id": drawn.parent_id, "depth": drawn.depth})
            nodes.append(placed[node.node_id])
            continue
        # A fork made by answering `parent`'s step again: that answer is this branch's first card.
        card_id = f"{parent.node_id}{AGAIN_SEPARATOR}{node.node_id}"
        again[card_id] = parent.node_id
        nodes.append(
            drawn.model_copy(
                update={
                    "node_id": card_id,
                    "lane": node.lane,
                    "via": "step",
                    "is_tip": False,
                    "is_leaf": False,
                    "is_complete": False,
                    "is_blocked": False,
                }
            )
        )
        up[node.node_id] = up.get(parent.node_id, 0)
        placed[node.node_id] = node.model_copy(update={"parent_id": card_id, "depth": node.depth - up[node.node_id]})
        nodes.append(placed[node.node_id])
    edges = [GraphEdge(source=n.parent_id, target=n.node_id) for n in nodes if n.parent_id is not None]
    depth = max((node.depth for node in nodes), default=0)
    return Told(
        graph.model_copy(update={"nodes": nodes, "edges": edges, "depth": depth}), again, checkpoints, card_of, redoes
    )


def _fold_checkpoints(graph: RunGraph) -> tuple[RunGraph, dict[str, list[GraphNode]], dict[str, str]]:
    """`graph` without the checkpoints that continue their parent's branch: each becomes a mark of the card
    of the step it was saved at (its parent's, or the card that one is folded into), the nodes after it
    move up a row, and that card ends the branch, newest, when the checkpoint did."""
    by_id = {node.node_id: node for node in graph.nodes}
    card_of: dict[str, str] = {}
    lifted: dict[str, int] = {}  # how many rows a node moves up: the checkpoints folded above it
    checkpoints: dict[str, list[GraphNode]] = {}
    kept: list[GraphNode] = []
    for node in graph.nodes:  # parents before children (the layout's order)
        parent = by_id.get(node.parent_id) if node.parent_id is not None else None
        above = lifted.get(node.parent_id, 0) if node.parent_id is not None else 0
        if parent is not None and node.via == "checkpoint" and node.lane == parent.lane:
            host = card_of.get(parent.node_id, parent.node_id)
            card_of[node.node_id] = host
            checkpoints.setdefault(host, []).append(node)
            lifted[node.node_id] = above + 1
            continue
        lifted[node.node_id] = above
        parent_card = card_of.get(node.parent_id, node.parent_id) if node.parent_id is not None else None
        kept.append(node.model_copy(update={"parent_id": parent_card, "depth": node.depth - above}))
    if not card_of:
        return graph, {}, {}
    parents = {node.parent_id for node in kept}
    tip = card_of.get(graph.tip, graph.tip) if graph.tip is not None else None
    nodes = [
        node.model_copy(
            update={
                "is_leaf": node.node_id not in parents,
                "is_tip": node.node_id == tip,
                "is_blocked": node.is_blocked or checkpoints[node.node_id][-1].is_blocked,
            }
        )
        if node.node_id in checkpoints
        else node
        for node in kept
    ]
    depth = max((node.depth for node in nodes), default=0)
    return graph.model_copy(update={"nodes": nodes, "depth": depth, "tip": tip}), checkpoints, card_of
