/* The fork form's rows editor (templates/dashboard/_fork.html, runs/dashboard/fork_form.py). Without this script
 * the form is the JSON textarea, as it always was. With it, the context is edited as rows, one per top-level key
 * (a string as it is, any other value as its JSON), a switch "Edit as: Rows | JSON" shows one of the two editors,
 * and the two stay in step: the textarea is what the form sends. The JSON is checked as it is typed (where it fails, inline), and
 * "What changes" lists what differs from the step's context in the words of the server's preview, which stays
 * what is recorded. */
(function () {
  "use strict";

  var edit = document.getElementById("fork-edit");
  var area = document.getElementById("fork-context");
  var originalScript = document.getElementById("fork-original");
  if (!edit || !area || !originalScript) return;
  var form = area.form;
  var rowsBox = document.getElementById("fork-rows");
  var list = document.getElementById("fork-row-list");
  var template = document.getElementById("fork-row-template");
  var error = document.getElementById("fork-json-error");
  var jsonBox = document.getElementById("fork-json");
  var modeBox = document.getElementById("fork-mode");
  var modeButtons = modeBox.querySelectorAll("button[data-mode]");
  var editorField = document.getElementById("fork-editor");  /* sent: the page comes back in this editor */
  var changesBox = document.getElementById("fork-changes");
  var changes = changesBox.querySelector("ul");
  var noChange = document.getElementById("fork-no-change");
  var unknownChange = document.getElementById("fork-changes-unknown");
  /* While the JSON does not parse, nobody can tell what changes: no list and no "Nothing yet", which read as
   * "the same values" beside JSON that had dropped a key (friction61a 4). */
  function changesUnknown() {
    changes.textContent = "";
    noChange.hidden = true;
    unknownChange.hidden = false;
    changesBox.hidden = false;
  }
  var original = JSON.parse(originalScript.textContent);
  var rowsBroken = false;  /* a JSON row does not parse: the textarea, which is sent, is behind the rows */

  function compact(value) {
    var text = JSON.stringify(value);
    return text.length <= 80 ? text : text.slice(0, 79) + "…";
  }

  function same(a, b) {
    return JSON.stringify(a) === JSON.stringify(b);
  }

  function showError(message) {
    error.textContent = message;
    error.hidden = !message;
  }

  /* Where JSON.parse stopped, as a line and a column, when the browser says the position. */
  function where(text, message) {
    var at = /position (\d+)/.exec(message);
    if (!at) return "";
    var before = text.slice(0, Number(at[1])).split("\n");
    return " at line " + before.length + ", column " + (before[before.length - 1].length + 1);
  }

  function parseContext(text) {
    if (!text.trim()) return { value: {} };
    try {
      var value = JSON.parse(text);
    } catch (e) {
      return { error: "The inputs are not valid JSON" + where(text, e.message) + ": keys in double quotes, no trailing comma." };
    }
    if (value === null || typeof value !== "object" || Array.isArray(value)) {
      return { error: "The inputs must be a JSON object, such as {\"target\": \"production\"}." };
    }
    return { value: value };
  }

  /* Each row's fields named by its key, for a screen reader and a test: "Value of target", "Remove target". */
  function name(row, key) {
    row.querySelector(".fork-value").setAttribute("aria-label", key ? "Value of " + key : "Value");
    row.querySelector(".fork-remove").setAttribute("aria-label", key ? "Remove " + key : "Remove");
  }

  function newRow(key, value) {
    var row = template.content.firstElementChild.cloneNode(true);
    var isJson = typeof value !== "string";
    row.dataset.json = isJson ? "1" : "0";
    row.querySelector(".fork-key").value = key;
    var field = row.querySelector(".fork-value");
    field.value = isJson ? JSON.stringify(value) : value;
    field.classList.toggle("mono", isJson);
    name(row, key);
    row.querySelector(".fork-kind").textContent = isJson ? "JSON" : "";
    return row;
  }

  /* The rows as a context: null (and the error said) when a JSON row does not parse. */
  function fromRows() {
    var context = {};
    var rows = list.querySelectorAll(".fork-row");
    for (var i = 0; i < rows.length; i++) {
      var key = rows[i].querySelector(".fork-key").value;
      var text = rows[i].querySelector(".fork-value").value;
      if (!key) continue;
      if (rows[i].dataset.json === "1") {
        try {
          context[key] = JSON.parse(text);
        } catch (e) {
          rowsBroken = true;
          changesUnknown();
          showError("The value of " + key + " is not valid JSON: write it as a number, true, false, null, a list or an object.");
          return null;
        }
      } else {
        context[key] = text;
      }
    }
    rowsBroken = false;
    showError("");
    return context;
  }

  function showChanges(context) {
    changes.textContent = "";
    var lines = [];
    Object.keys(context).forEach(function (key) {
      if (!(key in original)) lines.push(key + ": added, " + compact(context[key]));
      else if (!same(original[key], context[key])) lines.push(key + ": " + compact(original[key]) + " → " + compact(context[key]));
    });
    Object.keys(original).forEach(function (key) {
      if (!(key in context)) lines.push(key + ": removed (was " + compact(original[key]) + ")");
    });
    lines.forEach(function (line) {
      var item = document.createElement("li");
      item.textContent = line;
      changes.appendChild(item);
    });
    noChange.hidden = lines.length > 0;
    unknownChange.hidden = true;
    changesBox.hidden = false;
  }

  function rowsChanged() {
    var context = fromRows();
    if (context === null) return;
    area.value = JSON.stringify(context, null, 2);
    showChanges(context);
  }

  function jsonChanged() {
    var parsed = parseContext(area.value);
    rowsBox.disabled = Boolean(parsed.error);  /* the rows wait, unchanged, while the JSON does not parse */
    if (parsed.error) {
      showError(parsed.error);
      changesUnknown();
      return;
    }
    showError("");
    list.textContent = "";
    Object.keys(parsed.value).forEach(function (key) { list.appendChild(newRow(key, parsed.value[key])); });
    showChanges(parsed.value);
  }

  list.addEventListener("input", function (event) {
    var row = event.target.closest(".fork-row");
    if (row && event.target.classList.contains("fork-key")) name(row, event.target.value);
    rowsChanged();
  });
  list.addEventListener("click", function (event) {
    var remove = event.target.closest(".fork-remove");
    if (!remove) return;
    remove.closest(".fork-row").remove();
    rowsChanged();
  });
  document.getElementById("fork-add").addEventListener("click", function () {
    var row = newRow("", "");
    list.appendChild(row);
    row.querySelector(".fork-key").focus();
  });
  /* The textarea as tall as its JSON, one line to type in, within 4 and 20 lines (fork_form.ForkForm.text_rows). */
  function fitArea() {
    area.rows = Math.min(Math.max(area.value.split("\n").length + 1, 4), 20);
  }

  /* One editor in sight at a time (friction23b 11), the switch saying which (friction24a 2, 24b 2): both hold the
   * same context, kept in step as either is typed in. */
  function showMode(mode) {
    rowsBox.hidden = mode !== "rows";
    jsonBox.hidden = mode !== "json";
    modeButtons.forEach(function (button) {
      button.setAttribute("aria-pressed", String(button.dataset.mode === mode));
    });
    if (editorField) editorField.value = mode;
    if (mode === "json") fitArea();
  }

  area.addEventListener("input", function () {
    fitArea();
    jsonChanged();
  });
  modeBox.addEventListener("click", function (event) {
    var button = event.target.closest("button[data-mode]");
    if (button) showMode(button.dataset.mode);
  });
  /* A textarea that does not parse is sent as it is: the server's answer says where it fails, as without this
   * script. Rows a JSON value of which does not parse are not: what would be sent is not what they show. */
  form.addEventListener("submit", function (event) {
    if (rowsBroken) {
      event.preventDefault();
      error.scrollIntoView({ block: "center" });
    }
  });

  /* "Preview the change" is off while the required "Why" is empty, a line under it saying why, as the reply asking
   * for changes is (copy.js; friction26a 5). The server still refuses an empty one. */
  var reason = document.getElementById("fork-reason");
  var previewButton = document.getElementById("fork-preview-button");
  var needsWhy = document.getElementById("fork-needs-why");
  function gatePreview() {
    if (!reason || !previewButton) return;
    var empty = !reason.value.trim();
    previewButton.disabled = empty;
    if (needsWhy) needsWhy.hidden = !empty;
  }
  if (reason) reason.addEventListener("input", gatePreview);
  gatePreview();

  edit.hidden = false;
  changesBox.hidden = false;
  modeBox.hidden = false;
  var start = parseContext(area.value);
  if (start.error) {
    rowsBox.disabled = true;  /* what was typed is kept, its JSON in sight to fix where it fails */
    changesUnknown();
    if (!document.getElementById("fork-error")) showError(start.error);  /* else the server's notice says it */
    showMode("json");
  } else {
    showChanges(start.value);
    /* the rows, rendered from the same JSON (fork_form.rows_of), are the way in sight, unless the JSON was chosen
     * before this preview or mistake (friction62a 11) */
    showMode(editorField && editorField.value === "json" ? "json" : "rows");
    /* Beside a preview of these very inputs, its list says what changes: not a second list until they are
     * edited again (friction61a 5, 61b 14: the same changes twice). */
    if (document.getElementById("fork-preview")) changesBox.hidden = true;
  }
})();
