/*
 * The top menu on a phone is one line that scrolls sideways (dashboard.css, r33 group): this brings the
 * current page's entry into view, and fades the edge beyond which more entries wait: the right one until
 * the menu is scrolled to its end, the left one once it is scrolled along.
 */
(function () {
  "use strict";

  function setUp() {
    var menu = document.querySelector(".topbar .nav");
    if (!menu) return;
    var current = menu.querySelector('[aria-current="page"]');
    if (current && menu.scrollWidth > menu.clientWidth) {
      var item = current.parentElement;
      var right = item.offsetLeft + item.offsetWidth - menu.offsetLeft;
      if (right > menu.clientWidth - 32) menu.scrollLeft = right - menu.clientWidth + 32;
    }
    var mark = function () {
      menu.classList.toggle("at-end", menu.scrollLeft + menu.clientWidth >= menu.scrollWidth - 2);
      menu.classList.toggle("scrolled", menu.scrollLeft > 2);
    };
    menu.addEventListener("scroll", mark, { passive: true });
    window.addEventListener("resize", mark);
    mark();
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", setUp);
  } else {
    setUp();
  }
})();
