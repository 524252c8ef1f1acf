/* The branch graph scrolls within its box: bring the node the page shows into view, inside the box
   only (scrollIntoView would move the whole page too). The cards marked data-keep are where other
   branches leave the shown one (graph_drawing.py): as many of them as fit stay in view too, nearest
   first, so a forked run never opens on the shown branch alone with the other rows scrolled away.
   When none fits, the shown node goes three quarters across (what led to it shows), and the left edge
   falls between two columns rather than through a card; a branch then scrolled out of view entirely
   keeps a sign on its row at the box's edge. */
(function () {
  "use strict";
  var PAD = 16;
  var EDGE = 72;

  function span(box, el) {
    // Its left and right in the box's scrolled content (not the window).
    var b = box.getBoundingClientRect();
    var r = el.getBoundingClientRect();
    return { left: r.left - b.left + box.scrollLeft, right: r.right - b.left + box.scrollLeft };
  }

  function columns(box) {
    // The left edges of the drawing's columns, and a card's width (every card has the same).
    var xs = {};
    var width = 0;
    box.querySelectorAll("a.graph-node rect.card").forEach(function (r) {
      xs[r.getAttribute("x")] = true;
      width = parseFloat(r.getAttribute("width"));
    });
    return {
      xs: Object.keys(xs).map(parseFloat).sort(function (a, b) { return a - b; }),
      width: width,
    };
  }

  function settle(box, want, lo, hi) {
    // The scroll position nearest `want`, within [lo, hi], whose edges cut the fewest cards in two (a box
    // seldom fits whole columns exactly: then the right edge, not the left, cuts one).
    var cols = columns(box);
    var view = box.clientWidth;
    function cuts(t) {
      return cols.xs.reduce(function (n, x) {
        var inside = function (edge) { return edge > x && edge < x + cols.width; };
        return n + (inside(t) ? 2 : 0) + (inside(t + view) ? 1 : 0); // a clean left edge first: it is read first
      }, 0);
    }
    var gap = cols.xs.length > 1 ? (cols.xs[1] - cols.xs[0] - cols.width) / 2 : 0;
    var candidates = [want];
    cols.xs.forEach(function (x) {
      candidates.push(x - gap, x + cols.width + gap - view);
    });
    var best = want;
    var bestKey = [cuts(want), 0];
    candidates.forEach(function (t) {
      if (t < lo || t > hi) return;
      var key = [cuts(t), Math.abs(t - want)];
      if (key[0] < bestKey[0] || (key[0] === bestKey[0] && key[1] < bestKey[1])) {
        best = t;
        bestKey = key;
      }
    });
    return best;
  }

  function place(box, node) {
    var width = box.clientWidth;
    var shown = span(box, node);
    var left = shown.left;
    var right = shown.right;
    var keep = Array.prototype.map.call(box.querySelectorAll("a.graph-node[data-keep]"), function (el) {
      return span(box, el);
    });
    keep.sort(function (a, b) {
      return Math.abs(a.left - shown.left) - Math.abs(b.left - shown.left);
    });
    var kept = 0;
    keep.forEach(function (k) {
      var l = Math.min(left, k.left);
      var r = Math.max(right, k.right);
      if (r - l + 2 * PAD <= width) {
        left = l;
        right = r;
        kept += 1;
      }
    });
    var now = box.scrollLeft;
    if (left >= now && right <= now + width) return now; // already in view: leave it where it is
    if (shown.right - shown.left + 2 * PAD > width) return shown.left - PAD;
    // The shown node and the forks, centred; else the shown node three quarters across.
    var want = kept ? (left + right) / 2 - width / 2 : (shown.left + shown.right) / 2 - width * 0.75;
    var most = box.scrollWidth - width; // the browser scrolls no further
    return settle(box, Math.min(want, most), Math.max(0, right + PAD / 2 - width), Math.min(most, left - PAD / 2));
  }

  /* A branch whose cards are all scrolled out of the box keeps a sign at the box's edge, on its row:
     "◂ Branch 2" (a button: it scrolls the branch's nearest card into view). */
  function lanes(box) {
    var found = {};
    box.querySelectorAll("a.graph-node").forEach(function (a) {
      var r = a.querySelector("rect.card");
      if (!r) return;
      var x = parseFloat(r.getAttribute("x"));
      var right = x + parseFloat(r.getAttribute("width"));
      var lane = a.getAttribute("data-lane");
      var l = found[lane];
      if (!l) {
        var mid = parseFloat(r.getAttribute("y")) + parseFloat(r.getAttribute("height")) / 2;
        l = found[lane] = { number: parseInt(lane, 10) + 1, min: x, max: right, mid: mid };
      }
      l.min = Math.min(l.min, x);
      l.max = Math.max(l.max, right);
    });
    return Object.keys(found).map(function (k) {
      return found[k];
    });
  }

  function signs(box) {
    var frame = box.parentElement;
    if (box.hasAttribute("data-signs") || !frame || !frame.classList.contains("graph-frame")) return;
    box.setAttribute("data-signs", "");
    var all = lanes(box);
    if (all.length < 2) return;
    all.forEach(function (l) {
      var sign = document.createElement("button");
      sign.type = "button";
      sign.className = "lane-sign";
      sign.hidden = true;
      sign.style.top = box.offsetTop + l.mid + "px";
      sign.addEventListener("click", function () {
        var width = box.clientWidth;
        var to = sign.dataset.side === "left" ? l.max - width + PAD * 4 : l.min - PAD * 4;
        box.scrollTo({ left: Math.max(0, to), behavior: "smooth" });
      });
      frame.appendChild(sign);
      l.sign = sign;
    });
    var pending = false;
    function update() {
      pending = false;
      var from = box.scrollLeft;
      var to = from + box.clientWidth;
      all.forEach(function (l) {
        // Out of view, or no more of it in view than the faded edge (dashboard.css: 4rem) shows.
        var side = l.max <= from + EDGE ? "left" : l.min >= to - EDGE ? "right" : "";
        l.sign.hidden = !side;
        if (!side || l.sign.dataset.side === side) return;
        l.sign.dataset.side = side;
        l.sign.textContent = side === "left" ? "◂ Branch " + l.number : "Branch " + l.number + " ▸";
        l.sign.title = "Branch " + l.number + " is scrolled out of view: show it";
      });
    }
    box.addEventListener(
      "scroll",
      function () {
        if (!pending) {
          pending = true;
          window.requestAnimationFrame(update);
        }
      },
      { passive: true }
    );
    update();
  }

  function reveal() {
    document.querySelectorAll(".graph-scroll").forEach(function (box) {
      var node = box.querySelector('a.graph-node[aria-current="true"]');
      if (node && box.scrollWidth > box.clientWidth) box.scrollLeft = Math.max(0, place(box, node));
      signs(box);
    });
    // A live update (live.js) redraws the graph where the user had scrolled it: give it its signs again.
    new MutationObserver(function () {
      document.querySelectorAll(".graph-scroll:not([data-signs])").forEach(signs);
    }).observe(document.body, { childList: true, subtree: true });
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", reveal);
  else reveal();
})();
