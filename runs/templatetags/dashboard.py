"""Filters and drawing tags of the dashboard templates: `{% load dashboard %}`.

Everything returned here is plain data or plain text: the templates escape it. One exception: a run's
branch graph is drawn as SVG text by runs/readmodels/graph_drawing.py (the PDF draws it too), which
escapes every text it puts in it. The session's timeline is computed here as coordinates and class
names and drawn by its template. Both use attributes and classes only: the CSP forbids styles.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, TypedDict

from django import template
from django.template.defaultfilters import pluralize
from django.urls import reverse
from django.utils import timezone
from django.utils.safestring import SafeString, mark_safe

from runs.contract.dashboard import RunDetail, SessionDetail
from runs.readmodels import artifact_tables, graph_drawing, graph_page, naming, outline_words, states, time_axis

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


@register.filter
def state_label(value: Any) -> str:
    """A state (runs/readmodels/states.py) in the dashboard's one vocabulary: "Needs you", "Left behind"."""
    return states.label(str(value))


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


# --- a workflow's outline ------------------------------------------------------------------------------


@register.filter
def condition_words(condition: Any) -> str:
    """A condition in words for people (runs/readmodels/outline_words.py)."""
    return outline_words.condition_words(condition)


@register.filter
def confirmation_words(rule: Any) -> str:
    return outline_words.confirmation_words(rule)


@register.filter
def loop_words(step: Any) -> str:
    return outline_words.loop_words(step)


# --- the branch graph of a run ---------------------------------------------------------------------


class GraphContext(TypedDict):
    """What dashboard/_graph.html draws (an inclusion tag's context)."""

    detail: RunDetail
    drawing: SafeString
    legend: list[graph_drawing.LegendEntry]
    branches: list[graph_page.BranchLink]


@register.filter
def session_name(session: Any) -> str:
    """A session (a SessionSummary or SessionDetail) as pages name it: its key, else its title, else its id."""
    return naming.session_name(
        getattr(session, "session_key", None), getattr(session, "title", "") or "", str(session.session_id)
    )


@register.filter
def short_id(value: Any) -> str:
    """A node id as a link text shows it (the full id goes in its title, and in every URL)."""
    return graph_drawing.short_id(value)


@register.inclusion_tag("dashboard/_graph.html")
def run_graph(detail: RunDetail) -> GraphContext:
    """The branch graph as runs/readmodels/graph_page.py laid it out; this tag gives it the URLs."""
    laid_out = graph_page.graph_page(detail, reverse("run", args=[detail.run.run_id]), reverse("node", args=["NODE"]))
    return {
        "detail": detail,
        # The drawing escapes every text it holds (runs/readmodels/graph_drawing.py): safe to insert as is.
        "drawing": mark_safe(laid_out.drawing),
        "legend": laid_out.legend,
        "branches": laid_out.branches,
    }


# --- the timeline of a session ---------------------------------------------------------------------

TL_WIDTH = 800
TL_LABEL = 190
TL_PAD = 14
TL_ROW = 38
TL_LABEL_CHARS = 28
TL_AXIS = 44  # below the rows: the axis, its ticks and their times


@dataclass(frozen=True, slots=True)
class TimelineRow:
    run_id: str
    label: str
    href: str
    y: str
    sub_y: str
    span: str  # the path of the line from the first node to the last
    dots: str  # the path drawing one round dot per node (zero-length segments with round caps)
    count: int
    tooltip: str
    took: str  # from the run's first node to its newest, as a person reads it
    selected: bool


@dataclass(frozen=True, slots=True)
class TimelineTick:
    x: str
    label: str
    anchor: str


class TimelineContext(TypedDict):
    """What dashboard/_timeline.html draws (an inclusion tag's context)."""

    rows: list[TimelineRow]
    width: str
    height: str
    axis: str
    axis_y: str
    tick_marks: str
    ticks: list[TimelineTick]
    tick_y: str
    caption: str
    caption_y: str


@register.inclusion_tag("dashboard/_timeline.html")
def session_timeline(detail: SessionDetail, selected_run: str | None = None) -> TimelineContext:
    width = TL_WIDTH - TL_LABEL - TL_PAD
    names = {run.run_id: run.workflow_name for run in detail.runs}
    run_url = reverse("run", args=["RUN"])
    starts = [lane.first_at for lane in detail.timeline if lane.first_at is not None]
    ends = [lane.last_at for lane in detail.timeline if lane.last_at is not None]
    rows: list[TimelineRow] = []
    for index, lane in enumerate(detail.timeline):
        y = TL_PAD + index * TL_ROW + 12
        xs = [f"{TL_LABEL + point * width:.1f}" for point in lane.points] or [str(TL_LABEL)]
        name = names.get(lane.run_id) or lane.label
        label = name if len(name) <= TL_LABEL_CHARS else name[: TL_LABEL_CHARS - 1] + "…"
        took = ""
        when = ""
        if lane.first_at is not None and lane.last_at is not None:
            took = duration((lane.last_at - lane.first_at).total_seconds())
            when = f", {stamp(lane.first_at)} to {stamp(lane.last_at)} ({took})"
        count = len(lane.points)
        rows.append(
            TimelineRow(
                run_id=lane.run_id,
                label=label,
                href=run_url.replace("RUN", lane.run_id),
                y=str(y),
                sub_y=str(y + 14),
                span=f"M{xs[0]} {y}H{xs[-1]}",
                dots="".join(f"M{x} {y}h0" for x in xs) if lane.points else "",
                count=count,
                tooltip=f"{name} ({lane.run_id}): {count} node{pluralize(count)}{when}",
                took=f"{took} · {count} node{pluralize(count)}" if took else f"{count} node{pluralize(count)}",
                selected=lane.run_id == selected_run,
            )
        )
    axis_y = TL_PAD + len(rows) * TL_ROW + 4
    ticks: list[TimelineTick] = []
    caption = ""
    if starts and ends:
        start, end = min(starts), max(ends)
        for tick in time_axis.ticks(start, end):
            x = TL_LABEL + tick.fraction * width
            anchor = "end" if x > TL_WIDTH - TL_PAD - 30 else ("start" if x < TL_LABEL + 30 else "middle")
            ticks.append(TimelineTick(x=f"{x:.1f}", label=tick.label, anchor=anchor))
        start, end = start.astimezone(UTC), end.astimezone(UTC)
        until = end.strftime("%H:%M:%S" if end.date() == start.date() else "%Y-%m-%d %H:%M:%S")
        caption = f"{start:%Y-%m-%d %H:%M:%S} to {until} UTC · {duration((end - start).total_seconds())}"
    tick_marks = "".join(f"M{t.x} {axis_y}v5" for t in ticks)
    height = axis_y + TL_AXIS
    return {
        "rows": rows,
        "width": str(TL_WIDTH),
        "height": str(height),
        "axis": f"M{TL_LABEL} {axis_y}H{TL_WIDTH - TL_PAD}",
        "axis_y": str(axis_y),
        "tick_marks": tick_marks,
        "ticks": ticks,
        "tick_y": str(axis_y + 17),
        "caption": caption,
        "caption_y": str(axis_y + 35),
    }
