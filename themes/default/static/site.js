// modelscape site: sortable tables. A table marked data-sortable gets a button in each column
// header; without this script it is an ordinary table. Cells sort by data-value when they have
// one (numbers; empty values last), else by their text.
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
  for (const table of document.querySelectorAll("table[data-sortable]")) {
    const headers = Array.from(table.tHead ? table.tHead.rows[0].cells : []);
    const body = table.tBodies[0];
    if (!body) continue;
    headers.forEach((header, index) => {
      const button = document.createElement("button");
      button.type = "button";
      button.className = "sort";
      button.textContent = header.textContent;
      header.textContent = "";
      header.append(button);
      const numeric = header.dataset.type === "number";
      button.addEventListener("click", () => {
        const ascending = header.getAttribute("aria-sort") !== "ascending";
        headers.forEach((other) => other.removeAttribute("aria-sort"));
        header.setAttribute("aria-sort", ascending ? "ascending" : "descending");
        const rows = Array.from(body.rows);
        rows.sort((a, b) => {
          const order = compare(key(a, index), key(b, index), numeric);
          const emptyLast = key(a, index) === "" || key(b, index) === "";
          return ascending || emptyLast ? order : -order;
        });
        body.append(...rows);
      });
    });
  }
})();
