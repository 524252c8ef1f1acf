"""Layout checks for the dashboard at the two screen sizes every page must serve.

`VIEWPORTS`: a desktop (1440x900) and a phone (390x844). The `viewport` fixture (conftest.py) runs a test
once per size and `sized_page` is the `page` fixture set to it.

`assert_fits(page)` fails, naming each offending element by a CSS selector, when the page is wider than
the window (it scrolls sideways), an element reaches past the window's edge, a box scrolls sideways (a
table behind a sideways scroll), or a box with hidden overflow cuts off its text (unless it ends in an
ellipsis and carries the whole text in its title). Boxes that are meant to
scroll sideways (code blocks) are allowed; pass `scrolls=` to allow others.

`keep_screenshot(page, name)` saves a full-page PNG as test-artifacts/screenshots/<test>-<name>-<size>.png
(the folder is git-ignored), for a person to look at both sizes side by side.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.browser import screenshot


@dataclass(frozen=True)
class Viewport:
    name: str
    width: int
    height: int

    @property
    def size(self) -> dict[str, int]:
        return {"width": self.width, "height": self.height}


DESKTOP = Viewport("desktop", 1440, 900)
PHONE = Viewport("phone", 390, 844)
VIEWPORTS = (DESKTOP, PHONE)

# Boxes whose sideways scroll is the design: code and tokens keep their lines. (The top menu, the branch
# graph and the timeline fit their boxes at every size: they are checked like the rest.)
SCROLLS_SIDEWAYS = ("pre",)

# One pass over the document, in the page. Returns a list of problems, each "selector: what is wrong".
FIT_SCRIPT = """
(allowed) => {
  const vw = document.documentElement.clientWidth;
  const problems = [];
  const sticksOut = new Set();  // elements reaching past the window: only the outermost is reported
  const describe = (el) => {
    const parts = [];
    for (let node = el; node && node.nodeType === 1 && parts.length < 5; node = node.parentElement) {
      let part = node.localName;
      if (node.id) { parts.unshift(part + "#" + CSS.escape(node.id)); break; }
      const classes = [...node.classList].slice(0, 2).map((c) => "." + CSS.escape(c)).join("");
      part += classes;
      const parent = node.parentElement;
      if (parent) {
        const same = [...parent.children].filter((c) => c.localName === node.localName);
        if (same.length > 1) part += `:nth-of-type(${same.indexOf(node) + 1})`;
      }
      parts.unshift(part);
      if (node.localName === "body") break;
    }
    const text = (el.innerText || el.textContent || "").trim().replace(/\\s+/g, " ").slice(0, 40);
    return parts.join(" > ") + (text ? ` ("${text}")` : "");
  };
  const isAllowed = (el) => allowed.some((sel) => el.matches(sel));
  const visible = (el, rect) => {
    if (rect.width <= 1 || rect.height <= 1) return false;  // .visually-hidden and the like
    const style = getComputedStyle(el);
    return style.visibility !== "hidden" && style.display !== "none";
  };
  const clipsX = (style) => style.overflowX !== "visible";
  // Whether an ancestor (below <body>) clips or scrolls el sideways: then that box answers for it.
  const insideBox = (el) => {
    for (let node = el.parentElement; node && node !== document.body; node = node.parentElement) {
      if (clipsX(getComputedStyle(node))) return true;
    }
    return false;
  };
  if (document.documentElement.scrollWidth > vw + 1) {
    problems.push(`the page is ${document.documentElement.scrollWidth}px wide in a ${vw}px window`);
  }
  for (const el of document.body.querySelectorAll("*")) {
    const rect = el.getBoundingClientRect();
    if (!visible(el, rect)) continue;
    const style = getComputedStyle(el);
    const overflowing = el.scrollWidth > el.clientWidth + 1;
    // Text cut short on purpose: an ellipsis, the whole text in the element's title (a tooltip).
    // A folded step's answer cut to its first line: the whole answer is a tap away, in its fold (friction18a 17).
    const shortened = style.textOverflow === "ellipsis" && ((el.title || "").includes((el.textContent || "").trim())
      || el.classList.contains("step-gist"));
    if (clipsX(style) && overflowing && !isAllowed(el) && el.clientWidth > 0 && !shortened) {
      const scrolls = style.overflowX === "auto" || style.overflowX === "scroll";
      if (scrolls) {
        problems.push(`${describe(el)}: scrolls sideways (${el.scrollWidth}px in ${el.clientWidth}px)`);
      } else if ((el.textContent || "").trim()) {
        problems.push(`${describe(el)}: clips its text (${el.scrollWidth}px in ${el.clientWidth}px)`);
      }
    }
    if (rect.right <= 0 || (style.position === "absolute" && rect.right < 1)) continue;  // a skip link
    if ((rect.right > vw + 1 || rect.left < -1 || rect.width > vw + 1) && !insideBox(el)) {
      if (el.parentElement && sticksOut.has(el.parentElement)) { sticksOut.add(el); continue; }  // said once
      sticksOut.add(el);
      problems.push(
        `${describe(el)}: spans ${Math.round(rect.left)}..${Math.round(rect.right)}px in a ${vw}px window`
      );
    }
  }
  return problems;
}
"""


def fit_problems(page: Any, *, scrolls: tuple[str, ...] = ()) -> list[str]:
    """What `assert_fits` would complain about, as a list (empty when the page fits)."""
    return list(page.evaluate(FIT_SCRIPT, [*SCROLLS_SIDEWAYS, *scrolls]))


def assert_fits(page: Any, *, scrolls: tuple[str, ...] = ()) -> None:
    """The page fits its window: no sideways scroll, no element past the edge, no clipped text.

    `scrolls`: CSS selectors of further boxes allowed to scroll sideways (beyond code and the graph)."""
    problems = fit_problems(page, scrolls=scrolls)
    size = page.viewport_size or {}
    where = f"{page.url} at {size.get('width')}x{size.get('height')}"
    shown = problems[:25] + ([f"... and {len(problems) - 25} more"] if len(problems) > 25 else [])
    assert not problems, f"{where} does not fit:\n  " + "\n  ".join(shown)


def viewport_name(page: Any) -> str:
    size = page.viewport_size or {}
    for viewport in VIEWPORTS:
        if viewport.width == size.get("width") and viewport.height == size.get("height"):
            return viewport.name
    return f"{size.get('width')}x{size.get('height')}"


def current_test_name() -> str:
    """The running test's function name without its parameters ("test_sessions_page")."""
    current = os.environ.get("PYTEST_CURRENT_TEST", "test").split(" ")[0]
    return current.split("::")[-1].split("[")[0]


