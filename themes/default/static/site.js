// modelscape site: sortable tables. A table marked data-sortable gets a button in each column
// header; without this script it is an ordinary table. Cells sort by data-value when they have
// one (numbers; empty values last), else by their text. A table whose header has several rows
// (the leaderboard's matrix) names the body column of each sortable header in data-column.
"use strict";
(function () {
  const key = (row, index) => {
    const cell = row.cells[index];
    if (!cell) return "";
    return cell.dataset.value !== undefined ? cell.dataset.value : cell.textContent.trim();
  };
  const compare = (a, b, numeric) => {
    if (a === b) return 0;
    if (a === "") return 1;
    if (b === "") return -1;
    if (numeric) return Number(a) - Number(b);
    return a.localeCompare(b, undefined, { numeric: true, sensitivity: "base" });
  };
  const sortable = (table) => {
    const marked = Array.from(table.querySelectorAll("thead th[data-column]"));
    if (marked.length) return marked.map((header) => [header, Number(header.dataset.column)]);
    return Array.from(table.tHead ? table.tHead.rows[0].cells : []).map((header, index) => [
      header,
      index,
    ]);
  };
  for (const table of document.querySelectorAll("table[data-sortable]")) {
    const columns = sortable(table);
    const body = table.tBodies[0];
    if (!body) continue;
    for (const [header, index] of columns) {
      const button = document.createElement("button");
      button.type = "button";
      button.className = "sort";
      button.append(...Array.from(header.childNodes));
      header.append(button);
      const numeric = header.dataset.type === "number";
      button.addEventListener("click", () => {
        const ascending = header.getAttribute("aria-sort") !== "ascending";
        columns.forEach(([other]) => other.removeAttribute("aria-sort"));
        header.setAttribute("aria-sort", ascending ? "ascending" : "descending");
        // Each body sorts on its own: the leaderboard's reference band stays below the ranking,
        // and its heading row (class band-heading) stays at its top.
        for (const part of table.tBodies) {
          const rows = Array.from(part.rows).filter((row) => !row.classList.contains("band-heading"));
          rows.sort((a, b) => {
            const order = compare(key(a, index), key(b, index), numeric);
            const emptyLast = key(a, index) === "" || key(b, index) === "";
            return ascending || emptyLast ? order : -order;
          });
          part.append(...rows);
        }
      });
    }
  }
})();
