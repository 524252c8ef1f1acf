"""The phone layout and the timeline (third and fourth reviews), at desktop (1440x900) and phone (390x844)
size: every entry of the top menu reachable in one row (behind "More" on a phone), none cut or off-screen; ids
that wrap only at their dots and underscores, the blocked panel's error code on a line of its own;
timeline dots of a readable size that never cover each other, with clock times under them and a stalled
run's real span; catalog cards compact enough for about four to a phone screen; the findings using the
card's whole width. Every page must fit its window (tests/browser/layout.py)."""

from __future__ import annotations

import itertools
import re
from datetime import UTC, datetime, timedelta

import pytest
from django.db.models import F
from playwright.sync_api import expect

from runs.models import Checkpoint, Node, Output, Run, Session
from tests.browser import SCREENSHOTS_DIR
from tests.browser.layout import PHONE, assert_fits, current_test_name, keep_screenshot, viewport_name, visit
from tests.browser.timeline import SHOWN_TICKS, assert_axis_reads
from tests.support import attention_sessions as made
from tests.support.branched_review import blocked_review
from tests.support.sample_session import two_runs_one_forked_twice

pytestmark = pytest.mark.django_db(transaction=True)  # the live server thread sees the test's rows


# The menu's entries a person can see: each link's box, and whether its text is cut; the "More" fold's
# summary when drawn; how many lines the shown entries take; the top bar's height.
MENU = """() => {
  const vw = document.documentElement.clientWidth;
  // checkVisibility: not display:none, not inside a closed <details>, not visibility:hidden.
  const seen = (el) => el.checkVisibility({visibilityProperty: true});
  const box = (el) => { const r = el.getBoundingClientRect();
    return {text: el.textContent.trim(), left: r.left, right: r.right, top: Math.round(r.top), bottom: r.bottom,
            cut: el.scrollWidth > el.clientWidth + 1}; };
  const links = [...document.querySelectorAll(".topbar .nav a")].filter(seen).map(box);
  const more = [...document.querySelectorAll(".topbar .nav summary")].filter(seen).map(box);
  const row = [...document.querySelectorAll(".topbar .nav > li > a, .topbar .nav > li > details > summary")];
  return {vw, links, more, lines: new Set(row.filter(seen).map((el) => box(el).top)).size,
          bar: document.querySelector(".topbar").getBoundingClientRect().height};
}"""
ALL_ENTRIES = ["Sessions", "Workflows", "Tool timings", "Connect", "API docs", "Admin"]
# The bar's pieces a person taps: the brand, the menu's shown entries, "More" and the "?", each its box; the
# "?"'s drawn circle; the widest right edge of anything in the bar.
BAR_SLOTS = """() => {
  const seen = (el) => el.checkVisibility({visibilityProperty: true});
  const box = (el) => { const r = el.getBoundingClientRect();
    return {text: el.textContent.trim(), left: r.left, right: r.right, top: r.top, bottom: r.bottom}; };
  const tapped = [...document.querySelectorAll(
    ".topbar .brand, .topbar .nav > li > a, .topbar .nav > li > details > summary, .topbar .words-link")];
  const words = document.querySelector(".topbar .words-link");
  const circle = getComputedStyle(words, "::before");
  return {slots: tapped.filter(seen).map(box), words: box(words),
          circle: circle.content === "none" ? null : parseFloat(circle.width),
          widest: Math.max(...[...document.querySelectorAll(".topbar *")].filter(seen).map(
            (el) => el.getBoundingClientRect().right)),
          vw: document.documentElement.clientWidth};
}"""


