"""Where a branch grew from, said one way wherever the dashboard says it: the run header's story line
(branch_summary), the phone's and the report's list of branches (graph_page.fork_words).

Two places used to anchor one fork differently (friction16a 3, friction16b 15): the header named the step the
branch went back to, the branch card the last step both branches share. The list says the step the branch redoes,
then the branch it grew from, the step in the one short locator (friction19a 8: the step it branched after, a
second step with its own counters, made the phone's card four lines long): "redoes Verify slice 2 (round 2 of 3),
from branch 1". The drawing shows the step it branched after; the step's page says it in full.

Read from the graph as the page tells it (graph_story.told): a branch's first card is the step it answered again
(its `again` card), the card it grew from is the last step both branches share; a branch started by hand waits at
the step of the node it was started from (drawn beside it); a branch a checkpoint started grows from its step.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from runs.contract.dashboard import GraphNode, RunGraph
from runs.readmodels import graph_drawing, graph_story

Kind = Literal["again", "by_hand", "checkpoint"]


def step_named(node: GraphNode) -> str:
    """A card's step by its title, then its place in the one locator, as every row names a step
    (step_places.named): "Verify slice 2 · step 2 of 3 · round 2 of 3 · part 1 of 2"."""
    title = node.title or node.step_id or "Step"
    return " · ".join(w for w in (title, graph_drawing.step_words(node)) if w)


@dataclass(frozen=True, slots=True)
class ForkPoint:
    kind: Kind
    redoes: str  # the step it redoes (again), or waits at (by hand, checkpoint)
    from_branch: int | None = None  # the branch it grew from (branches.py's numbers), None at the run's start

    def words(self, *, named: bool = False) -> str:
        """ "redoes Y"; `named`: with the branch it grew from, for a list of branches that shows no drawing
        ("redoes Y, from branch 1"); a branch that grew from no step "redoes Y, from the start"; a branch started by
        hand or by a checkpoint says how it began."""
        source = f", from branch {self.from_branch}" if named and self.from_branch is not None else ""
        if self.from_branch is None and self.kind == "again":
            source = ", from the start"
        if self.kind == "by_hand":
            return f"started by hand at {self.redoes}{source}"
        if self.kind == "checkpoint":
            return f"branched at {self.redoes}{source}"
        return f"redoes {self.redoes}{source}"


def of_first(story: graph_story.Told, first: GraphNode) -> ForkPoint:
    """The fork point of the branch whose first card (as `story` tells the graph) is `first`."""
    fork = story.grew_from(first)
    source = fork.lane + 1 if fork is not None else None
    if first.via == "fork":
        # Drawn beside the step it redoes (graph_story), it was started from that step's node: that branch's.
        redone = story.redone(first) or fork
        return ForkPoint("by_hand", step_named(redone or first), redone.lane + 1 if redone is not None else None)
    if first.node_id in story.again:
        return ForkPoint("again", step_named(first), source)
    return ForkPoint("checkpoint", step_named(fork if fork is not None else first), source)


def of_tip(graph: RunGraph, tip_id: str) -> ForkPoint | None:
    """The fork point of the branch that ends at the stored node `tip_id`; None for the run's first branch (or a
    tip the graph does not hold)."""
    story = graph_story.told(graph)
    cards = {node.node_id: node for node in story.graph.nodes}
    node = cards.get(story.card(tip_id))
    if node is None or node.lane == 0:
        return None
    while node.parent_id is not None and node.parent_id in cards and cards[node.parent_id].lane == node.lane:
        node = cards[node.parent_id]
    return of_first(story, node)
