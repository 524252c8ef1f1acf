"""Filters and drawing tags of the dashboard templates: `{% load dashboard %}`.

Everything returned here is plain data or plain text: the templates escape it. Nothing is marked safe.
The two drawings (a run's branch graph, a session's timeline) are computed here as coordinates and
class names, and drawn as SVG by their templates (attributes and classes only: the CSP forbids styles).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, TypedDict

from django import template
from django.urls import reverse
from django.utils import timezone

from runs.contract.dashboard import RunDetail, SessionDetail
from runs.readmodels import artifact_tables, branches, graph

register = template.Library()

STATUS_LABELS = {
    "in_progress": "in progress",
    "stalled": "stalled",
    "blocked": "blocked",
    "complete": "complete",
    "canceled": "canceled",
    "notes": "notes only",
}


@register.filter
def status_label(value: Any) -> str:
    return STATUS_LABELS.get(str(value), str(value).replace("_", " "))


def _moment(value: Any) -> datetime | None:
    """A datetime, or an ISO 8601 text (as JSON documents such as a synthesis hold them)."""
    if isinstance(value, str):
        try:
            value = datetime.fromisoformat(value)
        except ValueError:
            return None
    if not isinstance(value, datetime):
        return None
    return value if value.tzinfo else value.replace(tzinfo=UTC)


@register.filter
def ago(value: datetime | str | None) -> str:
    """A moment relative to now: "just now", "5 min ago", "3 h ago", "2 days ago", or a date."""
    value = _moment(value)
    if value is None:
        return ""
    seconds = (timezone.now() - value).total_seconds()
    if seconds < 0:
        return "just now" if seconds > -60 else "in the future"
    if seconds < 45:
        return "just now"
    if seconds < 3600:
        return f"{max(1, round(seconds / 60))} min ago"
    if seconds < 86400:
        return f"{round(seconds / 3600)} h ago"
    days = round(seconds / 86400)
    if days < 60:
        return f"{days} day{'s' if days != 1 else ''} ago"
    return value.strftime("%Y-%m-%d")


@register.filter
def stamp(value: datetime | str | None) -> str:
    """An absolute time, to the second, in UTC."""
    value = _moment(value)
    if value is None:
        return ""
    return value.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


@register.filter
def iso(value: datetime | None) -> str:
    return value.isoformat() if isinstance(value, datetime) else ""


@register.filter
def duration(seconds: Any) -> str:
    """Seconds as a person reads them: 0.4 s, 12 s, 3 min 5 s, 2 h 10 min."""
    try:
        total = float(seconds)
    except (TypeError, ValueError):
        return ""
    if total < 10:
        return f"{total:.2g} s" if total < 1 else f"{total:.1f} s"
    if total < 60:
        return f"{round(total)} s"
    minutes, secs = divmod(round(total), 60)
    if minutes < 60:
        return f"{minutes} min {secs} s" if secs else f"{minutes} min"
    hours, minutes = divmod(minutes, 60)
    if hours < 48:
        return f"{hours} h {minutes} min" if minutes else f"{hours} h"
    return f"{hours // 24} days {hours % 24} h"


@register.filter
def ms(value: Any) -> str:
    try:
        number = float(value)
    except (TypeError, ValueError):
        return ""
    return f"{number:.1f}" if number < 100 else f"{number:,.0f}"


@register.filter
def pretty_json(value: Any) -> str:
    """Indented JSON, as text (the template escapes it)."""
    return json.dumps(value, indent=2, ensure_ascii=False, default=str)


@register.filter
def compact_json(value: Any) -> str:
    """One-line JSON, as text (the template escapes it)."""
    return json.dumps(value, ensure_ascii=False, separators=(", ", ": "), default=str)


@register.filter
def flat_fields(data: Any) -> list[tuple[str, str]] | None:
    """The fields of an artifact (besides its kind) when every value is a scalar: shown as a definition
    list. None when some value is nested: then the artifact is shown as JSON."""
    if not isinstance(data, dict):
        return None
    fields = []
    for key, value in data.items():
        if key == "kind":
            continue
        if isinstance(value, dict | list):
            return None
        fields.append((str(key), "" if value is None else str(value)))
    return fields


@register.filter
def get(mapping: Any, key: Any) -> Any:
    if isinstance(mapping, dict):
        return mapping.get(key, mapping.get(str(key)))
    return None


@register.filter
def loop_decisions(artifacts: Any) -> list[str]:
    """The loop decisions among a step's artifacts, as sentences (artifact_tables.loop_decision)."""
    found = (artifact_tables.loop_decision(a) for a in artifacts) if isinstance(artifacts, list) else ()
    return [text for text in found if text is not None]