def keep_screenshot(page: Any, name: str) -> Path:
    """Saves a full-page PNG named by the test, `name` and the window size; returns its path."""
    return screenshot(page, f"{current_test_name()}-{name}-{viewport_name(page)}")


# What the status beside a copy button says once a message for an agent is copied, where the page knows no client:
# that it is copied, nothing the panel's own line says (copy.js; friction28b 1).
PASTE_NEXT = "Copied."


def visit(page: Any, url: str, name: str) -> None:
    """Opens `url`, keeps its screenshot under `name` and checks that it fits the window and that its copy
    buttons all look one way, each with its words on one line inside its row."""
    page.goto(url)
    page.wait_for_load_state("networkidle")
    keep_screenshot(page, name)
    assert_fits(page)
    assert_one_copy_look(page)
    assert_copy_buttons_whole(page)


# Every copy button on a page: each carries the class copy-button and is one of its two levels, one rule
# (friction13 item 9, after friction12 item 9's one style): solid for a panel's single primary action, the quiet
# outline (copy-quiet) for one repeated on each row of a list. Both levels share one size and shape, each level
# one paint, and the copy buttons of one list (a table, a list, a definition list) are all alike, quiet. A Share
# beside its copy button (copy.js) is an icon, narrower than words need: its sides are left out of the size. A
# button that is off is painted as every button that is off (friction28b 9): left out of the paints.
COPY_LOOK_SCRIPT = """
() => {
  const buttons = [...new Set([...document.querySelectorAll(
    "button[data-copy-target], button[data-copy-with-password], button.copy-button"
  )].concat([...document.querySelectorAll("button")].filter((b) => /^copy\\b/i.test(b.textContent.trim()))))];
  const unclassed = buttons.filter((b) => !b.classList.contains("copy-button"));
  const shown = buttons.filter((b) => b.checkVisibility());
  const shape = (b) => {
    const s = getComputedStyle(b);
    const side = b.classList.contains("share-button") ? "" : s.paddingLeft;
    return [s.fontSize, s.paddingTop, s.borderTopWidth, s.borderTopLeftRadius].join(" ") + (side && " " + side);
  };
  const paint = (b) => {
    const s = getComputedStyle(b);
    const level = b.classList.contains("copy-quiet") ? "quiet" : "solid";
    return [level, s.fontWeight, s.backgroundColor, s.borderTopColor].join(" ");
  };
  const lists = new Map();
  for (const b of shown) {
    const list = b.closest("table, ul, ol, dl");
    if (list) lists.set(list, (lists.get(list) || []).concat([b]));
  }
  const repeated = [...lists.values()].filter((bs) => bs.length > 1).flat();
  const loud = repeated.filter((b) => !b.classList.contains("copy-quiet"));
  return {
    unclassed: unclassed.map((b) => b.textContent.trim()),
    shapes: [...new Set(shown.filter((b) => !b.classList.contains("share-button")).map(shape))],
    icon_shapes: [...new Set(shown.filter((b) => b.classList.contains("share-button")).map(shape))],
    paints: [...new Set(shown.filter((b) => !b.disabled).map(paint))],  // one that is off has every button's off look
    loud_in_lists: loud.map((b) => b.textContent.trim()),
  };
}
"""


