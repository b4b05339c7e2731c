// modelscape leaderboard: filters, search, the column chooser and the every-quantity toggle
// over the matrix. The page holds every table, row and cell without this script; it only hides
// what the controls leave out. It never recomputes a number: the ranking is the one written in
// the page. The columns chosen (scenarios left out, every quantity or accuracy alone) are kept
// in the address's fragment, as "#hide=SLUG&hide=SLUG&every=1", so a link reopens the same view.
"use strict";
(function () {
  const controls = document.getElementById("leaderboard-controls");
  if (!controls) return;
  const search = document.getElementById("leaderboard-search");
  const group = document.getElementById("leaderboard-group");
  const every = document.getElementById("leaderboard-every");
  const status = document.getElementById("leaderboard-status");
  const count = document.getElementById("leaderboard-columns-count");
  const sections = Array.from(document.querySelectorAll("section.matrix[data-group]"));
  const boxes = (name) => Array.from(controls.querySelectorAll(`input[name="${name}"]`));
  const checked = (name) =>
    new Set(
      boxes(name)
        .filter((box) => box.checked)
        .map((box) => box.value)
    );

  // The fragment holds the column choice only when it is not the default (every scenario,
  // accuracy alone); any other fragment (a note's anchor, the skip link) is left alone.
  const read = () => {
    const fragment = new URLSearchParams(window.location.hash.slice(1));
    if (!fragment.has("hide") && !fragment.has("every")) return;
    const hidden = new Set(fragment.getAll("hide"));
    for (const box of boxes("scenario")) box.checked = !hidden.has(box.value);
    every.checked = fragment.get("every") === "1";
  };
  const write = () => {
    const fragment = new URLSearchParams();
    for (const box of boxes("scenario")) if (!box.checked) fragment.append("hide", box.value);
    if (every.checked) fragment.set("every", "1");
    const text = fragment.toString();
    const address = window.location.pathname + window.location.search + (text ? "#" + text : "");
    window.history.replaceState(null, "", address);
  };

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
      const columns = section.querySelectorAll("thead tr:last-child th:not([hidden])").length;
      const visible = columns > 0;
      if (!visible) section.hidden = true;
      for (const row of section.querySelectorAll("tbody tr[data-kind]")) {
        const text = row.dataset.search || "";
        const match = kinds.has(row.dataset.kind) && words.every((word) => text.includes(word));
        row.hidden = !match;
        if (active) {
          total += 1;
          if (match) shown += 1;
        }
      }
      // The reference band's heading spans the columns shown, and goes when its rows all do.
      for (const heading of section.querySelectorAll("tbody tr.band-heading")) {
        heading.cells[0].colSpan = 3 + columns;
        heading.hidden = !heading.parentElement.querySelector("tr[data-kind]:not([hidden])");
      }
    }
    const all = boxes("scenario").length;
    count.textContent = `(${scenarios.size} of ${all} scenario${all === 1 ? "" : "s"})`;
    status.textContent = `Showing ${shown} of ${total} targets.`;
    // The table's width changed: tables.js marks again the regions that scroll sideways.
    window.dispatchEvent(new Event("resize"));
  };

  read();
  controls.hidden = false;
  const changed = (event) => {
    apply();
    if (event.target.name === "scenario" || event.target === every) write();
  };
  controls.addEventListener("input", changed);
  controls.addEventListener("change", changed);
  window.addEventListener("hashchange", () => {
    read();
    apply();
  });
  apply();
})();
