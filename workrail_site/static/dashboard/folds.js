/* Folded sections (a <details> whose summary holds the section's heading, as the run page's findings and
 * changed files): they open in place by click, tap or keyboard without this script. With it, a link that jumps
 * to a folded section's heading (the "Produced:" line under a run's header) or into its body (the timeline's
 * "which steps" entries, in a fold within the folded timeline) also opens every fold around its target, on a
 * click and when the page is opened at that address. */
(function () {
  "use strict";

  function openFoldOf(id) {
    var target = id && document.getElementById(id);
    for (var fold = target && target.closest("details"); fold; fold = fold.parentElement.closest("details")) {
      if (!fold.open) fold.open = true;
    }
  }

  function idOf(hash) {
    try {
      return decodeURIComponent(hash.slice(1));
    } catch (error) {
      return "";
    }
  }

  document.addEventListener("click", function (event) {
    var link = event.target.closest && event.target.closest("a[href^='#']");
    if (link) openFoldOf(idOf(link.getAttribute("href")));
  });
  // A button that opens a fold (a summary styled as a button, with aria-expanded: the step page's two ways of
  // branching) says whether it is open, as its chevron shows (friction24b 13).
  document.addEventListener("toggle", function (event) {
    var summary = event.target.querySelector && event.target.querySelector(":scope > summary[aria-expanded]");
    if (summary) summary.setAttribute("aria-expanded", event.target.open ? "true" : "false");
  }, true);
  window.addEventListener("hashchange", function () { openFoldOf(idOf(location.hash)); });
  openFoldOf(idOf(location.hash));
})();
