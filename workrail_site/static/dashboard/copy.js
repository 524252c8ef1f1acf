/* Copy buttons: <button type="button" data-copy-target="ID"> copies the text of the element ID.
 * Uses navigator.clipboard; where it is unavailable or refused, selects the text for Ctrl+C instead.
 * One listener on the document, so buttons inside live-updated regions work too.
 * Where the browser can share (navigator.share: phones, mostly), each button that copies a message for an
 * agent (a pre.agent-message) gets a "Share…" beside it that hands the same text to the system's share sheet,
 * since a phone's clipboard rarely reaches the agent on the laptop (friction16a 12). The text stays where it
 * was, under "Check the message". Added after every live update too. The Share is compact, on its copy button's
 * row (friction18a 18): an icon and the word "Share" where the row has room for it (friction22b 16: an icon
 * alone read as "upload"), the icon alone on a phone, where the word would push it to a line of its own; its accessible
 * name is the copy button's data-share-label (a reply's, naming which reply it shares: friction17b 3), else "Share…".
 * After a message for an agent is copied, the status says so (pasteNext, friction18a 10), naming the chat it goes
 * to where the page knows its client, and nothing the panel's own line says (friction28b 1).
 * An <input data-reason-for="ID"> fills the element ID (a reply's blank, data-blank holding its words) with what
 * is typed, so the copied or shared reply carries the reason (friction18b 12); left empty, the blank stays, the
 * reply's buttons are off and its .reply-needs-text line says so. */
(function () {
  "use strict";

  document.documentElement.classList.add("js");

  var canShare = typeof navigator.share === "function";
  /* It stays until the page changes: a first-timer wondered whether the paste worked (friction20b 10), and
   * the live page is the answer, the panel giving way once the agent takes the message up. */
  function pasteNext(button) {
    /* The chat it goes to, by the client that started the run where the page knows it (its copy row's
     * data-paste-into, agent_message.Chat: friction26b 6); where to paste is the panel's line, said once. */
    var row = button.closest && button.closest(".copy-row");
    var into = row && row.getAttribute("data-paste-into");
    return into ? "Copied for " + into + "." : "Copied.";
  }
  var SHARE_ICON = '<svg aria-hidden="true" focusable="false" viewBox="0 0 24 24" width="18" height="18" fill="none" ' +
    'stroke="currentColor" stroke-width="2" stroke-linecap="round" stroke-linejoin="round">' +
    '<path d="M12 3v12M7 8l5-5 5 5M5 13v7h14v-7"/></svg>';

  /* live.js runs it on each fetched page before comparing regions, so that a region is replaced only when it changed. */
  function addShareButtons(root) {
    if (!canShare) return;
    root = root && root.querySelectorAll ? root : document;
    root.querySelectorAll(".copy-row button[data-copy-target]").forEach(function (copy) {
      var target = root.getElementById
        ? root.getElementById(copy.getAttribute("data-copy-target"))
        : document.getElementById(copy.getAttribute("data-copy-target"));
      if (!target || !target.classList.contains("agent-message")) return;
      var next = copy.nextElementSibling;
      if (next && next.hasAttribute("data-share-target")) return;
      var share = copy.ownerDocument.createElement("button");
      share.type = "button";
      share.className = "copy-button copy-quiet share-button";
      share.setAttribute("data-share-target", target.id);
      var name = copy.getAttribute("data-share-label") || "Share…";
      share.setAttribute("aria-label", name);
      share.title = name;
      share.innerHTML = SHARE_ICON + '<span class="share-word">Share</span>';
      share.disabled = copy.disabled;  // a reply not ready to copy is not ready to share either (friction22a A3)
      copy.insertAdjacentElement("afterend", share);
    });
  }
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", function () { addShareButtons(document); });
  } else {
    addShareButtons(document);
  }
  window.workrailShare = addShareButtons;
  document.addEventListener("live:updated", function () { addShareButtons(document); });

  var KEPT = -1;  // `lasting` for a status kept until the page changes
  function say(button, message, lasting) {
    var row = (button.closest && button.closest(".copy-row")) || button.parentNode;  // a reply's button sits in a pair
    var status = row && row.querySelector("[data-copy-status]");
    if (status) {
      status.textContent = message;
      window.clearTimeout(status.workrailClear);
      if (lasting === KEPT) return;
      status.workrailClear = window.setTimeout(function () { status.textContent = ""; }, lasting || 2500);
    }
  }

  /* What is typed into a reply's reason box goes into the reply's blank (the blank's own words when empty).
   * Until something is typed, the reply's own buttons (copy and share, its pair) are off: a "Not yet" that
   * says nothing to change only sends the agent back to ask (friction20b 9). Without script they stay on, and
   * the reply keeps its blank. */
  function fillReason(input) {
    var blank = document.getElementById(input.getAttribute("data-reason-for"));
    if (!blank) return;
    var typed = input.value.trim();
    blank.textContent = typed || blank.getAttribute("data-blank") || "";
    /* A message whose blank is its task (a workflow's start) says beside its button, while nothing is typed,
     * that the agent will ask for it (friction24b 7). */
    var hint = document.querySelector("[data-empty-hint-for='" + input.getAttribute("data-reason-for") + "']");
    if (hint) hint.hidden = !!typed;
    var pair = input.closest(".copy-pair");
    if (!pair) return;
    pair.querySelectorAll("button").forEach(function (button) { button.disabled = !typed; });
    var why = pair.querySelector(".reply-needs-text");  // why they are off, while they are (friction22b A8)
    if (why) why.hidden = !!typed;
  }
  document.addEventListener("input", function (event) {
    if (event.target.matches && event.target.matches("[data-reason-for]")) fillReason(event.target);
  });
  /* After a live update replaced the reply (live.js keeps the box's text), its blank is filled again. */
  function fillReasons() { document.querySelectorAll("[data-reason-for]").forEach(fillReason); }
  document.addEventListener("live:updated", fillReasons);  // after the share buttons are added (above)
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", fillReasons);
  else fillReasons();

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
    var sharing = event.target.closest ? event.target.closest("[data-share-target]") : null;
    if (sharing) {
      var shared = document.getElementById(sharing.getAttribute("data-share-target"));
      if (!shared) return;
      navigator.share({text: shared.textContent}).then(function () { say(sharing, "Shared."); }, function (error) {
        if (error && error.name === "AbortError") return;  // the person closed the share sheet
        say(sharing, "Not shared: use Copy instead.");
      });
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
      var forAgent = target.classList.contains("agent-message");
      navigator.clipboard.writeText(text).then(function () {
        if (forAgent) say(button, pasteNext(button), KEPT); else say(button, "Copied.");
      }, fallback);
    } else {
      fallback();
    }
  });
})();