def test_every_menu_entry_is_in_sight_without_a_sideways_scroll(sized_page, console_log, site, live_server, viewport):
    """Every entry is reachable and none is cut or off-screen. The menu is one row at both sizes: every entry
    on a desktop; on a phone Sessions, Workflows and "More", which opens (from the keyboard, no script
    needed) onto the other entries, each whole inside the window."""
    for path, name, more in (
        ("/workflows/", "menu-workflows", "More"),
        ("/connect/", "menu-connect", "Connect"),  # a page behind "More": "More" highlighted, its entry marked
        ("/timings/", "menu-timings", "Tool timings"),
    ):
        visit(sized_page, site + path, name)  # the top bar fits too: nothing in it wider than the window
        if path == "/timings/":  # no call yet: its one line is plain muted text at both sizes (friction60a 18)
            style = sized_page.locator("table.tool-stats td.empty").evaluate(
                "(td) => [getComputedStyle(td).fontStyle, getComputedStyle(td).fontWeight]"
            )
            assert style == ["normal", "400"], style
        menu = sized_page.evaluate(MENU)
        assert menu["lines"] == 1, menu
        assert menu["bar"] < 60, menu
        if viewport.name == "desktop":
            assert [link["text"] for link in menu["links"]] == ALL_ENTRIES, menu
            assert menu["more"] == [], menu
            # One even row: no wider gap before "API docs" that read as a group nobody explained (friction26a 17).
            links = menu["links"]
            gaps = [round(b["left"] - a["right"]) for a, b in itertools.pairwise(links)]
            assert max(gaps) - min(gaps) <= 1, gaps
        else:
            assert [link["text"] for link in menu["links"]] == ["Sessions", "Workflows"], menu
            # "More" (friction18a 15: "Connect ▾" hid what else it holds), highlighted on a page behind it, the page
            # named to screen readers (friction26a 16); the current page is marked inside.
            label = "More" if more == "More" else f"More: {more}"
            assert [summary["text"] for summary in menu["more"]] == [label], menu
            expect(sized_page.locator(".nav-more summary.holds-current")).to_have_count(0 if more == "More" else 1)
            # Each tap target in its own slot of the row, "More" one line (the page named inside it only: its
            # name under "More" ran into the "?", friction27a 3); the "?" a 44 px target, its circle drawn small.
            bar = sized_page.evaluate(BAR_SLOTS)
            for a, b in itertools.pairwise(bar["slots"]):
                assert a["right"] <= b["left"], (a, b)
            assert bar["widest"] <= bar["vw"], bar
            assert [slot["text"] for slot in bar["slots"]][-1] == "?", bar
            words = bar["words"]
            assert words["right"] - words["left"] >= 44 and words["bottom"] - words["top"] >= 44, words
            assert bar["circle"] and 27 <= bar["circle"] <= 31, bar
            row = {slot["text"]: slot["bottom"] - slot["top"] for slot in bar["slots"]}
            assert row[menu["more"][0]["text"]] <= row["Sessions"] + 1, row  # "More" as tall as a one-line entry
            sized_page.locator(".topbar summary").focus()
            sized_page.keyboard.press("Enter")  # a native <details>: opened from the keyboard
            menu = sized_page.evaluate(MENU)
            assert [link["text"] for link in menu["links"]] == ALL_ENTRIES, menu
            if more != "More":
                current = sized_page.locator(".nav-more ul a[aria-current=page]")
                expect(current).to_have_text(more)
                marked = current.evaluate("(a) => getComputedStyle(a).backgroundColor")
                plain = sized_page.locator(".nav-more ul a:not([aria-current])").first
                assert marked != plain.evaluate("(a) => getComputedStyle(a).backgroundColor")
            # With the menu open the current page's entry still shows, uncovered, with a bar of the accent no other
            # entry has, in the row or in the menu (friction62b 17: on Workflows the open menu marked nothing).
            here = sized_page.locator('.topbar .nav a[aria-current="page"]:visible')
            expect(here).to_have_count(1)
            expect(here).to_have_text("Workflows" if more == "More" else more)
            shown = here.evaluate(
                "(a) => { const r = a.getBoundingClientRect();"
                " return a.contains(document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2)); }"
            )
            assert shown
            bars = sized_page.locator(".topbar .nav a:visible").evaluate_all(
                "(links) => links.map((a) => [a.textContent.trim(), getComputedStyle(a).boxShadow])"
            )
            assert [text for text, bar in bars if bar != "none"] == [here.inner_text().strip()], bars
            keep_screenshot(sized_page, name + "-more")
            assert_fits(sized_page)
            sized_page.locator(".nav-more a").first.focus()
            sized_page.keyboard.press("Escape")  # closes the fold, the focus back on "More"
            expect(sized_page.locator(".nav-more details")).not_to_have_attribute("open", "")
            expect(sized_page.locator(".nav-more summary")).to_be_focused()
            sized_page.keyboard.press("Enter")
            sized_page.mouse.click(5, 700)  # a click elsewhere closes it too
            expect(sized_page.locator(".nav-more details")).not_to_have_attribute("open", "")
            sized_page.locator(".nav-more summary").click()
        for link in menu["links"] + menu["more"]:
            assert not link["cut"], link
            assert link["left"] >= 0 and link["right"] <= menu["vw"], link  # whole, inside the window
        expect(sized_page.locator('.topbar .nav a[aria-current="page"]:visible')).to_be_in_viewport()
    console_log.assert_clean()


# Where each line of an element's text breaks: the character before each break, and whether the break
# falls on a boundary between text nodes (a <wbr>) or after a space.
BREAKS = """(el) => {
  const found = [];
  let lastTop = null, lastChar = "";
  const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    for (let i = 0; i < node.length; i++) {
      const range = document.createRange();
      range.setStart(node, i); range.setEnd(node, i + 1);
      const rect = range.getClientRects()[0];
      if (!rect || !node.data[i].trim()) { if (node.data[i] === " ") lastChar = " "; continue; }
      if (lastTop !== null && rect.top > lastTop + 2) found.push(lastChar);
      lastTop = rect.top; lastChar = node.data[i];
    }
  }
  return found;
}"""


# Whether an element's text stands on one line: a single line box, no taller than its line height.
ONE_LINE = """(el) => {
  const range = document.createRange();
  range.selectNodeContents(el);
  const lines = new Set([...range.getClientRects()].map((r) => Math.round(r.top)));
  return lines.size === 1 && el.getBoundingClientRect().height <= parseFloat(getComputedStyle(el).lineHeight) + 1;
}"""
ONE_LINE_WHY = """(el) => ({height: el.getBoundingClientRect().height, line: getComputedStyle(el).lineHeight,
  width: el.getBoundingClientRect().width, text: el.textContent})"""


def test_ids_wrap_at_their_dots_and_underscores_not_mid_word(sized_page, console_log, site, live_server, viewport):
    stuck = blocked_review("MR-77")
    visit(sized_page, f"{site}/runs/{stuck.run_id}/", "ids-blocked-run")
    cell = sized_page.locator(".blocked-issues li.break").first
    expect(cell).to_contain_text("the list of changed files")  # named as people say it; its kind is for the API
    breaks = cell.evaluate(BREAKS)
    if viewport == PHONE:
        assert breaks, "the message should take several lines at phone width"
    assert all(char in " ._/-(),'" for char in breaks), breaks  # never inside a word
    # For developers (in the run's fold): the code never split; the place in the answer breaks only at its
    # joints.
    sized_page.locator("#run-details > summary").click()
    code = sized_page.locator(".issue-codes .code-word").first
    expect(code).to_have_text("ARTIFACT_MISSING")
    assert code.evaluate(ONE_LINE), code.evaluate(ONE_LINE_WHY)
    pointer = sized_page.locator(".issue-codes .pointer").first
    expect(pointer).to_have_text("/output/artifacts")
    assert all(char in "._/" for char in pointer.evaluate(BREAKS)), pointer.evaluate(BREAKS)
    console_log.assert_clean()