@register.filter
def without_loop_decisions(artifacts: Any) -> list[Any]:
    """A step's artifacts but its loop decisions, which are shown as sentences instead of JSON."""
    return [a for a in artifacts if artifact_tables.loop_decision(a) is None] if isinstance(artifacts, list) else []


@register.filter
def kinds(artifacts: Any) -> list[str]:
    """The kinds of a list of artifacts, in order, without repeats."""
    seen: list[str] = []
    for artifact in artifacts if isinstance(artifacts, list) else []:
        kind = str(artifact.get("kind") or "(no kind)") if isinstance(artifact, dict) else "(not an object)"
        if kind not in seen:
            seen.append(kind)
    return seen


# --- the branch graph of a run ---------------------------------------------------------------------

GRAPH_DX = 40  # between columns (depths)
GRAPH_DY = 34  # between lanes (branches)
GRAPH_PAD = 22  # the radii (node 7, hit area 13, tip ring 11) are in dashboard/_graph.html


@dataclass(frozen=True, slots=True)
class DrawnNode:
    """One node as the template draws it. Every value is text already: a page can hold thousands of
    nodes, and the template engine would localize each number it prints."""

    node_id: str
    cx: str
    cy: str
    href: str
    tooltip: str
    classes: str
    lane: str
    is_tip: bool


@dataclass(frozen=True, slots=True)
class DrawnEdge:
    d: str
    classes: str


@dataclass(frozen=True, slots=True)
class Branch:
    tip: str
    lane: int
    depth: int
    title: str
    href: str
    shown: bool
    is_newest: bool


class GraphContext(TypedDict):
    """What dashboard/_graph.html draws (an inclusion tag's context)."""

    detail: RunDetail
    nodes: list[DrawnNode]
    edges: list[DrawnEdge]
    tip: DrawnNode | None
    branches: list[Branch]
    width: str
    height: str
    tip_label: tuple[str, str] | None


def branch_path(detail: RunDetail) -> set[str]:
    """The node ids from the run's root to the shown branch's tip."""
    if detail.branch_tip is None:
        return set()
    return set(graph.path_to(detail.branch_tip, {node.node_id: node.parent_id for node in detail.graph.nodes}))


@register.inclusion_tag("dashboard/_graph.html")
def run_graph(detail: RunDetail) -> GraphContext:
    graph = detail.graph
    on_path = branch_path(detail)
    run_url = reverse("run", args=[detail.run.run_id])
    node_url = reverse("node", args=["NODE"])

    def x_of(depth: int) -> int:
        return GRAPH_PAD + depth * GRAPH_DX

    def y_of(lane: int) -> int:
        return GRAPH_PAD + lane * GRAPH_DY

    placed = {node.node_id: node for node in graph.nodes}
    nodes: list[DrawnNode] = []
    for node in graph.nodes:
        shown = node.node_id in on_path
        classes = ["node"]
        if shown:
            classes.append("on-branch")
        if node.is_complete:
            classes.append("complete")
        if node.via == "checkpoint":
            classes.append("checkpoint")
        selects_branch = node.is_leaf and not shown
        what = node.title or node.step_id or "Step"
        tooltip = f"{what} (node {node.node_id}, depth {node.depth}"
        tooltip += ", current tip)" if node.is_tip else ")"
        if selects_branch:
            tooltip += ": show this branch"
        nodes.append(
            DrawnNode(
                node_id=node.node_id,
                cx=str(x_of(node.depth)),
                cy=str(y_of(node.lane)),
                href=f"{run_url}?tip={node.node_id}" if selects_branch else node_url.replace("NODE", node.node_id),
                tooltip=tooltip,
                classes=" ".join(classes),
                lane=str(node.lane),
                is_tip=node.is_tip,
            )
        )
    edges: list[DrawnEdge] = []
    half = GRAPH_DX // 2
    for edge in graph.edges:
        source, target = placed.get(edge.source), placed.get(edge.target)
        if source is None or target is None:
            continue
        x1, y1, x2, y2 = x_of(source.depth), y_of(source.lane), x_of(target.depth), y_of(target.lane)
        # Within a lane a straight line; a fork is an elbow: right, down between the columns, right.
        d = f"M{x1} {y1}H{x2}" if y1 == y2 else f"M{x1} {y1}H{x1 + half}V{y2}H{x2}"
        both = edge.source in on_path and edge.target in on_path
        edges.append(DrawnEdge(d=d, classes="edge on-branch" if both else "edge"))
    tip = next((n for n in nodes if n.is_tip), None)
    return {
        "detail": detail,
        "nodes": nodes,
        "edges": edges,
        "tip": tip,
        "branches": _branch_links(detail, run_url),
        "width": str(2 * GRAPH_PAD + graph.depth * GRAPH_DX + 30),
        "height": str(2 * GRAPH_PAD + max(graph.lanes - 1, 0) * GRAPH_DY),
        "tip_label": (str(int(tip.cx) + 13), str(int(tip.cy) - 8)) if tip else None,
    }


