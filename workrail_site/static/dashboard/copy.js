/* Copy buttons: <button type="button" data-copy-target="ID"> copies the text of the element ID.
 * Uses navigator.clipboard; where it is unavailable or refused, selects the text for Ctrl+C instead.
 * One listener on the document, so buttons inside live-updated regions work too. */
(function () {
  "use strict";

  document.documentElement.classList.add("js");

  function say(button, message) {
    var status = button.parentNode && button.parentNode.querySelector("[data-copy-status]");
    if (status) {
      status.textContent = message;
      window.setTimeout(function () { status.textContent = ""; }, 2500);
    }
  }

  function select(element) {
    var range = document.createRange();
    range.selectNodeContents(element);
    var selection = window.getSelection();
    selection.removeAllRanges();
    selection.addRange(range);
  }

  document.addEventListener("click", function (event) {
    var button = event.target.closest ? event.target.closest("[data-copy-target]") : null;
    if (!button) return;
    var target = document.getElementById(button.getAttribute("data-copy-target"));
    if (!target) return;
    var text = target.textContent;
    function fallback() {
      target.hidden = false;  // a message kept out of sight (the catalog's start messages) is shown to be selected
      select(target);
      say(button, "Selected: press Ctrl+C (⌘C) to copy.");
    }
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(text).then(function () { say(button, "Copied."); }, fallback);
    } else {
      fallback();
    }
  });
})();
