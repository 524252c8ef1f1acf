/* Menus that drop down from a button: the top menu's "More" on a phone and a session's "Export". Both are
 * native <details>, which open and close without this script from the mouse or the keyboard; with it, they
 * behave as menus are expected to: Escape closes an open one and gives the focus back to its button, and a
 * click or a focus anywhere else closes it.
 */
(function () {
  "use strict";

  var MENUS = ".nav-more > details[open], details.export-menu[open]";

  function openMenus() {
    return document.querySelectorAll(MENUS);
  }

  document.addEventListener("keydown", function (event) {
    if (event.key !== "Escape") return;
    openMenus().forEach(function (menu) {
      var hadFocus = menu.contains(document.activeElement);
      menu.open = false;
      if (hadFocus) menu.querySelector("summary").focus();
    });
  });

  function closeOutside(event) {
    openMenus().forEach(function (menu) {
      if (!menu.contains(event.target)) menu.open = false;
    });
  }
  document.addEventListener("click", closeOutside);
  document.addEventListener("focusin", closeOutside);
})();
