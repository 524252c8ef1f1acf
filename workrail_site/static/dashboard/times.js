/* Times in the reader's own time zone.
 *
 * The server prints every moment as <time datetime="ISO 8601, UTC" data-when="FORM" title="... UTC">
 * (runs/templatetags/dashboard.py, the `when` tag): in UTC, which is what a page without scripts shows. This
 * script rewrites the text of each such element in the browser's time zone, by the dashboard's one rule
 * (docs/dashboard.md, "Times"):
 *   time     the day and the clock, no seconds: "28 Nov, 14:05" ("Nov 28, 2:05 PM" in en-US), with the year
 *            when it is not this one: where a page tells when something happened;
 *   ago      how long ago within the last day, "just now", "5 min ago", "3 h ago", then as `time`: where a
 *            list or a status line says how fresh something is;
 *   both     "28 Nov, 14:05 (5 min ago)";
 *   clock    "14:05, 5 min ago", the day only when it is not today ("27 Nov, 14:05"): where a person picks one
 *            of their chats by when it started;
 *   seconds  as `time`, to the second: the timings page only;
 *   for      how long since: "for 2 min", "for 3 h" (how long a state has lasted: "stalled for 45 min");
 *   in       how long until a moment ahead: "in 28 min", "now" once it has come ("your move in 28 min").
 * The tooltip says the exact moment: the local one with its zone, how long ago for a `time`, then UTC. Nothing
 * here reads the text it wrote: each pass starts again from the datetime attribute, so running it twice
 * changes nothing.
 *
 * It runs at load, every 30 s (relative times age), and on content a live update brought (live.js calls
 * `workrailTimes.format` on the fresh page before it compares it with the shown one, so that a region is
 * only replaced when something in it changed). Intl.DateTimeFormat only.
 */