def assert_one_copy_look(page: Any) -> None:
    found = page.evaluate(COPY_LOOK_SCRIPT)
    assert not found["unclassed"], f"{page.url}: copy buttons without the copy-button class: {found['unclassed']}"
    assert len(found["shapes"]) <= 1, f"{page.url}: copy buttons in {len(found['shapes'])} sizes: {found['shapes']}"
    assert all(icon in {s.rsplit(" ", 1)[0] for s in found["shapes"]} for icon in found["icon_shapes"]), (
        f"{page.url}: a Share icon in another size than its copy buttons: {found['icon_shapes']}"
    )
    assert len(found["paints"]) <= 2, f"{page.url}: copy buttons in {len(found['paints'])} paints: {found['paints']}"
    assert len({p.split(" ")[0] for p in found["paints"]}) == len(found["paints"]), (
        f"{page.url}: one level of copy button in two paints: {found['paints']}"
    )
    assert not found["loud_in_lists"], (
        f"{page.url}: solid copy buttons repeated down a list, not the quiet level: {found['loud_in_lists']}"
    )


# The copy buttons shown whose words break over two lines though their row has room for them on one (its
# whole width, what sits beside them moving under them), or that stick out of their row: "Copy the message /
# for the agent" read as two buttons on a phone (r41-view2, friction12 item 9). A phone's Share stacks its word
# under its icon on purpose (friction26a 19): that is not words broken, but it must stay inside its row too.
COPY_WHOLE_SCRIPT = """
() => [...document.querySelectorAll("button.copy-button")].filter((b) => b.checkVisibility()).filter((b) => {
  const s = getComputedStyle(b);
  const stacked = b.classList.contains("share-button") && s.flexDirection === "column";
  const r = b.getBoundingClientRect();
  const inner = r.height - parseFloat(s.paddingTop) - parseFloat(s.paddingBottom)
    - parseFloat(s.borderTopWidth) - parseFloat(s.borderBottomWidth);
  const row = b.parentElement;
  const rs = getComputedStyle(row);
  const rowBox = row.getBoundingClientRect();
  const right = rowBox.right - parseFloat(rs.paddingRight) - parseFloat(rs.borderRightWidth);
  const room = right - (rowBox.left + parseFloat(rs.paddingLeft) + parseFloat(rs.borderLeftWidth));
  const kept = b.style.whiteSpace;
  b.style.whiteSpace = "nowrap";
  const needs = b.getBoundingClientRect().width;
  b.style.whiteSpace = kept;
  const wraps = inner >= 1.5 * parseFloat(s.lineHeight);
  return (wraps && needs <= room && !stacked) || r.right > right + 0.5;
}).map((b) => b.textContent.trim())
"""


