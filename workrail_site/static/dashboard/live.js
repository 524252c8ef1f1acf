/* Live updates without a reload.
 *
 * An element with data-live-version-url and data-live-version is polled every 2 s while the tab is
 * visible. When the version the server answers differs, the current page is fetched again (its
 * data-live-page-url when it has one, the page a form's answer stands for), parsed with
 * DOMParser (which runs nothing), and the inner HTML of each [data-live-region] element is replaced by
 * the fresh page's region of the same name. A region holding the control the user is typing into is
 * left as it is (and tried again at the next tick); open <details>, scroll positions and the text typed into a
 * box marked data-keep-value (a reply's reason, copy.js) are kept.
 *
 * Nothing moves under the reader: a focused link or button that is replaced is focused again (its
 * counterpart in the new content: same id, or same place in its region), and the page is scrolled so
 * that what was at the top of the window stays there. The fresh page's times are put in the reader's
 * time zone (times.js) before the comparison, as the shown page's are. Each newly recorded step (an element with
 * data-step-node) is announced by its title in a polite live region, for screen readers.
 *
 * The page's live marker (#live-dot) says in words which of three states the polling is in, its dot only
 * decoration (friction12 item 14): "Updates live" while it polls, "Reconnecting…" from a poll the server did not
 * answer until one it answers, "Paused while hidden" while the tab is in the background (nothing is polled).
 */