# Every timeline dot that shows: its box, its name, how many nodes it stands for.
SHOWN_DOTS = """() => [...document.querySelectorAll(".timeline .tl-track")]
  .filter((track) => getComputedStyle(track).display !== "none")
  .map((track) => [...track.querySelectorAll(".tl-dot")].map((dot) => {
    const r = dot.getBoundingClientRect();
    const named = dot.closest("[aria-label]");
    const group = dot.closest(".tl-group");
    const number = group ? group.querySelector(".tl-count").getBoundingClientRect() : null;
    return {left: r.left, right: r.right, width: r.width, name: named ? named.getAttribute("aria-label") : "",
            count: group ? Number(group.querySelector(".tl-count").textContent) : 1,
            number: number ? {left: number.left, right: number.right} : null};
  }))"""


NOW_ON_LAST_TICK = """() => {
  const axis = [...document.querySelectorAll("svg.tl-axis")].find((a) => a.getBoundingClientRect().width > 0);
  const all = axis ? [...axis.querySelectorAll("text.tl-tick")] : [];
  const ticks = all.filter((t) => t.getBoundingClientRect().width > 0);
  const now = axis && axis.querySelector("text.tl-now");
  if (!now || ticks.length < 3) return false;
  now.dataset.x = now.getAttribute("x");  // kept for NOW_BACK
  now.setAttribute("x", ticks[ticks.length - 1].getAttribute("x"));  // from the middle of the last label shown
  now.setAttribute("text-anchor", "start");
  window.dispatchEvent(new Event("resize"));
  return true;
}"""
# "now" back at the axis's end, where the page draws it, once NOW_ON_LAST_TICK's check is done: the screenshots
# after it show the page as a reader sees it (friction59a 4, 59b 2: the moved "now" read as a misplaced axis).
NOW_BACK = """() => {
  const now = [...document.querySelectorAll("svg.tl-axis text.tl-now")].find((t) => t.dataset.x);
  now.setAttribute("x", now.dataset.x);
  now.setAttribute("text-anchor", "end");
  window.dispatchEvent(new Event("resize"));
}"""