def assert_copy_buttons_whole(page: Any) -> None:
    """Every copy button shown keeps its words on one line when its row has room for them, and stays inside
    its row."""
    broken = page.evaluate(COPY_WHOLE_SCRIPT)
    assert not broken, (
        f"{page.url}: copy buttons broken over two lines with room for one, or out of their row: {broken}"
    )


# The text a person sees: every text node with a box bigger than a pixel (not folded, hidden, or visually
# hidden for screen readers), outside the elements matched by `skip`, joined by spaces.
VISIBLE_TEXT_SCRIPT = """
(skip) => {
  const parts = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const text = node.textContent.trim();
    const parent = node.parentElement;
    if (!text || !parent || skip.some((sel) => parent.closest(sel))) continue;
    if (parent.closest("script, style, title, template, .visually-hidden")) continue;
    const range = document.createRange();
    range.selectNodeContents(node);
    const rect = range.getBoundingClientRect();
    if (rect.width > 1 && rect.height > 1 && parent.checkVisibility({ visibilityProperty: true })) parts.push(text);
  }
  return parts.join(" ").replace(/\\s+/g, " ");
}
"""


def visible_text(page: Any, *, skip: tuple[str, ...] = ()) -> str:
    """What a person reads on the page (see VISIBLE_TEXT_SCRIPT), leaving out the elements matched by `skip`."""
    return str(page.evaluate(VISIBLE_TEXT_SCRIPT, list(skip)))


def css_colour(page: Any, variable: str) -> str:
    """A stylesheet colour variable ("--warn") as the browser computes it ("rgb(…)"), to compare with an
    element's computed colour."""
    return page.evaluate(
        """(name) => { const e = document.createElement('i'); e.style.color = `var(${name})`;
           document.body.append(e); const c = getComputedStyle(e).color; e.remove(); return c; }""",
        variable,
    )


def on_one_line(locator: Any) -> bool:
    """Whether an element's text sits on one line: its height, borders and padding aside, under 1.5 lines."""
    return bool(
        locator.evaluate(
            "e => { const s = getComputedStyle(e); const inner = e.getBoundingClientRect().height"
            " - parseFloat(s.paddingTop) - parseFloat(s.paddingBottom)"
            " - parseFloat(s.borderTopWidth) - parseFloat(s.borderBottomWidth);"
            " return inner < 1.5 * parseFloat(s.lineHeight) }"
        )
    )


