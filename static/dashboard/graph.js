/* The branch graph scrolls within its box: bring the node the page shows into view, inside the box
   only (scrollIntoView would move the whole page too), three quarters across: what led to it shows. */
(function () {
  "use strict";
  function reveal() {
    document.querySelectorAll(".graph-scroll").forEach(function (box) {
      var node = box.querySelector('a.graph-node[aria-current="true"]');
      if (!node) return;
      var b = box.getBoundingClientRect();
      var n = node.getBoundingClientRect();
      if (n.left >= b.left && n.right <= b.right && n.top >= b.top && n.bottom <= b.bottom) return;
      box.scrollLeft += n.left + n.width / 2 - (b.left + b.width * 0.75);
      box.scrollTop += n.top + n.height / 2 - (b.top + b.height / 2);
    });
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", reveal);
  else reveal();
})();