def test_timeline_dots_are_readable_never_cover_each_other_and_have_clock_times(
    sized_page, console_log, site, live_server, viewport
):
    forked = two_runs_one_forked_twice()
    # Steps made within a second crowd into numbered dots only when the span is long beside them: the first
    # step is moved 50 min back, so the rest is one burst at the span's end however fast the machine made them
    # (and the axis, to the minute, has several round times: friction59 T 1).
    first = Node.objects.filter(run__session__public_id=forked.session_id).order_by("created_at").first()
    assert first is not None
    back = timedelta(minutes=50)
    Node.objects.filter(pk=first.pk).update(created_at=first.created_at - back)
    # The session and its runs began with that step (friction15 6: the first dot sat before "started").
    Session.objects.filter(public_id=forked.session_id).update(created_at=first.created_at - back)
    Run.objects.filter(session__public_id=forked.session_id).update(created_at=F("created_at") - back)
    visit(sized_page, f"{site}/sessions/{forked.session_id}/", "timeline-folded")
    # History, folded shut by default under one line that says what it holds, on the span every figure in it
    # is measured on (friction12 item 1): no row counts on to now.
    fold = sized_page.locator("details#timeline")
    expect(fold.locator("> summary")).to_have_text(
        # The session's, of its two runs: never read as the shown run's count (friction13 item 3).
        re.compile(
            # Every step box of the graph, redone ones too (friction15 1); on the wall clock (friction15 2).
            r"^Timeline\s*14 steps reached in 2 runs \(10 answered\) and 1 checkpoint\s·\sstarted "
            # When the first step was given and when it was answered, 50 min apart (friction62b 10: "first step
            # 2:47 AM" over a first dot at 3:37 AM). No "steps took 36 ms" nor "waiting 544 ms for you" (friction16b 3).
            r".+\s·\sfirst answer .+\s·\slast step (.+ ago|just now)\s*$"
        )
    )
    # Each label stays with its value (friction22b 14: "· first step" ended one line, its moment began the next):
    # on a phone each pair is a line of its own, on a desktop none breaks inside.
    pairs = fold.locator("> summary .tl-pair")
    expect(pairs).to_have_count(3)
    lines = (
        "e => [new Set([...e.getClientRects()].map((r) => Math.round(r.bottom))).size, e.getBoundingClientRect().top]"
    )
    tops = [pairs.nth(i).evaluate(lines) for i in (0, 1)]
    assert all(rows == 1 for rows, _ in tops), tops
    assert (tops[0][1] < tops[1][1]) if viewport == PHONE else True, tops
    expect(sized_page.locator(".tl-row").first).to_be_hidden()
    # A link to a numbered dot's entry opens the fold (and the list's) around it (folds.js).
    shown = "narrow" if viewport == PHONE else "wide"  # the layout dashboard.css shows at this width
    entry_id = sized_page.locator(f".tl-track.{shown} a.tl-group").first.get_attribute("href")
    assert entry_id and entry_id.startswith("#tl-")
    sized_page.evaluate("(hash) => { location.hash = hash; }", entry_id)
    expect(sized_page.locator(f"li{entry_id}")).to_be_visible()
    expect(sized_page.locator(".tl-duration")).not_to_contain_text(["so far", "so far"])
    keep_screenshot(sized_page, "timeline-dots")
    assert_axis_reads(sized_page)  # no label runs into another, the "//" or the "now"
    # Where "now" falls depends on when the page is drawn; put it on the last label's place and lay the axis out
    # again (a resize): the label that would touch it is left out (times.js; friction26a 4: "2:52:30 PMnow").
    # (A phone's axis may show only two labels, too few to lose one: there it is checked when it shows three.)
    moved = sized_page.evaluate(NOW_ON_LAST_TICK)
    assert moved or viewport == PHONE, "a standing session's axis ends with its now, after three labels"
    if moved:
        sized_page.wait_for_timeout(100)  # the relayout waits for an animation frame
        assert_axis_reads(sized_page)
        sized_page.evaluate(NOW_BACK)
        sized_page.wait_for_timeout(100)
        assert_axis_reads(sized_page)
    tracks = sized_page.evaluate(SHOWN_DOTS)
    assert len(tracks) == 2  # one layout per run, the other hidden at this width
    # Every node once, and a dot for each of the review's two steps redone after a rewind.
    assert sum(dot["count"] for track in tracks for dot in track) == 11 + 2 + 2
    for track in tracks:
        for dot in track:
            assert dot["width"] >= 9.9 and dot["name"], dot  # 10 px, give or take sub-pixel layout
            if dot["number"] is not None:  # a numbered dot is big enough for its number, whole inside it
                assert dot["width"] >= 19.9, dot
                assert dot["left"] + 2 <= dot["number"]["left"] and dot["number"]["right"] <= dot["right"] - 2, dot
        for a, b in itertools.pairwise(track):
            assert b["left"] >= a["right"], (a, b)  # side by side, never one over the other
    if viewport == PHONE:  # the nine nodes made at once on the review stand as one dot that counts them
        assert any(dot["count"] > 1 and re.match(r"^\d+ steps[^:]* within ", dot["name"]) for dot in tracks[0])
    ticks = sized_page.locator(".timeline text.tl-tick").evaluate_all(
        "ts => ts.filter((t) => getComputedStyle(t).display !== 'none').map((t) => t.textContent)"
    )
    # Clock times, or for a session walked within a second one: its start.
    assert ticks, ticks
    # Every tick mark in sight has its label: a label left out for room takes its mark along (friction16b 16).
    marks = sized_page.locator("svg.tl-axis line.tl-tick-mark").evaluate_all(
        "ms => ms.filter((m) => getComputedStyle(m).display !== 'none').length"
    )
    assert marks == len(ticks), (marks, ticks)
    # The session still runs: its axis ends in a gap and "now", whatever the machine's speed (friction12 1).
    expect(sized_page.locator("svg.tl-axis .tl-now")).to_have_text("now")
    # A numbered dot leads to the steps it holds (a phone has no tooltip, friction9 item 6): following it opens
    # the legend's list at its entry, which names each of them.
    group = sized_page.locator(".tl-track:visible a.tl-group").first
    count = int(group.locator(".tl-count").text_content() or "0")
    group.click()
    entry = sized_page.locator(".tl-clusters > li:target")
    expect(entry).to_be_visible()
    expect(entry).to_contain_text(re.compile(r"\d+ steps?[^:]* within "))
    expect(entry.locator("ol > li")).to_have_count(count)
    # Each of them a link to its step's page (friction64: plain text, a dead end on a phone).
    expect(entry.locator("ol > li > a[href^='/nodes/']")).to_have_count(count)
    # The first answer the summary says is the first dot's moment, as the list of its steps says it.
    said = fold.locator("> summary .tl-pair").nth(1).locator("time")
    expect(said).to_have_attribute("datetime", entry.locator("time").first.get_attribute("datetime") or "")
    expect(entry.locator("ol > li").first).to_have_text(re.compile(r"^(.+ · step \d+ of \d+|Complete)"))
    # The checkpoint listed as its own kind of entry, not its step a second time (friction61a 6).
    listed = sized_page.locator(".tl-clusters ol > li").all_text_contents()
    assert not any("(checkpoint)" in text for text in listed), listed
    # It is a ◆ of its own in the track (not counted in a numbered dot), named as a checkpoint at its step.
    checkpoint = sized_page.locator(".tl-track:visible path.tl-checkpoint")
    expect(checkpoint).to_have_count(1)
    titled = checkpoint.evaluate(
        "p => (p.closest('a, g')?.querySelector('title') || p.querySelector('title'))?.textContent || ''"
    )
    assert titled.startswith("◆ checkpoint at Post the Approved Comments"), titled
    # "now" ends the axis in the picture as on the page: right of every label in sight.
    now_last = """() => {
      const axis = [...document.querySelectorAll("svg.tl-axis")].find((a) => a.getBoundingClientRect().width > 0);
      const shown = [...axis.querySelectorAll("text.tl-tick")].filter((t) => t.getBoundingClientRect().width > 0);
      const now = axis.querySelector("text.tl-now").getBoundingClientRect();
      return shown.every((t) => t.getBoundingClientRect().right < now.left);
    }"""
    assert sized_page.evaluate(now_last)
    # The run started 50 min before its burst of steps: that quiet stretch is cut out by a break after the start's
    # time, and every dot stands after it, on the track's width (friction62a 3: dots piled into the axis's end).
    axis = sized_page.evaluate(SHOWN_TICKS)[0]
    assert axis["cut"] and axis["ticks"][0]["right"] < axis["cut"]["left"], axis
    assert min(dot["left"] for dot in axis["dots"]) > axis["cut"]["right"], axis
    keep_screenshot(sized_page, "timeline-dots-listed")
    assert_fits(sized_page)
    console_log.assert_clean()


# The first dot in sight (by its left edge), and the axis's ticks in sight: their text, moment and box.
FIRST_DOT_AND_TICKS = """() => {
  const dots = [...document.querySelectorAll(".tl-rows .tl-track .tl-dot")]
    .map((d) => d.getBoundingClientRect()).filter((r) => r.width > 0).sort((a, b) => a.left - b.left);
  const ticks = [...document.querySelectorAll("svg.tl-axis text.tl-tick")]
    .filter((t) => getComputedStyle(t).display !== "none" && t.getBoundingClientRect().width > 0)
    .map((t) => { const r = t.getBoundingClientRect();
      return {text: t.textContent, at: t.getAttribute("data-tick-at"), left: r.left, right: r.right}; })
    .sort((a, b) => a.left - b.left);
  return {dot: {left: dots[0].left, right: dots[0].right}, ticks};
}"""


