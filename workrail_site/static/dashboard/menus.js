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

  // The phone bar's letter of who is signed in (_account_avatar.html) opens "More", whose first line names them.
  document.addEventListener("click", function (event) {
    var avatar = event.target.closest && event.target.closest("[data-opens-more]");
    if (!avatar) return;
    var more = document.querySelector(".nav-more > details");
    if (!more) return;
    more.open = !more.open;
    if (more.open) more.querySelector("summary").focus();
  });

  function closeOutside(event) {
    if (event.target.closest && event.target.closest("[data-opens-more]")) return;
    openMenus().forEach(function (menu) {
      if (!menu.contains(event.target)) menu.open = false;
    });
  }
  document.addEventListener("click", closeOutside);
  document.addEventListener("focusin", closeOutside);
})();
