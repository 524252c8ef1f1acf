/* The top menu's "More" fold (a native <details>, which opens and closes without this script): Escape
 * closes it and gives the focus back to its "More", and a click or a focus anywhere else closes it, as a
 * menu is expected to behave. */
(function () {
  "use strict";

  function openFolds() {
    return document.querySelectorAll(".nav-more > details[open]");
  }

  document.addEventListener("keydown", function (event) {
    if (event.key !== "Escape") return;
    openFolds().forEach(function (fold) {
      fold.open = false;
      if (fold.contains(document.activeElement)) fold.querySelector("summary").focus();
    });
  });

  function closeOutside(event) {
    openFolds().forEach(function (fold) {
      if (!fold.contains(event.target)) fold.open = false;
    });
  }
  document.addEventListener("click", closeOutside);
  document.addEventListener("focusin", closeOutside);
})();