# Every "·" a template puts between two pieces of a line that starts that line or ends it (friction16a 15,
# friction16b 8): measured from the text's layout, each "·" against the nearest visible character before and after
# it on the same lines, in another text; a "·" whose neighbour sits on another line is orphaned. Each is named
# by its text.
SEPARATOR_ORPHANS_SCRIPT = """
() => {
  // The box whose lines the character is laid out on: its nearest block that is not an item of a flex or grid
  // row (a flex item's text sits on the row's lines, beside its siblings).
  const blockOf = (node) => {
    for (let e = node.parentElement; e; e = e.parentElement) {
      const d = getComputedStyle(e).display;
      const parent = e.parentElement ? getComputedStyle(e.parentElement).display : "block";
      if (!d.startsWith("inline") && d !== "contents" && !/flex|grid/.test(parent)) return e;
    }
    return document.body;
  };
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  const chars = [];
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const p = n.parentElement;
    if (!p || !p.checkVisibility() || p.closest("script, style, svg, pre, title")) continue;
    const block = blockOf(n);
    for (let i = 0; i < n.data.length; i++) {
      if (/\\s/.test(n.data[i])) continue;
      const r = document.createRange(); r.setStart(n, i); r.setEnd(n, i + 1);
      const box = r.getBoundingClientRect();
      if (box.width === 0 && box.height === 0) continue;
      const mid = box.top + box.height / 2;
      chars.push({c: n.data[i], node: n, block, mid, top: box.top, bottom: box.bottom, text: n.data});
    }
  }
  const orphans = [];
  chars.forEach((ch, i) => {
    if (ch.c !== "·") return;
    for (const other of [chars[i - 1], chars[i + 1]]) {
      // Between two pieces of markup only: a "·" inside one text a read model joined ("Branch 2 · Review
      // storage · step 4 of 8") wraps as that text does (not yet glued).
      if (!other || other.block !== ch.block || other.node === ch.node) continue;
      if (other.mid < ch.top || other.mid > ch.bottom) { orphans.push(ch.text.trim().slice(0, 60)); return; }
    }
  });
  // A "·" a stylesheet draws before an item (`li + li::before`) is no text node: it is orphaned when its item
  // starts a line of its block (friction17a 5: "· created …" on a phone).
  for (const e of document.body.querySelectorAll("*")) {
    if (!(getComputedStyle(e, "::before").content || "").includes("·") || !e.checkVisibility()) continue;
    const first = e.getClientRects()[0];
    if (!first) continue;
    const block = blockOf(e.firstChild || e), b = block.getBoundingClientRect(), bs = getComputedStyle(block);
    const left = b.left + parseFloat(bs.borderLeftWidth) + parseFloat(bs.paddingLeft);
    if (first.left <= left + 2) orphans.push(("· " + (e.textContent || "")).trim().slice(0, 60));
  }
  return orphans;
}
"""


def separator_orphans(page: Any) -> list[str]:
    """The texts around each "·" that starts or ends a line on the page (empty when none does)."""
    return list(page.evaluate(SEPARATOR_ORPHANS_SCRIPT))


# A fold's marker (its summary's ::before) against its heading (friction22a A6): [the heading's font size,
# its weight, the marker's drawn height], in px. The marker is as tall as the heading's capitals.
FOLD_MARK = """(summary) => {
  const heading = summary.querySelector("h2, h3"), mark = getComputedStyle(summary, "::before");
  const s = getComputedStyle(heading);
  return [parseFloat(s.fontSize), s.fontWeight, mark.content === "none" ? 0 : parseFloat(mark.height)];
}"""


def assert_fold_mark_fits(page: Any, summary: str, open_heading: str) -> None:
    """The fold `summary` heads its section at the size and weight of the open card heading `open_heading`,
    with a marker as tall as its capitals (not a small glyph beside a big heading, nor louder than it)."""
    size, weight, mark = page.locator(summary).evaluate(FOLD_MARK)
    other = page.locator(open_heading).first.evaluate(
        "h => [parseFloat(getComputedStyle(h).fontSize), getComputedStyle(h).fontWeight]"
    )
    assert [size, weight] == other, (summary, [size, weight], open_heading, other)
    assert 0.6 * size <= mark <= 0.8 * size, (summary, mark, size)


def contrast(first: str, second: str) -> float:
    """The WCAG contrast ratio of two computed "rgb(r, g, b)" colours."""

    def luminance(rgb: str) -> float:
        channels = [int(c) / 255 for c in re.findall(r"\d+", rgb)[:3]]
        r, g, b = (c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels)
        return 0.2126 * r + 0.7152 * g + 0.0722 * b

    light, dark = sorted((luminance(first), luminance(second)), reverse=True)
    return (light + 0.05) / (dark + 0.05)