# Each row's quiet words in sight (on its tail, or a phone's line of its own), their box, its newest dot's, its track's.
QUIET_AND_DOT = """() => [...document.querySelectorAll(".tl-row")].flatMap((row) => {
  const words = [...row.querySelectorAll(".tl-quiet, .tl-quiet-line")].find((q) => q.getBoundingClientRect().width > 0);
  const track = [...row.querySelectorAll(".tl-track")].find((t) => t.getBoundingClientRect().width > 0);
  if (!words || !track) return [];
  const dots = [...track.querySelectorAll(".tl-dot")].map((d) => d.getBoundingClientRect());
  const newest = dots.reduce((a, b) => (b.right > a.right ? b : a));
  const r = words.getBoundingClientRect(), t = track.getBoundingClientRect();
  return [{text: words.textContent.trim(), left: r.left, right: r.right, top: r.top,
           dot: {right: newest.right, bottom: newest.bottom}, track: {left: t.left, right: t.right}}];
})"""


@pytest.mark.parametrize("apart", [12, 150], ids=["hours", "days"])
def test_a_timeline_of_hours_says_clock_times_to_the_minute_and_the_phone_its_dots_times(
    sized_page, console_log, site, live_server, viewport, apart
):
    # Test data is made within seconds; a person's steps are minutes apart. Its steps are spread `apart` minutes
    # from each other (hours, or a day and more), newest last, the session and each run starting with their first.
    forked = two_runs_one_forked_twice()
    nodes = list(Node.objects.filter(run__session__public_id=forked.session_id).order_by("created_at", "pk"))
    newest = nodes[-1].created_at
    first = newest - timedelta(minutes=apart * (len(nodes) - 1))
    for index, node in enumerate(nodes):
        Node.objects.filter(pk=node.pk).update(created_at=first + timedelta(minutes=apart * index))
    Session.objects.filter(public_id=forked.session_id).update(created_at=first)
    for run in Run.objects.filter(session__public_id=forked.session_id):
        moments = list(Node.objects.filter(run=run).order_by("created_at").values_list("created_at", flat=True))
        # Its last activity its newest step's, as the store keeps it: a run quiet for hours reads Stalled, not
        # "Working" beside its own "no step for 5 h" (friction59a 2, 59b 11).
        Run.objects.filter(pk=run.pk).update(created_at=moments[0], updated_at=moments[-1])
    # Each answer, and each checkpoint, when the node it made was recorded, as the store records them together: the
    # steps list prints those moments (friction60a 1, 60b 1: "took 19 h" three times, all at 12:08 AM, when only
    # the nodes were moved). Only the events' times stay (the log is append-only); no page prints them.
    for table in (Output, Checkpoint):
        for pk, child in table.objects.filter(node__run__session__public_id=forked.session_id).values_list(
            "pk", "child_id"
        ):
            table.objects.filter(pk=pk).update(created_at=Node.objects.get(pk=child).created_at)
    visit(sized_page, f"{site}/sessions/{forked.session_id}/", f"timeline-{apart}")
    # The steps list and the timeline say one time for each step answered (its dot's): no two steps answered in
    # the same minute, as the steps were `apart` minutes apart.
    listed = sized_page.locator("section:has(#steps-title) .step-when time").evaluate_all(
        "ts => ts.map((t) => t.getAttribute('datetime'))"
    )
    assert listed and len(set(listed)) == len(listed), listed
    titles = sized_page.locator(".tl-rows .tl-track.wide .tl-dot title").all_text_contents()
    for moment in listed:
        assert any(f"{datetime.fromisoformat(moment).astimezone(UTC):%H:%M:%S} UTC" in t for t in titles), moment
    # Clock times without seconds, each said once (assert_axis_reads), never two a second apart (friction59 T 1).
    labels = assert_axis_reads(sized_page)
    sized_page.locator("#timeline").screenshot(
        path=str(SCREENSHOTS_DIR / f"{current_test_name()}-timeline-{apart}-alone-{viewport_name(sized_page)}.png")
    )
    assert len(labels) >= (2 if viewport == PHONE else 4), labels  # a phone's axis is a third as wide
    # A span of days says each clock time's day (on the reader's clock: times.js), so none reads twice.
    dated = re.compile(r"^([A-Z][a-z]{2} \d+|\d+ [A-Z][a-z]{2}) ")
    # A span of hours says a day only where it turns (at most once: it is under a day long), as when it is run
    # just after midnight.
    said_day = [bool(dated.match(label)) for label in labels]
    assert all(said_day) if apart > 60 else sum(said_day) <= 1, labels
    # A row quiet for longer than the session says so in full, never over or before its newest dot: on a phone on
    # a line of its own under the track (friction61a 11: "5 h·" in front of the dot it was about).
    quiet = sized_page.evaluate(QUIET_AND_DOT)
    if apart == 150:
        assert quiet, "the stalled run's row says how long it has had no step"
    for row in quiet:
        assert re.fullmatch(r"no new step for \d+ (min|h|days)", row["text"]), row
        assert row["top"] >= row["dot"]["bottom"] or row["left"] >= row["dot"]["right"], row
        assert row["left"] >= row["track"]["left"] - 1 and row["right"] <= row["track"]["right"] + 1, row
    seen = sized_page.evaluate(FIRST_DOT_AND_TICKS)
    first_tick = seen["ticks"][0]
    if viewport == PHONE:
        # A phone has no tooltip: its axis says the first step's time under the first dot (friction59 T 2).
        assert first_tick["at"] == first.isoformat(), (first_tick, first)
        assert first_tick["left"] <= seen["dot"]["right"] and first_tick["right"] >= seen["dot"]["left"], seen
    else:
        # The wide axis: round times on a regular grid (friction25b 5), none of them the first step's own moment.
        moments = [datetime.fromisoformat(tick["at"]) for tick in seen["ticks"]]
        assert len({later - earlier for earlier, later in itertools.pairwise(moments)}) == 1, seen["ticks"]
    console_log.assert_clean()