(function () {
  "use strict";

  var INTERVAL_MS = 2000;

  function isEditing(element) {
    if (!element || element === document.body) return false;
    var tag = element.tagName;
    return tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT" || element.isContentEditable;
  }

  function regionNamed(doc, name) {
    var all = doc.querySelectorAll("[data-live-region]");
    for (var i = 0; i < all.length; i += 1) {
      if (all[i].getAttribute("data-live-region") === name) return all[i];
    }
    return null;
  }

  function keepState(region) {
    var open = [];
    region.querySelectorAll("details[id][open]").forEach(function (d) { open.push(d.id); });
    var scrolls = [];
    region.querySelectorAll("[data-keep-scroll][id]").forEach(function (el) {
      scrolls.push([el.id, el.scrollLeft, el.scrollTop]);
    });
    var typed = [];
    region.querySelectorAll("input[data-keep-value][id]").forEach(function (el) {
      if (el.value) typed.push([el.id, el.value]);
    });
    return function restore() {
      typed.forEach(function (t) {
        var el = document.getElementById(t[0]);
        if (el) el.value = t[1];
      });
      open.forEach(function (id) {
        var d = document.getElementById(id);
        if (d) d.open = true;
      });
      scrolls.forEach(function (s) {
        var el = document.getElementById(s[0]);
        if (el) { el.scrollLeft = s[1]; el.scrollTop = s[2]; }
      });
    };
  }

  /* What tells `element` apart from its neighbours: its tag, link target, name and text. The new
     content's element with the same signature (the same one among equals) stands for it. */
  function signature(element) {
    return [
      element.tagName,
      element.getAttribute("href") || "",
      element.getAttribute("name") || "",
      element.getAttribute("aria-label") || "",
      (element.textContent || "").replace(/\s+/g, " ").trim().slice(0, 200),
    ].join("\u0000");
  }

  function alike(element, region) {
    var wanted = signature(element);
    return Array.prototype.filter.call(region.getElementsByTagName(element.tagName), function (other) {
      return signature(other) === wanted;
    });
  }

  /* Where `element` sits in `region`: its id, or its signature and which of the alike elements it is. */
  function placeOf(element, region) {
    if (!element || element === region || !region.contains(element)) return null;
    if (element.id) return { id: element.id };
    return { element: element, nth: alike(element, region).indexOf(element) };
  }

  /* The element at `place` in `region` now, or null when the new content has nothing like it. */
  function elementAt(place, region) {
    if (place.id) {
      var byId = document.getElementById(place.id);
      return byId && region.contains(byId) ? byId : null;
    }
    var now = alike(place.element, region);
    return now[Math.min(place.nth, now.length - 1)] || null;
  }

  /* The element at the top of the window (what the reader looks at), or null at the top of the page. */
  function anchorInView() {
    if (window.scrollY <= 0) return null;
    var focused = document.activeElement;
    if (focused && focused !== document.body) {
      var box = focused.getBoundingClientRect();
      if (box.bottom > 0 && box.top < window.innerHeight && box.height > 0) return focused;
    }
    var main = document.getElementById("main") || document.body;
    var x = main.getBoundingClientRect().left + 24;
    for (var y = 8; y < window.innerHeight; y += 24) {
      var found = document.elementFromPoint(x, y);
      if (found && found !== document.body && found !== document.documentElement) return found;
    }
    return null;
  }

  function stepsIn(root) {
    var steps = {};
    root.querySelectorAll("[data-step-node]").forEach(function (step) {
      steps[step.getAttribute("data-step-node")] = step;
    });
    return steps;
  }

  var announcer = null;

  /* A polite live region, made once at load (screen readers only watch regions that already exist). */
  function makeAnnouncer() {
    announcer = document.createElement("div");
    announcer.id = "live-announcer";
    announcer.className = "visually-hidden";
    announcer.setAttribute("aria-live", "polite");
    announcer.setAttribute("role", "status");
    document.body.appendChild(announcer);
  }

  function announceNewSteps(before) {
    var titles = [];
    var now = stepsIn(document);
    Object.keys(now).forEach(function (node) {
      if (before[node]) return;
      var heading = now[node].querySelector("h3, h2");
      var title = (heading ? heading.textContent : "").replace(/\s+/g, " ").trim();
      if (title) titles.push(title);
    });
    if (!titles.length || !announcer) return;
    announcer.textContent = (titles.length === 1 ? "New step: " : "New steps: ") + titles.join("; ");
  }

  /* Resolves to true when every region was brought up to date. */
  /* The page to fetch again: the watched element's data-live-page-url where the page was the answer to a form
   * (a step's branch preview is the answer to a POST to /nodes/<id>/fork, which a GET would refuse with 405),
   * else the address the page was loaded from. */
  function pageUrl() {
    var watched = document.querySelector("[data-live-page-url]");
    return (watched && watched.getAttribute("data-live-page-url")) || window.location.href;
  }

  function refreshRegions() {
    return fetch(pageUrl(), {
      headers: { Accept: "text/html" },
      cache: "no-store",
      credentials: "same-origin",
    }).then(function (response) {
      if (!response.ok) return false;
      return response.text().then(function (html) {
        var fresh = new DOMParser().parseFromString(html, "text/html");
        // Times as the shown page says them (times.js), so that only regions that changed are replaced.
        if (window.workrailTimes) window.workrailTimes.format(fresh);
        if (window.workrailShare) window.workrailShare(fresh);  // the "Share…" buttons copy.js adds (copy.js)
        var complete = true;
        var stepsBefore = stepsIn(document);
        var focused = document.activeElement;
        var anchor = anchorInView();
        var anchorTop = anchor ? anchor.getBoundingClientRect().top : 0;
        var changed = false;
        document.querySelectorAll("[data-live-region]").forEach(function (region) {
          var replacement = regionNamed(fresh, region.getAttribute("data-live-region"));
          if (!replacement) return;
          if (isEditing(document.activeElement) && region.contains(document.activeElement)) {
            complete = false; // the user is typing here: leave it alone
            return;
          }
          if (region.innerHTML === replacement.innerHTML) return;
          var restore = keepState(region);
          var focusPlace = placeOf(focused, region);
          var anchorPlace = placeOf(anchor, region);
          region.innerHTML = replacement.innerHTML;
          restore();
          changed = true;
          if (focusPlace) {
            var again = elementAt(focusPlace, region);
            if (again && typeof again.focus === "function") again.focus({ preventScroll: true });
          }
          if (anchorPlace) anchor = elementAt(anchorPlace, region);
        });
        if (!changed) return complete;
        if (anchor && anchor.isConnected) {
          var shift = anchor.getBoundingClientRect().top - anchorTop;
          if (Math.abs(shift) >= 1) window.scrollBy(0, shift);
        }
        document.dispatchEvent(new CustomEvent("live:updated"));
        announceNewSteps(stepsBefore);
        return complete;
      });
    });
  }

  /* Each state of the live marker: its words, then what its tooltip and a screen reader add. */
  var MARKER = {
    live: ["Updates live", "this page updates by itself"],
    reconnecting: ["Reconnecting\u2026", "the dashboard did not answer; trying again every 2 seconds"],
    paused: ["Paused while hidden", "updates resume when this tab is shown again"],
  };

  function showState(state) {
    var marker = document.getElementById("live-dot");
    if (!marker || marker.getAttribute("data-live-state") === state) return;
    var words = marker.querySelector(".live-words");
    var aloud = marker.querySelector(".visually-hidden");
    marker.setAttribute("data-live-state", state);
    marker.title = MARKER[state][1].charAt(0).toUpperCase() + MARKER[state][1].slice(1);
    if (words) words.textContent = MARKER[state][0];
    if (aloud) aloud.textContent = ": " + MARKER[state][1];
  }

  function watch(element) {
    var url = element.getAttribute("data-live-version-url");
    var version = element.getAttribute("data-live-version");
    var busy = false;

    function tick() {
      if (document.visibilityState !== "visible") {
        showState("paused");
        return;
      }
      if (busy) return;
      busy = true;
      fetch(url, { headers: { Accept: "application/json" }, cache: "no-store", credentials: "same-origin" })
        .then(function (response) { return response.ok ? response.json() : null; })
        .then(function (data) {
          showState(data && data.version !== undefined ? "live" : "reconnecting");
          if (!data || data.version === undefined || String(data.version) === version) return null;
          var next = String(data.version);
          return refreshRegions().then(function (complete) {
            if (complete) {
              version = next;
              element.setAttribute("data-live-version", next);
            }
          });
        })
        .catch(function () { showState("reconnecting"); /* the server is restarting, say: try again at the next tick */ })
        .then(function () { busy = false; });
    }

    window.setInterval(tick, INTERVAL_MS);
    document.addEventListener("visibilitychange", function () {
      if (document.visibilityState === "visible") tick();
      else showState("paused");
    });
  }

  function start() {
    var watched = document.querySelector("[data-live-version-url][data-live-version]");
    if (!watched) return;
    makeAnnouncer();
    watch(watched);
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
})();
