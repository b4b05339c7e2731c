// modelscape leaderboard: filters, search and the every-quantity toggle over the matrix. The
// page holds every table, row and cell without this script; it only hides what the controls
// leave out. It never recomputes a number: the ranking is the one written in the page.
"use strict";
(function () {
  const controls = document.getElementById("leaderboard-controls");
  if (!controls) return;
  const search = document.getElementById("leaderboard-search");
  const group = document.getElementById("leaderboard-group");
  const every = document.getElementById("leaderboard-every");
  const status = document.getElementById("leaderboard-status");
  const sections = Array.from(document.querySelectorAll("section.matrix[data-group]"));
  const checked = (name) =>
    new Set(
      Array.from(controls.querySelectorAll(`input[name="${name}"]`))
        .filter((box) => box.checked)
        .map((box) => box.value)
    );

  const apply = () => {
    const scenarios = checked("scenario");
    const kinds = checked("kind");
    const words = search.value.toLowerCase().split(/\s+/).filter(Boolean);
    const chosen = group ? group.value : "all";
    let shown = 0;
    let total = 0;
    for (const section of sections) {
      const active = section.dataset.group === chosen;
      section.hidden = !active;
      // Columns: a scenario left out, or a quantity beyond accuracy while the toggle is off.
      for (const cell of section.querySelectorAll("[data-scenario]")) {
        const quantity = cell.dataset.quantity;
        cell.hidden =
          !scenarios.has(cell.dataset.scenario) ||
          (quantity !== undefined && quantity !== "accuracy" && !every.checked);
      }
      for (const header of section.querySelectorAll("th[data-span]")) {
        header.colSpan = every.checked ? Number(header.dataset.span) : 1;
      }
      const visible = Array.from(section.querySelectorAll("[data-scenario]")).some(
        (cell) => !cell.hidden
      );
      if (!visible) section.hidden = true;
      for (const row of section.querySelectorAll("tbody tr")) {
        const text = row.dataset.search || "";
        const match = kinds.has(row.dataset.kind) && words.every((word) => text.includes(word));
        row.hidden = !match;
        if (active) {
          total += 1;
          if (match) shown += 1;
        }
      }
    }
    status.textContent = `Showing ${shown} of ${total} targets.`;
  };

  controls.hidden = false;
  controls.addEventListener("input", apply);
  controls.addEventListener("change", apply);
  apply();
})();