def test_a_stalled_runs_timeline_says_how_long_it_has_stood(sized_page, console_log, site, live_server, settings):
    settings.WORKRAIL_STALL_MINUTES = 30
    stalled = made.stalled()  # two nodes made at once, then nothing for 45 minutes
    visit(sized_page, f"{site}/runs/{stalled.run_id}/#timeline", "timeline-stalled")  # a link to it opens it
    row = sized_page.locator(f'.tl-row[data-run-id="{stalled.run_id}"]')
    # Its stalled dot, and the lane's key for it, in the colour of its pill, "Your move · Stalled" (friction59a 4,
    # 59b 4: a purple dot beside an orange pill read as two states).
    pill = sized_page.locator(".badge", has_text="Your move · Stalled").first.evaluate(
        "b => getComputedStyle(b).backgroundColor"
    )
    dot = row.locator(".tl-track:visible .tl-dot.dot-stalled").first.evaluate("d => getComputedStyle(d).fill")
    assert dot == pill, (dot, pill)
    # Still open, it is measured to now (friction60b 8: "under a minute" for a run stalled 45 min), never "15 ms".
    expect(row.locator(".tl-duration")).to_have_text(re.compile(r"^45\xa0min · 2 steps reached \(1 answered\)$"))
    # The Steps card above counts as the timeline does (friction13 item 3): its answered step, the pending
    # one not among them; never "1 recorded" over "2 steps".
    expect(sized_page.locator(".card-head:has(#steps-title) > .muted")).to_have_text("1 step answered")
    visible_open = row.locator(".tl-track line.tl-open").evaluate_all(
        "ls => ls.filter((l) => l.getBoundingClientRect().width > 50).length"
    )
    assert visible_open == 1  # the dashed stretch from its newest node to now
    # The summary line says how long nothing was recorded, on the wall clock, once (friction15 2): not under
    # the axis's "now" ("45 min with no step"), nor on the row's tail.
    phone = (sized_page.viewport_size or {})["width"] == PHONE.width
    expect(sized_page.locator("#timeline > summary")).to_contain_text(re.compile(r"last step 45 min ago"))
    expect(sized_page.locator("svg.tl-axis .tl-gap-words")).to_have_count(0)
    # Its row's dashed tail says it too, as every stalled row's does (friction63a 9: the 150-step run's said it,
    # this one's not): on the tail on a desktop, on a line of its own under the track on a phone.
    quiet = row.locator(".tl-quiet-line" if phone else ".tl-quiet:visible")
    expect(quiet).to_be_visible()
    expect(quiet).to_have_text("no new step for 45 min")
    # The axis's "//" is drawn across the row's line as well, where the axis's is (friction63b 6: the row's line ran
    # whole through the break).
    marks = sized_page.evaluate(
        """(id) => [document.querySelector("svg.tl-axis svg.tl-break path"),
        ...document.querySelectorAll(`.tl-row[data-run-id="${id}"] .tl-track svg.tl-break path`)]
      .map((p) => p.getBoundingClientRect()).filter((r) => r.width > 0).map((r) => [r.left, r.right])""",
        stalled.run_id,
    )
    assert len(marks) == 2 and abs(marks[0][0] - marks[1][0]) < 1 and abs(marks[0][1] - marks[1][1]) < 1, marks
    dots = row.locator(".tl-track:visible .tl-dot").evaluate_all("ds => ds.map((d) => d.getBoundingClientRect().right)")
    # Its two steps came at once: their dots stand close (friction60a 10: ~600 px apart), on a scale of minutes that
    # the axis labels twice at least, then the quiet stretch is a gap that ends in "now", after a break.
    track = row.locator(".tl-track:visible").bounding_box()
    assert track is not None and max(dots) - min(dots) < 40, (dots, track)
    now = sized_page.locator("svg.tl-axis .tl-now")
    expect(now).to_have_text("now")
    expect(sized_page.locator("svg.tl-axis svg.tl-break")).to_have_count(1)
    now_box = now.bounding_box()
    assert (
        now_box is not None
        and now_box["x"] > max(dots)
        and now_box["x"] + now_box["width"] <= track["x"] + track["width"] + 1
    )
    shown = sized_page.evaluate(SHOWN_TICKS)[0]["ticks"]
    assert len(shown) >= 2 and all(tick["right"] + 2 <= now_box["x"] for tick in shown), (shown, now_box)
    assert_axis_reads(sized_page)
    if phone:
        # Squeezed to the timeline's width on the narrowest phones (320 px), every tick shown: labels that would
        # touch are left out (times.js), the others stay apart and on the axis.
        sized_page.evaluate("""() => {
          document.querySelector(".timeline").style.width = "270px";
          document.querySelectorAll("svg.tl-axis .wide-only").forEach((el) => el.classList.remove("wide-only"));
          window.dispatchEvent(new Event("resize"));
          return new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)));
        }""")
        assert_axis_reads(sized_page)  # never the same time twice (friction21a 3), nor two a second apart
    console_log.assert_clean()


