"""A run's graph as the run page tells it: the one source of the drawing, the branch links under it and the
phone's branch list, so that they tell the story the steps list tells.

The store's tree has a node per state (its pending step); an answer leads from a node to its child. When an
agent rewinds and answers a node's step again, the new child is a sibling of the old one under that node
(the execution contract: an older stateToken answered again). Drawn node by node, that answered-again step
would sit above the fork, as if both branches shared it, while the new branch's steps list rightly lists it
as its own ("Answered again after a rewind"). So here, before anything is drawn:

- the step a branch answered again is a card of that branch (`again`: a card that stands for the node whose
  step it answers, at that node's depth, in the new branch's lane), and the branch grows from the node
  before it: the last step both branches share (none when the rewind went back to the run's first step;
  the branch then starts beside the first card, at the start);
- a branch started by hand (an operator fork) waits at its parent's step: its first card already names that
  step, and it grows from that node, as stored.

Pure: from a RunGraph (branches.py's lanes and numbering, unchanged) to another RunGraph and the ids its new
cards stand for.
"""

from __future__ import annotations

from dataclasses import dataclass

from runs.contract.dashboard import GraphEdge, GraphNode, RunGraph

AGAIN_SEPARATOR = "-again-"


@dataclass(frozen=True, slots=True)
class Told:
    graph: RunGraph  # as the page tells it: every node of the store, plus a card per step answered again
    again: dict[str, str]  # an answered-again card's id -> the node whose step it answers again

    def stored(self, card_id: str) -> str:
        """The node of the store a card shows (its page): itself, or the one it answers again."""
        return self.again.get(card_id, card_id)

    def grew_from(self, first: GraphNode) -> GraphNode | None:
        """The card a branch whose first card is `first` grew from; None for a branch that starts at the run's
        start (the first branch, or one rewound to the run's first step)."""
        if first.parent_id is None:
            return None
        return next((node for node in self.graph.nodes if node.node_id == first.parent_id), None)


def told(graph: RunGraph) -> Told:
    """`graph` with each step answered again after a rewind drawn on the branch that answered it."""
    by_id = {node.node_id: node for node in graph.nodes}
    again: dict[str, str] = {}
    nodes: list[GraphNode] = []
    for node in graph.nodes:
        parent = by_id.get(node.parent_id) if node.parent_id is not None else None
        if parent is None or node.via != "step" or node.lane == parent.lane:
            nodes.append(node)
            continue
        # A fork made by answering `parent`'s step again: that answer is this branch's first card.
        card_id = f"{parent.node_id}{AGAIN_SEPARATOR}{node.node_id}"
        again[card_id] = parent.node_id
        nodes.append(
            parent.model_copy(
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
        nodes.append(node.model_copy(update={"parent_id": card_id}))
    edges = [GraphEdge(source=n.parent_id, target=n.node_id) for n in nodes if n.parent_id is not None]
    return Told(graph.model_copy(update={"nodes": nodes, "edges": edges}), again)
