/* Menus that drop down from a button (a <details class="export-menu">): they open and close without this
 * script, from the mouse or the keyboard; with it, a click elsewhere on the page or Escape closes an open
 * one too, Escape giving the focus back to its button.
 */
(function () {
  "use strict";

  var MENUS = "details.export-menu[open]";

  document.addEventListener("click", function (event) {
    document.querySelectorAll(MENUS).forEach(function (menu) {
      if (!menu.contains(event.target)) menu.open = false;
    });
  });

  document.addEventListener("keydown", function (event) {
    if (event.key !== "Escape") return;
    document.querySelectorAll(MENUS).forEach(function (menu) {
      var hadFocus = menu.contains(document.activeElement);
      menu.open = false;
      if (hadFocus) menu.querySelector("summary").focus();
    });
  });
})();