def test_catalog_cards_are_compact_on_a_phone(sized_page, console_log, site, service_catalog, live_server, viewport):
    visit(sized_page, site + "/workflows/", "catalog-compact")
    rows = sized_page.locator("table.catalog tbody tr")
    heights = rows.evaluate_all("rs => rs.map((r) => r.getBoundingClientRect().height)")
    assert len(heights) >= 4
    if viewport == PHONE:
        assert max(heights) <= PHONE.height / 4, heights  # four cards or more to a screen
        # Kind, Source and Steps on one muted line, without their column names.
        first = rows.first
        tops = first.locator("td:not(.workflow-cell)").evaluate_all(
            "tds => tds.map((td) => Math.round(td.getClientRects()[0].top))"
        )
        assert len(set(tops)) == 1, tops
        before = first.locator("td:not(.workflow-cell)").first.evaluate(
            "td => getComputedStyle(td, '::before').content"
        )
        assert before in ("none", "normal"), before
        # The search box and its button on one line under the label.
        box = sized_page.locator("#workflow-query").bounding_box()
        button = sized_page.locator("form.filters[role=search] button").bounding_box()
        assert box is not None and button is not None and abs(box["y"] - button["y"]) < box["height"], (box, button)
        # Each card's copy button in one place: its own line under the tags, at the card's left (friction13 9).
        places = rows.evaluate_all(
            """rs => rs.map((r) => {
              const b = r.querySelector("button.copy-button"), tags = r.querySelector(".row-tags");
              const cell = r.querySelector("td.workflow-cell").getBoundingClientRect();
              if (!b || !b.checkVisibility()) return null;
              const box = b.getBoundingClientRect();
              return [Math.round(box.left - cell.left), !tags || box.top >= tags.getBoundingClientRect().bottom - 1];
            }).filter((p) => p)"""
        )
        assert places and all(p == places[0] for p in places) and places[0][1], places
    else:
        # On a wide screen at the right end of each row's tags line, whatever its tags (friction13 9).
        rights = rows.locator("button.copy-button").evaluate_all(
            "bs => bs.map((b) => Math.round(b.getBoundingClientRect().right))"
        )
        assert len(set(rights)) == 1, rights
    # A copy button repeated on each card is the quiet outline level: the name is the strongest element.
    quiet = rows.locator("button.copy-button").evaluate_all("bs => bs.every((b) => b.classList.contains('copy-quiet'))")
    assert quiet
    console_log.assert_clean()


def test_findings_use_the_cards_width_on_a_phone(sized_page, console_log, site, live_server, service_catalog, viewport):
    built = two_runs_one_forked_twice()
    visit(sized_page, f"{site}/runs/{built.review_run}/", "findings-width")
    # A critical finding: open from the start (friction18a 24), no click needed to read it, on a phone too: the
    # most severe there, the rest behind one line (friction26b 18, 60b 9).
    fold = sized_page.locator("#findings-fold")
    expect(fold).to_have_attribute("open", "")
    table = sized_page.locator("section[aria-labelledby=findings-title] table.findings")
    finding = table.locator("tbody tr").first.locator("td").nth(1)
    title = finding.locator(".finding-title")
    expect(title).to_be_visible()
    if viewport == PHONE:
        box, text = table.bounding_box(), title.bounding_box()
        assert box is not None and text is not None
        assert text["x"] - box["x"] < 12, (box, text)  # no column of names beside it
        comment = table.locator("tbody tr").first.locator("td").nth(2)
        label = comment.evaluate("td => getComputedStyle(td, '::before').display")
        assert label == "block"  # the review comment's name sits above it
    console_log.assert_clean()


def test_on_a_phone_the_shown_run_is_said_once_not_in_the_runs_list_and_its_card(
    sized_page, console_log, site, live_server, service_catalog, viewport
):
    """friction32 1: on a phone the runs list sits straight above the shown run's card, and its row said the
    card's name, pill and where-words again. There the row says its name, marked "shown below", the card the
    rest; on a desktop the rail beside the card keeps every row's shape."""
    built = two_runs_one_forked_twice()
    visit(sized_page, f"{site}/sessions/{built.session_id}/", "shown-run-once")
    shown = sized_page.locator(".runs-nav a.run-link[aria-current=page]")
    other = sized_page.locator(".runs-nav a.run-link:not([aria-current])")
    expect(shown).to_have_count(1)
    expect(other).to_have_count(1)
    card_where = sized_page.locator("#run-status #run-where").inner_text()
    row_where = shown.locator(".run-summary").text_content() or ""
    assert row_where.strip() and row_where.strip() in card_where, (row_where, card_where)
    pills = sized_page.locator(".runs-nav .badge[data-move], #run-status .badge[data-move]").filter(visible=True)
    if viewport == PHONE:
        assert re.fullmatch(r"\s*Focused Plan Routine\s+shown below\s*", shown.inner_text()), shown.inner_text()
        for part in (".badge", ".run-summary", ".run-branches"):
            expect(shown.locator(part)).to_be_hidden()
        # One pill per run on the screen, and the shown run's where-words read once (the card's).
        expect(pills).to_have_count(2)
        said = sized_page.locator(".runs-nav, #run-status").filter(visible=True).all_inner_texts()
        assert " ".join(said).count(row_where.strip()) == 1, said
        # The mark sits on the name's line, and the card follows the list.
        name, mark = shown.locator(".run-name").bounding_box(), shown.locator(".run-shown").bounding_box()
        card = sized_page.locator("section[aria-labelledby=run-title]").bounding_box()
        assert name and mark and card and abs(name["y"] - mark["y"]) < 6 and card["y"] > mark["y"], (name, mark)
    else:
        # The rail beside the card: every row its name, pill and where-words; no "shown below" (it is beside).
        expect(shown.locator(".run-shown")).to_be_hidden()
        expect(shown.locator(".badge")).to_be_visible()
        expect(shown.locator(".run-summary")).to_be_visible()
        # Its where-words short, the step's place alone: the card beside names the step in full (friction64: the
        # step said three times on a desktop, the row, the card's head and the progress strip).
        assert re.fullmatch(r"step \d+ of \d+", row_where.strip()), row_where
        expect(pills).to_have_count(3)
        # Each row's branch count on a line of its own under its pill, "3 branches" and "1 branch" alike
        # (friction62b 14: one beside the pill, the other under it).
        for row in (shown, other):
            pill, count = row.locator(".badge").bounding_box(), row.locator(".run-branches").bounding_box()
            assert pill and count and count["y"] >= pill["y"] + pill["height"] - 1, (pill, count)
    # The other run's row keeps its pill and where-words at every size.
    expect(other.locator(".badge")).to_be_visible()
    expect(other.locator(".run-summary")).to_be_visible()
    console_log.assert_clean()


