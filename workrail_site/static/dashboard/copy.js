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

  /* <button data-copy-with-password="TEXT" data-copy-form="FORM"> copies a text the page does not hold
   * (the connect command with its password): POSTed through FORM, whose CSRF token it sends, the answer's
   * "text" goes to the clipboard. A ClipboardItem takes the pending answer, so browsers that want the
   * click's activation for the write (Safari) get it; where that is refused, the text is written once it came. */
  function copyFetched(button) {
    var form = document.getElementById(button.getAttribute("data-copy-form"));
    if (!form) return;
    var body = new FormData(form);
    body.append("text", button.getAttribute("data-copy-with-password"));
    var answer = fetch(form.action, {method: "POST", body: body, credentials: "same-origin"}).then(function (response) {
      /* A refusal is the error body every door sends ({"error": {code, message, suggestion, ...}}); one from
       * before the view (Django's CSRF page) is HTML, said by its status alone. */
      return response.json().catch(function () { return {}; }).then(function (data) {
        var error = data.error || {};
        if (!response.ok) {
          throw new Error([error.message || "refused (HTTP " + response.status + "): reload the page and try again.",
            error.suggestion].filter(Boolean).join(" "));
        }
        return data.text;
      });
    });
    function failed(error) { say(button, "Not copied: " + error.message); }
    function done() { say(button, "Copied, with the password."); }
    function writeText() {
      return answer.then(function (text) { return navigator.clipboard.writeText(text); });
    }
    if (!(navigator.clipboard && window.isSecureContext)) {
      failed(new Error("this browser gives no clipboard here."));
      return;
    }
    var written = window.ClipboardItem && navigator.clipboard.write
      ? navigator.clipboard.write([new ClipboardItem({"text/plain": answer.then(function (text) {
          return new Blob([text], {type: "text/plain"});
        })})]).catch(writeText)
      : writeText();
    written.then(done, failed);
  }

  document.addEventListener("click", function (event) {
    var fetched = event.target.closest ? event.target.closest("[data-copy-with-password]") : null;
    if (fetched) {
      copyFetched(fetched);
      return;
    }
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
