/* Live updates without a reload.
 *
 * An element with data-live-version-url and data-live-version is polled every 2 s while the tab is
 * visible. When the version the server answers differs, the current page is fetched again, parsed with
 * DOMParser (which runs nothing), and the inner HTML of each [data-live-region] element is replaced by
 * the fresh page's region of the same name. A region holding the control the user is typing into is
 * left as it is (and tried again at the next tick); open <details> and scroll positions are kept.
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
    return function restore() {
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

  /* Resolves to true when every region was brought up to date. */
  function refreshRegions() {
    return fetch(window.location.href, {
      headers: { Accept: "text/html" },
      cache: "no-store",
      credentials: "same-origin",
    }).then(function (response) {
      if (!response.ok) return false;
      return response.text().then(function (html) {
        var fresh = new DOMParser().parseFromString(html, "text/html");
        var complete = true;
        document.querySelectorAll("[data-live-region]").forEach(function (region) {
          var replacement = regionNamed(fresh, region.getAttribute("data-live-region"));
          if (!replacement) return;
          if (isEditing(document.activeElement) && region.contains(document.activeElement)) {
            complete = false; // the user is typing here: leave it alone
            return;
          }
          if (region.innerHTML === replacement.innerHTML) return;
          var restore = keepState(region);
          region.innerHTML = replacement.innerHTML;
          restore();
        });
        return complete;
      });
    });
  }

  function watch(element) {
    var url = element.getAttribute("data-live-version-url");
    var version = element.getAttribute("data-live-version");
    var busy = false;

    function tick() {
      if (busy || document.visibilityState !== "visible") return;
      busy = true;
      fetch(url, { headers: { Accept: "application/json" }, cache: "no-store", credentials: "same-origin" })
        .then(function (response) { return response.ok ? response.json() : null; })
        .then(function (data) {
          if (!data || data.version === undefined || String(data.version) === version) return null;
          var next = String(data.version);
          return refreshRegions().then(function (complete) {
            if (complete) {
              version = next;
              element.setAttribute("data-live-version", next);
            }
          });
        })
        .catch(function () { /* the server is restarting, say: try again at the next tick */ })
        .then(function () { busy = false; });
    }

    window.setInterval(tick, INTERVAL_MS);
    document.addEventListener("visibilitychange", function () {
      if (document.visibilityState === "visible") tick();
    });
  }

  function start() {
    var watched = document.querySelector("[data-live-version-url][data-live-version]");
    if (watched) watch(watched);
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
})();
