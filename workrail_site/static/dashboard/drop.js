/* The import page's drop zone (_import.html): the file input itself covers the zone, so clicking, dropping
 * and the keyboard all reach the browser's own picker. This names the chosen file under the zone's words
 * (a transparent input shows nothing) and lights the zone while a file is dragged over it.
 *
 * It also posts the form in place (fetch, with the X-Import-In-Place header), because a browser cannot put a
 * file back in a file input after a reload: a refusal's error is shown on the form, the chosen file still
 * chosen where sending it again can work (as a copy, say), let go where it was refused for what it is; an
 * import goes to its session's page. Without this script,
 * or if the post cannot be sent, the form posts the ordinary way and its error asks for the file again. */
(function () {
  "use strict";

  var zone = document.getElementById("import-drop");
  var input = document.getElementById("import-bundle");
  var chosen = document.getElementById("import-chosen");
  if (!zone || !input || !chosen) return;

  function sizeInWords(bytes) {
    if (bytes < 1024) return bytes + " bytes";
    if (bytes < 1024 * 1024) return Math.round(bytes / 1024) + " KB";
    return (bytes / (1024 * 1024)).toFixed(1) + " MB";
  }

  var button = input.form && input.form.querySelector("button[type=submit]");
  // What the line says with no file: "No file chosen yet", or, once a file was refused for what it is,
  // "Choose another file" (the server's words for that line, _import.html).
  var none = chosen.textContent;

  function show() {
    var file = input.files && input.files[0];
    if (button) button.disabled = !file;  // nothing to import yet (without this script the server says so)
    chosen.textContent = file ? "Chosen: " + file.name + " (" + sizeInWords(file.size) + ")" : none;
    zone.classList.toggle("has-file", Boolean(file));
  }

  input.addEventListener("change", show);
  input.addEventListener("dragenter", function () { zone.classList.add("dragging"); });
  ["dragleave", "drop"].forEach(function (name) {
    input.addEventListener(name, function () { zone.classList.remove("dragging"); });
  });
  show();  // a file kept by the browser on Back

  var form = input.form;
  if (!form || !window.fetch || !window.FormData || !window.DOMParser) return;

  // The refusal from the page the server answered with, in place of the one shown (or above the zone).
  function showRefusal(html) {
    var answer = new DOMParser().parseFromString(html, "text/html");
    var fresh = answer.getElementById("import-error");
    if (!fresh) return false;
    var shown = document.getElementById("import-error");
    if (shown) shown.replaceWith(fresh);
    else form.insertBefore(fresh, zone);
    var described = (form.getAttribute("aria-describedby") || "").split(/\s+/);
    if (described.indexOf("import-error") < 0) form.setAttribute("aria-describedby", described.concat("import-error").join(" ").trim());
    if (answer.title) document.title = answer.title;
    // A file refused for what it is cannot go again: let go of it, so Import waits for another (friction63b 10).
    var line = answer.getElementById("import-chosen");
    if (fresh.hasAttribute("data-file-refused") && line) {
      input.value = "";
      none = line.textContent;
    }
    return true;
  }

  form.addEventListener("submit", function (event) {
    event.preventDefault();
    if (button) button.disabled = true;
    fetch(form.action, { method: "POST", body: new FormData(form), headers: { "X-Import-In-Place": "1" }, credentials: "same-origin" })
      .then(function (response) {
        var type = response.headers.get("Content-Type") || "";
        if (response.ok && type.indexOf("application/json") === 0) {
          return response.json().then(function (done) { window.location.assign(done.location); });
        }
        return response.text().then(function (html) {
          if (!showRefusal(html)) form.submit();  // not the form's page (a sign-in, say): the ordinary way
        });
      })
      .catch(function () { form.submit(); })
      .then(function () { show(); });
  });
})();
