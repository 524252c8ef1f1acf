/* A filter form that folds on a phone.
 *
 * The sessions list's filters sit in a <details> that the page sends open, so without this script they
 * are always shown. On a narrow screen they take the whole first screen, so there the details close
 * unless a filter is in use (data-active); on a wide screen they stay open, and the "Filter" summary
 * is hidden by dashboard.css. Turning the phone or resizing the window applies the rule again.
 */
(function () {
  "use strict";

  var narrow = window.matchMedia("(max-width: 40rem)");

  function fold() {
    document.querySelectorAll("details.filter-fold").forEach(function (details) {
      details.open = !narrow.matches || details.hasAttribute("data-active");
    });
  }

  narrow.addEventListener("change", fold);
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", fold);
  } else {
    fold();
  }
})();