def _shift(session_id: str, by: timedelta) -> None:
    """Every recorded moment of a session `by` earlier, as if it had been walked then."""
    for model in (Output, Checkpoint):
        model.objects.filter(node__run__session__public_id=session_id).update(created_at=F("created_at") - by)
    Node.objects.filter(run__session__public_id=session_id).update(created_at=F("created_at") - by)
    Run.objects.filter(session__public_id=session_id).update(created_at=F("created_at") - by)
    Session.objects.filter(public_id=session_id).update(created_at=F("created_at") - by)


# Each shown track's span line's left end, its first dot's left edge, and its row's run id.
ROW_STARTS = """() => [...document.querySelectorAll(".tl-row")].map((row) => {
  const track = [...row.querySelectorAll(".tl-track")].find((t) => t.getBoundingClientRect().width > 0);
  const dots = [...track.querySelectorAll(".tl-dot")].map((d) => d.getBoundingClientRect().left);
  return {run: row.dataset.runId, line: track.querySelector("line.tl-span").getBoundingClientRect().left,
          dot: Math.min(...dots), duration: row.querySelector(".tl-duration").textContent};
})"""


def test_a_short_session_is_zoomed_and_its_checkpoint_is_a_diamond(sized_page, console_log, site, live_server):
    # Friction61a 3, 61b 6: a session walked within a minute had one tick and a long line to "now", read as idle
    # for long; its numbered "Answered" dot "10" held a checkpoint, which the graph draws as a ◆.
    built = two_runs_one_forked_twice()
    _shift(built.session_id, timedelta(seconds=40))  # walked 40 s ago: "last step just now"
    visit(sized_page, f"{site}/sessions/{built.session_id}/#timeline", "timeline-zoomed")
    expect(sized_page.locator("#timeline > summary")).to_contain_text("last step just now")
    labels = assert_axis_reads(sized_page)
    # To the second, so that 40 s reads as 40 s ("2:34:10 AM"); a wide axis at least two ticks, not one tick and a
    # line. A phone's axis names the dots' own moments (time_axis.dot_ticks): dots made within a second or two of
    # each other stand too close for a second label, as fast as the test machine built them.
    assert len(labels) >= (1 if viewport_name(sized_page) == "phone" else 2), labels
    assert all(re.search(r"\d:\d\d:\d\d", label) for label in labels), labels
    # The checkpoint a ◆ of its own, in the track and the row's key, never in a numbered dot's count.
    expect(sized_page.locator(".tl-track:visible path.tl-checkpoint")).to_have_count(1)
    row = sized_page.locator(f'.tl-row[data-run-id="{built.review_run}"]')
    expect(row.locator(".tl-states li:has(.tl-key-checkpoint)")).to_have_text("Checkpoint")
    names = sized_page.locator(".tl-track:visible a.tl-group").evaluate_all("gs => gs.map((g) => g.ariaLabel)")
    assert names and not any("checkpoint" in name.split(":")[0] for name in names), names
    console_log.assert_clean()


def test_each_row_starts_where_its_run_started(sized_page, console_log, site, live_server):
    # Friction61a (false 2): a run card said "started 50 min ago", its row "under a minute" from its first dot.
    built = two_runs_one_forked_twice()
    Run.objects.filter(public_id=built.plan_run).update(created_at=F("created_at") - timedelta(minutes=30))
    Session.objects.filter(public_id=built.session_id).update(created_at=F("created_at") - timedelta(minutes=30))
    # The sibling run walked 20 min ago: every moment it records moved alike, its last activity too, so its
    # picture says "Working" beside "no step for 20 min", inside the 30-minute rule (r62: its nodes alone moved
    # 30 min back showed "Working" beside "no step for 30 min", and a first step before its first answer's hour).
    walked = timedelta(minutes=20)
    Run.objects.filter(public_id=built.review_run).update(
        created_at=F("created_at") - timedelta(minutes=30), updated_at=F("updated_at") - walked
    )
    Node.objects.filter(run__public_id=built.review_run).update(created_at=F("created_at") - walked)
    for model in (Output, Checkpoint):
        model.objects.filter(node__run__public_id=built.review_run).update(created_at=F("created_at") - walked)
    visit(sized_page, f"{site}/runs/{built.plan_run}/#timeline", "timeline-run-starts")
    expect(sized_page.locator("#run-started")).to_have_text("started 30 min ago")
    rows = {row["run"]: row for row in sized_page.evaluate(ROW_STARTS)}
    plan = rows[built.plan_run]
    assert plan["line"] < plan["dot"] - 100, plan  # its line from its run's start, well before its first dot
    assert plan["duration"].startswith("30\xa0min"), plan  # as its card says
    # The review's row, Working, says "no new step" for its 20 quiet minutes; nothing recorded since, so no more.
    quiet = [row["text"] for row in sized_page.evaluate(QUIET_AND_DOT)]
    assert quiet == ["no new step for 20 min"], quiet
    pill = sized_page.locator(f'a.run-link[data-run-id="{built.review_run}"] .badge').first
    expect(pill).to_have_text(re.compile("Working"))
    # The quiet stretch before the activity is cut out: the axis's "//" is drawn on both rows' lines too, where the
    # axis's is (friction63b 6: the rows' lines ran whole through the break).
    marks = sized_page.evaluate("""() => [document.querySelector("svg.tl-axis svg.tl-break path"),
        ...document.querySelectorAll(".tl-rows .tl-track svg.tl-break path")]
      .map((p) => p.getBoundingClientRect()).filter((r) => r.width > 0).map((r) => r.left)""")
    assert len(marks) == 3 and max(marks) - min(marks) < 1, marks
    console_log.assert_clean()