def _branch_links(detail: RunDetail, run_url: str) -> list[Branch]:
    """A link per branch (branches.py's numbering: the graph's lanes), to show it on the run's page."""
    placed = {node.node_id: node for node in detail.graph.nodes}
    links = []
    for lane in branches.lanes((node.node_id, node.parent_id, node.lane) for node in detail.graph.nodes):
        tip = placed[lane.tip]
        links.append(
            Branch(
                tip=tip.node_id,
                lane=tip.lane,
                depth=tip.depth,
                title=tip.title or tip.step_id or "Step",
                href=f"{run_url}?tip={tip.node_id}",
                shown=tip.node_id == detail.branch_tip,
                is_newest=tip.is_tip,
            )
        )
    return links


# --- the timeline of a session ---------------------------------------------------------------------

TL_WIDTH = 800
TL_LABEL = 190
TL_PAD = 14
TL_ROW = 28
TL_LABEL_CHARS = 28


@dataclass(frozen=True, slots=True)
class TimelineRow:
    run_id: str
    label: str
    href: str
    y: str
    span: str  # the path of the line from the first node to the last
    dots: str  # the path drawing one round dot per node (zero-length segments with round caps)
    count: int
    tooltip: str
    selected: bool


class TimelineContext(TypedDict):
    """What dashboard/_timeline.html draws (an inclusion tag's context)."""

    rows: list[TimelineRow]
    width: str
    height: str
    axis: str
    axis_start: str
    axis_end: str
    text_y: str


@register.inclusion_tag("dashboard/_timeline.html")
def session_timeline(detail: SessionDetail, selected_run: str | None = None) -> TimelineContext:
    width = TL_WIDTH - TL_LABEL - TL_PAD
    names = {run.run_id: run.workflow_name for run in detail.runs}
    run_url = reverse("run", args=["RUN"])
    rows: list[TimelineRow] = []
    for index, lane in enumerate(detail.timeline):
        y = TL_PAD + index * TL_ROW + TL_ROW // 2
        xs = [f"{TL_LABEL + point * width:.1f}" for point in lane.points] or [str(TL_LABEL)]
        label = names.get(lane.run_id) or lane.label
        if len(label) > TL_LABEL_CHARS:
            label = label[: TL_LABEL_CHARS - 1] + "…"
        rows.append(
            TimelineRow(
                run_id=lane.run_id,
                label=label,
                href=run_url.replace("RUN", lane.run_id),
                y=str(y),
                span=f"M{xs[0]} {y}H{xs[-1]}",
                dots="".join(f"M{x} {y}h0" for x in xs) if lane.points else "",
                count=len(lane.points),
                tooltip=f"{names.get(lane.run_id) or lane.label} ({lane.run_id}): {len(lane.points)} nodes",
                selected=lane.run_id == selected_run,
            )
        )
    height = 2 * TL_PAD + len(rows) * TL_ROW + 16
    return {
        "rows": rows,
        "width": str(TL_WIDTH),
        "height": str(height),
        "axis": f"M{TL_LABEL} {height - TL_PAD - 8}H{TL_WIDTH - TL_PAD}",
        "axis_start": str(TL_LABEL),
        "axis_end": str(TL_WIDTH - TL_PAD),
        "text_y": str(height - 4),
    }
