/* The branch graph scrolls within its box: bring the node the page shows into view, inside the box
   only (scrollIntoView would move the whole page too). The cards marked data-keep are where other
   branches leave the shown one (graph_drawing.py): as many of them as fit stay in view too, nearest
   first, so a forked run never opens on the shown branch alone with the other rows scrolled away.
   When none fits, the shown node goes three quarters across (what led to it shows), and the left edge
   falls between two columns rather than through a card. */
(function () {
  "use strict";
  var PAD = 16;

  function span(box, el) {
    // Its left and right in the box's scrolled content (not the window).
    var b = box.getBoundingClientRect();
    var r = el.getBoundingClientRect();
    return { left: r.left - b.left + box.scrollLeft, right: r.right - b.left + box.scrollLeft };
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
    if (kept) return (left + right) / 2 - width / 2; // the shown node and the forks, centred
    if (shown.right - shown.left + 2 * PAD > width) return shown.left - PAD;
    var target = (shown.left + shown.right) / 2 - width * 0.75;
    // Move right to the next gap between columns, if the shown node still fits: no card cut in two.
    var cut = Array.prototype.reduce.call(
      box.querySelectorAll("a.graph-node"),
      function (best, el) {
        var r = el.querySelector("rect.card");
        var x = r ? parseFloat(r.getAttribute("x")) : NaN;
        return x > target && x < best ? x : best;
      },
      Infinity
    );
    if (cut - PAD / 2 + width >= shown.right + PAD / 2 && cut - PAD / 2 <= shown.left) target = cut - PAD / 2;
    return target;
  }

  function reveal() {
    document.querySelectorAll(".graph-scroll").forEach(function (box) {
      var node = box.querySelector('a.graph-node[aria-current="true"]');
      if (!node || box.scrollWidth <= box.clientWidth) return;
      box.scrollLeft = Math.max(0, place(box, node));
    });
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", reveal);
  else reveal();
})();
