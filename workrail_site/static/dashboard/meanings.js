/* A tapped state pill's one-line meaning, shown in the page's flow right under the pill's line, pushing what
 * follows down while open (friction61a 10, 61b 9): as a popover over the page it covered the run's title on a
 * desktop and the step's title on a phone, and below its pill, the page's main button. The page holds one
 * popover per meaning (state_meanings, runs/templatetags/dashboard.py); this script shows its words in one line
 * of the page at a time, in place of the popover, which still opens where the script does not run. Tapping the
 * pill again or Escape closes it; tapping another pill moves it there.
 */
(function () {
  "use strict";

  var shown = null; // { line: the element showing the meaning, tap: the pill's button }

  function close() {
    if (!shown) return;
    shown.line.remove();
    shown.tap.setAttribute("aria-expanded", "false");
    shown = null;
  }

  function isLineBox(el) {
    var d = getComputedStyle(el).display;
    return d === "block" || d === "list-item" || d === "table-cell" || d === "flow-root" || d === "flex" || d === "grid";
  }

  // The pill's line: its nearest block whose parent lays it out as a block (not a flex or grid item, whose box
  // would widen beside its neighbours); its meaning goes last in it, on a line of its own.
  function lineOf(tap) {
    var el = tap.parentElement;
    while (el && el !== document.body) {
      var parent = el.parentElement;
      var parentDisplay = parent ? getComputedStyle(parent).display : "block";
      if (isLineBox(el) && !/flex|grid|contents/.test(parentDisplay)) return el;
      el = parent;
    }
    return tap.parentElement;
  }

  document.addEventListener("click", function (event) {
    var tap = event.target.closest && event.target.closest(".pill-tap[popovertarget]");
    if (!tap) return;
    var popover = document.getElementById(tap.getAttribute("popovertarget"));
    if (!popover) return;
    event.preventDefault(); // the meaning shows in the page, not as the popover over it
    var again = shown && shown.tap === tap;
    close();
    if (again) return;
    var line = document.createElement("span");
    line.className = "state-means-open";
    line.id = "state-means-open";
    line.setAttribute("role", "note");
    line.innerHTML = popover.innerHTML;
    lineOf(tap).appendChild(line);
    tap.setAttribute("aria-expanded", "true");
    tap.setAttribute("aria-controls", line.id);
    shown = { line: line, tap: tap };
  });

  document.addEventListener("keydown", function (event) {
    if (event.key !== "Escape" || !shown) return;
    var tap = shown.tap;
    close();
    if (tap.isConnected) tap.focus();
  });
})();
