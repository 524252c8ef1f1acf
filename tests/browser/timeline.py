"""What the session timeline's axis must hold at any width (runs/readmodels/timeline_page.py, times.js):
its tick labels never run into each other nor past the axis, at least two are in sight, and each is a clock
time to the minute, to the second only on a span under two minutes (zoomed: "2:34:10 AM"), never a fraction of a
second nor counted from the start ("+100 ms"), never two with the same words: a span under ten seconds is one tick,
its start. The timeline is folded shut by default: `open_timeline`
opens it."""

from __future__ import annotations

import itertools
import re
from typing import Any

# The axis's tick labels in sight, left to right: their text and box, and the axis's box.
SHOWN_TICKS = """() => [...document.querySelectorAll("svg.tl-axis")].map((axis) => {
  const box = axis.getBoundingClientRect();
  const ticks = [...axis.querySelectorAll("text.tl-tick")]
    .filter((t) => getComputedStyle(t).display !== "none" && t.getBoundingClientRect().width > 0)
    .map((t) => { const r = t.getBoundingClientRect(); return {text: t.textContent, left: r.left, right: r.right}; })
    .sort((a, b) => a.left - b.left);
  const mark = axis.querySelector("svg.tl-break path");
  const cut = mark ? mark.getBoundingClientRect() : null;
  const dots = [...document.querySelectorAll(".tl-rows .tl-dot")].filter((d) => d.getBoundingClientRect().width > 0)
    .map((d) => { const r = d.getBoundingClientRect(); return {left: r.left, right: r.right}; });
  const now = axis.querySelector("text.tl-now");
  const nowLeft = now && now.getBoundingClientRect().width > 0 ? now.getBoundingClientRect().left : null;
  // The ticks of this width's axis (a phone's has its own set: TimelineTick.only), before times.js leaves any out.
  const other = matchMedia("(max-width: 40rem)").matches ? "wide-only" : "narrow-only";
  const count = [...axis.querySelectorAll("text.tl-tick")].filter((t) => !t.classList.contains(other)).length;
  return {left: box.left, right: box.right, count, ticks,
    cut: cut && {left: cut.left, right: cut.right}, dots, nowLeft};
})"""
SUB_SECOND_CLOCK = re.compile(r"\d:\d\d:\d\d[.,]\d")
# To the minute, as the page writes times (friction59 T 1: "10:45:40 PM … 10:45:41 PM"): "14:05", "2:05 PM", "3 Nov
# 14:05", "Nov 3 2:05 PM".
CLOCK = re.compile(r"(\d+ \w+ |\w+ \d+,? )?\d{1,2}:\d\d(:\d\d)?(\s?[AP]M)?")
# A zoomed axis's (time_axis.ZOOM_UNDER): to the second, every label.
CLOCK_SECONDS = re.compile(r"\d{1,2}:\d\d:\d\d(\s?[AP]M)?")


def open_timeline(page: Any) -> None:
    """Open the session's timeline, folded shut by default (history: friction12 item 1), where it is: the
    page is not scrolled to it, so what a test checks next about the first screen still holds."""
    page.locator("details#timeline").evaluate("d => { d.open = true; }")


def assert_axis_reads(page: Any) -> list[str]:
    """The page's timeline axis reads at this width (opened first); returns the labels in sight."""
    open_timeline(page)
    axes = page.evaluate(SHOWN_TICKS)
    assert len(axes) == 1, axes
    axis = axes[0]
    ticks = axis["ticks"]
    labels = [tick["text"] for tick in ticks]
    # A label that would touch the one before it is left out (times.js): two ticks a few pixels apart (a burst
    # that straddles a whole second) show one label; three or more ticks always leave more than one, unless the
    # axis ends in "now", which takes the last label's place (times.js): then a burst and the end leave one.
    least = min(axis["count"], 1) if axis["count"] < 3 or axis["nowLeft"] is not None else 2
    assert len(ticks) >= least, axis
    for left, right in itertools.pairwise(ticks):
        assert left["right"] + 2 <= right["left"], f"tick labels run into each other: {labels}"
    assert all(axis["left"] - 1 <= tick["left"] and tick["right"] <= axis["right"] + 1 for tick in ticks), axis
    # Nor into the "now" that ends a standing session's axis ("2:52:30 PMnow": friction26a 4, 26b 3).
    if axis["nowLeft"] is not None:
        assert all(tick["right"] + 2 <= axis["nowLeft"] for tick in ticks), (labels, axis["nowLeft"])
    # The "//" break marker (a squeezed quiet stretch) keeps a gap from every label and from every dot: the last
    # one before it, whose time it follows (friction18b 7), and the first after it.
    cut = axis["cut"]
    if cut:
        for tick in ticks:
            assert tick["right"] + 4 <= cut["left"] or tick["left"] >= cut["right"] + 4, (tick, cut)
        for dot in axis["dots"]:
            assert dot["right"] + 1 <= cut["left"] or dot["left"] >= cut["right"] + 1, (dot, cut)
    assert not any(SUB_SECOND_CLOCK.search(label) for label in labels), labels
    assert all(CLOCK.fullmatch(label) for label in labels), labels
    # All to the second (a zoomed axis) or none: never "2:34 AM" beside "2:34:30 AM".
    assert len({bool(CLOCK_SECONDS.fullmatch(label)) for label in labels}) <= 1, labels
    assert len(set(labels)) == len(labels), labels
    return labels


# Each visible <time>: the words just before it in its line ("started", "last activity") and its form.
TIMES_AFTER_WORDS = """() => [...document.querySelectorAll("time[data-when]")]
  .filter((t) => t.getClientRects().length > 0 && !t.closest("#timeline"))
  .map((t) => {
    const before = t.previousSibling && t.previousSibling.nodeType === 3 ? t.previousSibling.textContent : "";
    const line = (t.parentElement.textContent || "").trim();
    return {words: before.trim() || line.slice(0, line.indexOf(t.textContent)).trim(), form: t.dataset.when};
  })"""


def assert_times_said_one_way(page: Any, visible: str) -> None:
    """One rule for the moments on a page (times.js): a session's head says when it started and its last
    activity in one style, how long ago (friction26a 14: a clock beside "45 min ago" in one line), the clock in
    each tooltip; and no "UTC" in the text a person reads (`visible`), only in tooltips. The timeline's summary is
    history on the wall clock ("started 2:47 AM · first answer 3:37 AM", friction15 2, 62b 10): not the head's."""
    times = page.evaluate(TIMES_AFTER_WORDS)
    started = [time["form"] for time in times if time["words"].endswith("started")]
    latest = [time["form"] for time in times if time["words"].endswith("last activity")]
    assert started and set(started) == {"ago"}, times
    assert set(latest) <= {"ago"}, times
    assert "UTC" not in visible
