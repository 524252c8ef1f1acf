"""Laying out a run's tree of nodes for drawing: a column per depth, a lane (row) per branch.

Pure and deterministic: the same nodes give the same picture. A node's first child (the oldest)
continues its parent's lane; each later child, a fork, opens the next free lane below everything
drawn so far. Drawn as elbows (right from the parent, down between the two columns, right into the
child), edges never cross: siblings share the way down, and no other node sits in a parent's
column between its lane and its children's. Iterative, so a run 10,000 steps deep lays out too.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass


@dataclass(frozen=True)
class Placed:
    node_id: int
    parent_id: int | None
    depth: int
    lane: int
    is_leaf: bool


@dataclass(frozen=True)
class Layout:
    nodes: list[Placed]  # in drawing order: depth-first, oldest branch first
    lanes: int
    depth: int


def lay_out(nodes: Iterable[tuple[int, int | None]]) -> Layout:
    """`nodes` are (node id, parent id) pairs, oldest first. A node whose parent is not among them is
    drawn as a root (a run has one root; a damaged store may have more)."""
    ordered = list(nodes)
    known = {node_id for node_id, _ in ordered}
    children: dict[int | None, list[int]] = {}
    for node_id, parent_id in ordered:
        children.setdefault(parent_id if parent_id in known else None, []).append(node_id)
    placed: list[Placed] = []
    next_lane = 0
    max_depth = 0
    # (node, parent, depth, lane); pushed in reverse so the oldest child is drawn first.
    stack: list[tuple[int, int | None, int, int]] = []
    for root in reversed(children.get(None, [])):
        stack.append((root, None, 0, -1))
    while stack:
        node_id, parent_id, depth, lane = stack.pop()
        if lane < 0:  # a root or a fork: a lane of its own
            lane = next_lane
            next_lane += 1
        kids = children.get(node_id, [])
        placed.append(Placed(node_id, parent_id, depth, lane, not kids))
        max_depth = max(max_depth, depth)
        for index in range(len(kids) - 1, -1, -1):
            stack.append((kids[index], node_id, depth + 1, lane if index == 0 else -1))
    return Layout(placed, next_lane, max_depth)


def path_to[K](node_id: K, parents: dict[K, K | None]) -> list[K]:
    """The node ids from the root to `node_id`, following `parents` (bounded: a cycle cannot loop)."""
    path = [node_id]
    seen = {node_id}
    current = parents.get(node_id)
    while current is not None and current not in seen:
        path.append(current)
        seen.add(current)
        current = parents.get(current)
    path.reverse()
    return path
