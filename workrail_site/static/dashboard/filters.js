/* The sessions list's search form: sort and group fold on a phone, and apply as soon as they change.
 *
 * Sort and group sit in a <details> that the page sends open, so without this script they are always
 * shown and the Search button applies them. On a narrow screen they take room the sessions need, so there
 * the details close unless one of them is in use (data-active); on a wide screen they stay open, and the
 * "Sort and group" summary is hidden by dashboard.css. Turning the phone or resizing the window applies
 * the rule again. In a form marked data-submit-on-change, picking another value in a select submits it
 * (the filters by whose move are links, which filter at once without any script).
 */
(function () {
  "use strict";

  var narrow = window.matchMedia("(max-width: 40rem)");

  function fold() {
    document.querySelectorAll("details.filter-fold").forEach(function (details) {
      details.open = !narrow.matches || details.hasAttribute("data-active");
    });
  }

  function submitOnChange() {
    document.querySelectorAll("form[data-submit-on-change]").forEach(function (form) {
      form.addEventListener("change", function (event) {
        if (event.target instanceof HTMLSelectElement) form.requestSubmit();
      });
    });
  }

  function start() {
    fold();
    submitOnChange();
  }

  narrow.addEventListener("change", fold);
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
})();
