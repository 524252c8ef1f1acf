/* The import page's drop zone (_import.html): the file input itself covers the zone, so clicking, dropping
 * and the keyboard all reach the browser's own picker. This names the chosen file under the zone's words
 * (a transparent input shows nothing) and lights the zone while a file is dragged over it. */
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

  function show() {
    var file = input.files && input.files[0];
    chosen.textContent = file ? "Chosen: " + file.name + " (" + sizeInWords(file.size) + ")" : "No file chosen yet";
    zone.classList.toggle("has-file", Boolean(file));
  }

  input.addEventListener("change", show);
  input.addEventListener("dragenter", function () { zone.classList.add("dragging"); });
  ["dragleave", "drop"].forEach(function (name) {
    input.addEventListener(name, function () { zone.classList.remove("dragging"); });
  });
  show();  // a file kept by the browser on Back
})();