(function () {
  "use strict";

  var REFRESH_MS = 30000;
  var DAY_MS = 86400000;

  /* The reader's locale when it is in the page's language (en-GB: "3 Nov", 24-hour clock; en-US:
     "Nov 3", "2:05 PM"), else the page's language: the words around the times are English. */
  function pickLocale() {
    var page = (document.documentElement.lang || "en").toLowerCase();
    var wanted = (navigator.languages && navigator.languages.length ? navigator.languages : [navigator.language]) || [];
    for (var i = 0; i < wanted.length; i += 1) {
      if (wanted[i] && wanted[i].toLowerCase().split("-")[0] === page.split("-")[0]) return wanted[i];
    }
    return page;
  }

  var locale = pickLocale();
  var dayMonth = new Intl.DateTimeFormat(locale, { day: "numeric", month: "short" });
  var exact = new Intl.DateTimeFormat(locale, {
    year: "numeric", month: "short", day: "numeric",
    hour: "numeric", minute: "2-digit", second: "2-digit", timeZoneName: "short",
  });
  var clockOnly = new Intl.DateTimeFormat(locale, { hour: "numeric", minute: "2-digit" });
  var clockSeconds = new Intl.DateTimeFormat(locale, { hour: "numeric", minute: "2-digit", second: "2-digit" });
  var zone = new Intl.DateTimeFormat().resolvedOptions().timeZone || "";
  var localIsUtc = zone === "UTC" || zone === "Etc/UTC";
  var RELATIVE_FOR_S = 86400 - 1800; // "24 h ago" is a day: said by the day and the clock (the server's ago)

  /* Calendar days from `moment` to `now` in the local time zone (0: today, 1: yesterday). */
  function daysBetween(moment, now) {
    var a = new Date(moment.getFullYear(), moment.getMonth(), moment.getDate());
    var b = new Date(now.getFullYear(), now.getMonth(), now.getDate());
    return Math.round((b - a) / DAY_MS);
  }

  /* The day and the clock ("28 Nov, 14:05"), the year only when it is not this one, seconds only when asked. */
  var dayClocks = {};
  function dayClock(moment, now, seconds) {
    var year = moment.getFullYear() !== now.getFullYear();
    var key = (year ? "y" : "") + (seconds ? "s" : "");
    if (!dayClocks[key]) {
      var options = { day: "numeric", month: "short", hour: "numeric", minute: "2-digit" };
      if (year) options.year = "numeric";
      if (seconds) options.second = "2-digit";
      dayClocks[key] = new Intl.DateTimeFormat(locale, options);
    }
    return dayClocks[key].format(moment);
  }

  /* How long ago within the last day, in the server's words ("5 min ago"), or null past it. */
  function ago(moment, now) {
    var seconds = (now - moment) / 1000;
    if (seconds < 45) return "just now"; // also a moment a little ahead: the clocks differ
    if (seconds < 3600) return Math.max(1, Math.round(seconds / 60)) + " min ago";
    if (seconds < RELATIVE_FOR_S) return Math.round(seconds / 3600) + " h ago";
    return null;
  }

  function utc(moment) {
    var iso = moment.toISOString();
    return iso.slice(0, 10) + " " + iso.slice(11, 19) + " UTC";
  }

  /* How long since `moment`, in whole units, as the server's `when` says it: the words flow with their line,
     a number held to its unit by a no-break space (time_axis.NUMBER_UNIT). */
  function lasting(moment, now) {
    var seconds = Math.max(0, (now - moment) / 1000);
    if (seconds < 60) return "for under a minute";
    if (seconds < 3600) return "for " + Math.floor(seconds / 60) + "\u00a0min";
    if (seconds < 172800) return "for " + Math.floor(seconds / 3600) + "\u00a0h";
    return "for " + Math.floor(seconds / 86400) + "\u00a0days";
  }

  /* How long until a moment ahead, as the server's `until` says it. */
  function until(moment, now) {
    var seconds = (moment - now) / 1000;
    if (seconds <= 0) return "now";
    return "in " + lasting(now, moment).slice(4);
  }

  function textOf(form, moment, now) {
    if (form === "for") return lasting(moment, now);
    if (form === "in") return until(moment, now);
    if (form === "seconds") return dayClock(moment, now, true);
    var when = dayClock(moment, now, false);
    if (form === "time") return when;
    var since = ago(moment, now);
    if (form === "ago") return since || when;
    if (form === "clock") {
      var clock = daysBetween(moment, now) === 0 ? clockOnly.format(moment) : when;
      return since ? clock + ", " + since : clock;
    }
    return since ? when + " (" + since + ")" : when;
  }

  function format(root) {
    var now = new Date();
    (root || document).querySelectorAll("time[datetime][data-when]").forEach(function (element) {
      var moment = new Date(element.getAttribute("datetime"));
      if (isNaN(moment.getTime())) return;
      var form = element.getAttribute("data-when");
      var text = textOf(form, moment, now);
      var since = form === "time" ? ago(moment, now) : null;
      var title = (localIsUtc ? "" : exact.format(moment) + " · ") + (since ? since + " · " : "") + utc(moment);
      if (element.textContent !== text) element.textContent = text;
      if (element.getAttribute("title") !== title) element.setAttribute("title", title);
    });
  }

  /* The timeline's axis (runs/readmodels/timeline_page.py): clock times to the minute, labelled in UTC by the
     server (data-tick-at, data-tick-step); a short span to the second ("2:34:10 AM"). Here the same moment
     on the reader's clock, in the reader's form as every other time on the page ("6:20 AM", "06:20"): the day
     alone for steps of days; with the clock where the server said the day (data-tick-day: the span is days
     long, or the day turned) or where the reader's day differs from the tick's shown before it. */
  function tickText(moment, step, dated) {
    if (step >= 86400) return dayMonth.format(moment);
    if (step < 60) return clockSeconds.format(moment); // a zoomed axis (time_axis.ZOOM_UNDER)
    return dated ? dayMonth.format(moment) + " " + clockOnly.format(moment) : clockOnly.format(moment);
  }

  /* Each label is centred on its tick, so that the ticks read evenly spaced, unless that would take it past
     the axis's end: then it ends there. A label that would still touch the one shown before it is left out
     (its tick mark stays): at a phone's width, or in a locale with long clock times, labels never run into
     each other. The "//" break marker counts as a label: one before it ends at its tick rather than reach
     it, and one that would still touch it is left out; so does a label that would touch the axis's "now". Said in a style sheet of its own, by the label's place among the axis's labels, never on
     the labels themselves: live.js compares a region's markup with the server's to tell whether it
     changed. Run again when the width changes. (A page has one timeline: the rules hold for every axis.) */
  var GAP_PX = 8;
  var spacing = null; // a constructed style sheet: the page's CSP admits no <style> element
  function tickRule(index, declaration) {
    return "svg.tl-axis text.tl-tick:nth-of-type(" + (index + 1) + ") { " + declaration + " }";
  }
  function markRule(index, declaration) {
    return "svg.tl-axis > line:nth-of-type(" + (index + 1) + ") { " + declaration + " }";
  }
  /* The axis's "//" break marker (a long quiet stretch squeezed), an obstacle for labels as a label is. */
  function breakBox(axis) {
    var mark = axis.querySelector("svg.tl-break path");
    if (!mark) return null;
    var box = mark.getBoundingClientRect();
    return box.width > 0 ? box : null;
  }
  function shownTicks(axis) {
    return Array.prototype.filter.call(axis.querySelectorAll("text.tl-tick"), function (tick) {
      return getComputedStyle(tick).display !== "none" && tick.getBoundingClientRect().width > 0;
    });
  }
  function spaceTicks() {
    if (!spacing) {
      if (typeof CSSStyleSheet !== "function" || !("adoptedStyleSheets" in document)) return;
      spacing = new CSSStyleSheet();
      document.adoptedStyleSheets = document.adoptedStyleSheets.concat([spacing]);
    }
    var rules = [];
    var axes = document.querySelectorAll("svg.tl-axis");
    spacing.replaceSync(tickRulesCentred(axes));
    axes.forEach(function (axis) {
      var edge = axis.getBoundingClientRect();
      var cut = breakBox(axis);
      var all = Array.prototype.slice.call(axis.querySelectorAll("text.tl-tick"));
      shownTicks(axis).forEach(function (tick) {
        var box = tick.getBoundingClientRect();
        var centre = (box.left + box.right) / 2;
        if (box.left < edge.left) rules.push(tickRule(all.indexOf(tick), "text-anchor: start;"));
        else if (box.right > edge.right) rules.push(tickRule(all.indexOf(tick), "text-anchor: end;"));
        // A label before the break that would reach it ends at its tick instead (friction18b 7).
        else if (cut && centre < cut.left && box.right > cut.left - GAP_PX) {
          rules.push(tickRule(all.indexOf(tick), "text-anchor: end;"));
        }
      });
    });
    spacing.replaceSync(tickRulesCentred(axes) + rules.join("\n"));
    axes.forEach(function (axis) {
      var shownRight = -Infinity;
      var cut = breakBox(axis);
      // The "now" that ends a standing session's axis is an obstacle too: "2:52:30 PMnow" (friction26a 4, 26b 3).
      var now = axis.querySelector("text.tl-now");
      var nowBox = now ? now.getBoundingClientRect() : null;
      if (nowBox && nowBox.width === 0) nowBox = null;
      var all = Array.prototype.slice.call(axis.querySelectorAll("text.tl-tick"));
      var lines = Array.prototype.slice.call(axis.querySelectorAll(":scope > line"));
      var marks = Array.prototype.slice.call(axis.querySelectorAll(":scope > line.tl-tick-mark"));
      shownTicks(axis).forEach(function (tick) {
        var box = tick.getBoundingClientRect();
        var onBreak = cut && box.left < cut.right + GAP_PX && box.right > cut.left - GAP_PX;
        var onNow = nowBox && box.left < nowBox.right + GAP_PX && box.right > nowBox.left - GAP_PX;
        if (box.left < shownRight + GAP_PX || onBreak || onNow) {
          rules.push(tickRule(all.indexOf(tick), "display: none;"));
          // Its mark goes too: a tick without a label reads as a moment left unsaid (friction16b 16).
          var mark = marks[all.indexOf(tick)];
          if (mark) rules.push(markRule(lines.indexOf(mark), "display: none;"));
          return;
        }
        shownRight = box.right;
      });
    });
    spacing.replaceSync(tickRulesCentred(axes) + rules.join("\n"));
  }
  /* Every label centred on its tick, where the server anchored those near the ends to stay on the axis
     without scripts. */
  function tickRulesCentred(axes) {
    return axes.length ? "svg.tl-axis text.tl-tick { text-anchor: middle; }\n" : "";
  }

  /* The phone's axis and the wide one show different ticks (the classes wide-only, narrow-only): the day is
     said where it differs from the tick before it on either. */
  function formatTicks(root) {
    (root || document).querySelectorAll("svg.tl-axis").forEach(function (axis) {
      var previous = { wide: null, narrow: null };
      axis.querySelectorAll("[data-tick-at]").forEach(function (tick) {
        var moment = new Date(tick.getAttribute("data-tick-at"));
        var step = parseFloat(tick.getAttribute("data-tick-step"));
        if (isNaN(moment.getTime()) || isNaN(step)) return;
        var on = tick.classList.contains("wide-only") ? ["wide"] : tick.classList.contains("narrow-only") ? ["narrow"] : ["wide", "narrow"];
        var dated = tick.hasAttribute("data-tick-day") || on.some(function (layout) {
          return previous[layout] && daysBetween(previous[layout], moment) !== 0;
        });
        var text = tickText(moment, step, dated);
        if (tick.textContent !== text) tick.textContent = text;
        on.forEach(function (layout) { previous[layout] = moment; });
      });
    });
  }

  // The labels are spaced on the shown page only: `root` may be a page fetched for a live update, not laid out.
  window.workrailTimes = { format: function (root) { format(root); formatTicks(root); } };

  function start() {
    format(document);
    formatTicks(document);
    spaceTicks();
    window.setInterval(function () {
      if (document.visibilityState === "visible") format(document);
    }, REFRESH_MS);
    document.addEventListener("live:updated", function () { format(document); formatTicks(document); spaceTicks(); });
    var pending = false;
    window.addEventListener("resize", function () {
      if (pending) return;
      pending = true;
      window.requestAnimationFrame(function () { pending = false; spaceTicks(); });
    });
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
})();
