/* Tables that reflow to stacked cards on a narrow screen.
 *
 * On a phone each table row becomes a card and each cell a line that starts with its column's name. The
 * names come from the table's own column headers: every cell gets data-label (its header's text) and the
 * table data-stack, which dashboard.css reads at the phone breakpoint (a header's abbr attribute, when it
 * has one, is its short name for this). Without this script a table keeps
 * its columns (inside a sideways-scrolling box), so it is never shown unlabelled. Live updates replace
 * parts of the page: live.js fires "live:updated" on the document and the new tables are labelled then.
 */
(function () {
  "use strict";

  function columnNames(table) {
    var row = table.tHead && table.tHead.rows[table.tHead.rows.length - 1];
    if (!row) return null;
    var names = [];
    for (var i = 0; i < row.cells.length; i += 1) {
      var cell = row.cells[i];
      var name = cell.getAttribute("abbr") || cell.textContent.replace(/\s+/g, " ").trim();
      for (var span = 0; span < (cell.colSpan || 1); span += 1) names.push(name);
    }
    return names;
  }

  function label(table) {
    var names = columnNames(table);
    if (!names) return;
    for (var b = 0; b < table.tBodies.length; b += 1) {
      var rows = table.tBodies[b].rows;
      for (var r = 0; r < rows.length; r += 1) {
        var column = 0;
        for (var c = 0; c < rows[r].cells.length; c += 1) {
          var cell = rows[r].cells[c];
          var span = cell.colSpan || 1;
          // A cell across the whole row (a group's heading) is a heading of its own: no column name.
          if (span < names.length && names[column]) cell.setAttribute("data-label", names[column]);
          column += span;
        }
      }
    }
    table.setAttribute("data-stack", "");
  }

  function labelAll(root) {
    (root || document).querySelectorAll("table").forEach(label);
  }

  document.addEventListener("live:updated", function () { labelAll(document); });
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", function () { labelAll(document); });
  } else {
    labelAll(document);
  }
})();
