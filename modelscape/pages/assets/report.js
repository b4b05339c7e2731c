// modelscape report pages: the outputs behind every number, and the charts.
// Model output is untrusted: it is only ever written with textContent, never parsed as HTML.
"use strict";
(function () {
  const readJSON = (id) => {
    const element = document.getElementById(id);
    return element ? JSON.parse(element.textContent) : null;
  };
  const evidence = readJSON("ms-evidence");
  const figures = readJSON("ms-figures") || [];
  const dialog = document.getElementById("outputs-dialog");
  const list = document.getElementById("outputs-list");
  const PAGE = 200;

  const element = (tag, text, className) => {
    const node = document.createElement(tag);
    if (text !== undefined && text !== null) node.textContent = String(text);
    if (className) node.className = className;
    return node;
  };

  const members = (set) => {
    const out = [];
    for (let i = 0; i < set.length; i += 2) {
      for (let j = 0; j < set[i + 1]; j += 1) out.push(set[i] + j);
    }
    return out;
  };

  // A long output is embedded cut short: say so, and link to the whole (a file beside a site's
  // page) or name the observation that holds it in the run's store (a standalone page).
  const cut = (box, observation, key, what) => {
    const length = observation[key + "_length"];
    if (!length) return;
    const note = element("p", null, "meta output-cut");
    note.append("Showing the first " + observation[key].length.toLocaleString("en") + " of " +
      length.toLocaleString("en") + " characters of this " + what + ". ");
    const file = observation[key + "_file"];
    if (typeof file === "string" && /^[\w.\/-]+$/.test(file) && !file.includes("..")) {
      const link = element("a", "Open the full " + what);
      link.href = file;
      note.append(link, ".");
    } else {
      note.append("The full " + what + " is in the run's store: observation " + observation.id + ".");
    }
    box.append(note);
  };

  // The full record of one output, built when its row is first opened.
  const body = (observation) => {
    const variant = evidence.variants[observation.variant];
    const box = element("div", null, "output-body");
    const facts = element("dl", null, "facts");
    const fact = (label, value) => {
      const row = element("div");
      row.append(element("dt", label), element("dd", value === null ? "—" : value));
      facts.append(row);
    };
    fact("Target", evidence.targets[observation.target]);
    fact("Case", variant.case);
    fact("Coordinate", variant.coordinate);
    fact("Repetition", observation.repetition);
    fact("Read answer", observation.answer === null ? "no answer" : observation.answer);
    fact("Correct answer", variant.reference);
    fact("Model reported", observation.model);
    fact("Observation", observation.id);
    box.append(facts);
    if (variant.system) {
      box.append(element("p", "system", "role-label"), element("pre", variant.system, "prompt"));
    }
    for (const [role, content] of variant.messages) {
      box.append(element("p", role, "role-label"), element("pre", content, "prompt"));
    }
    box.append(element("p", "raw output", "role-label"), element("pre", observation.text, "prompt output-text"));
    cut(box, observation, "text", "output");
    if (observation.data !== null) {
      box.append(element("p", "structured output", "role-label"), element("pre", observation.data, "prompt"));
      cut(box, observation, "data", "structured output");
    }
    if (observation.error) {
      box.append(element("p", "error", "role-label"), element("pre", observation.error, "prompt"));
    }
    return box;
  };

  const row = (index) => {
    const observation = evidence.observations[index];
    const variant = evidence.variants[observation.variant];
    const item = element("li");
    item.dataset.observation = observation.id;
    const details = element("details");
    const summary = element("summary");
    summary.append(
      element("span", evidence.targets[observation.target]),
      element("span", variant.case, "case-name"),
      element("span", variant.coordinate),
      element("span", "repetition " + observation.repetition, "meta"),
      element("span", "answer " + (observation.answer === null ? "none" : observation.answer)),
      element("span", "correct " + variant.reference, "meta"),
    );
    if (observation.status === "failed") summary.append(element("span", "failed", "verdict-wrong"));
    else if (observation.correct === 1) summary.append(element("span", "right", "verdict-right"));
    else if (observation.correct === 0) summary.append(element("span", "wrong", "verdict-wrong"));
    details.append(summary);
    details.addEventListener("toggle", () => {
      if (details.open && details.childElementCount === 1) details.append(body(observation));
    });
    item.append(details);
    return item;
  };

  const open = (index, label) => {
    const indices = members(evidence.sets[index]);
    document.getElementById("outputs-title").textContent = label;
    document.getElementById("outputs-count").textContent =
      indices.length + " output" + (indices.length === 1 ? "" : "s") + " behind this number";
    list.replaceChildren();
    let shown = 0;
    const more = element("button", null, "dialog-close");
    more.type = "button";
    const next = () => {
      const slice = indices.slice(shown, shown + PAGE);
      list.append(...slice.map(row));
      shown += slice.length;
      more.textContent = "Show " + Math.min(PAGE, indices.length - shown) + " more";
      if (shown >= indices.length) more.remove();
      else list.after(more);
    };
    more.addEventListener("click", next);
    next();
    if (!dialog.open) dialog.showModal();
  };

  document.addEventListener("click", (event) => {
    const button = event.target.closest("button[data-evidence]");
    if (button && evidence) open(Number(button.dataset.evidence), button.dataset.label);
  });
  document.getElementById("outputs-close").addEventListener("click", () => dialog.close());
  dialog.addEventListener("click", (event) => {
    if (event.target === dialog) dialog.close();
  });

  // -- charts ---------------------------------------------------------------------------------
  const scheme = window.matchMedia("(prefers-color-scheme: dark)");
  const theme = () => {
    const style = getComputedStyle(document.documentElement);
    const fg = style.getPropertyValue("--fg").trim();
    const line = style.getPropertyValue("--line").trim();
    const axis = { color: fg, gridcolor: line, zerolinecolor: fg, linecolor: line };
    return {
      paper_bgcolor: "rgba(0,0,0,0)",
      plot_bgcolor: "rgba(0,0,0,0)",
      font: { color: fg, family: "system-ui, sans-serif" },
      "xaxis.color": axis.color, "xaxis.gridcolor": axis.gridcolor, "xaxis.linecolor": axis.linecolor,
      "yaxis.color": axis.color, "yaxis.gridcolor": axis.gridcolor,
      "yaxis.zerolinecolor": axis.zerolinecolor, "yaxis.linecolor": axis.linecolor,
    };
  };

  // The bundle is embedded zlib-compressed and base64-encoded: it is unpacked in memory and run
  // from a blob: URL, so no request leaves the page. With shared assets it is already loaded.
  const loadPlotly = async () => {
    if (window.Plotly) return window.Plotly;
    const packed = readJSON("ms-plotly");
    if (packed === null) throw new Error("the plotting library is missing from this page");
    const binary = atob(packed);
    const bytes = new Uint8Array(binary.length);
    for (let i = 0; i < binary.length; i += 1) bytes[i] = binary.charCodeAt(i);
    const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("deflate"));
    const code = await new Response(stream).blob();
    const url = URL.createObjectURL(new Blob([code], { type: "text/javascript" }));
    await new Promise((resolve, reject) => {
      const script = document.createElement("script");
      script.src = url;
      script.onload = resolve;
      script.onerror = () => reject(new Error("the plotting library failed to load"));
      document.head.append(script);
    });
    URL.revokeObjectURL(url);
    return window.Plotly;
  };

  const draw = async () => {
    if (!figures.length) return;
    const Plotly = await loadPlotly();
    const config = { displayModeBar: false, displaylogo: false, responsive: true, showLink: false };
    for (const { id, figure } of figures) {
      const target = document.getElementById(id);
      if (!target) continue;
      const layout = Object.assign({}, figure.layout);
      await Plotly.newPlot(target, figure.data, layout, config);
      await Plotly.relayout(target, theme());
      target.on("plotly_click", (data) => {
        const point = data.points && data.points[0];
        if (point && point.customdata !== null && point.customdata !== undefined && evidence) {
          open(Number(point.customdata), point.data.name.replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&amp;/g, "&") + ": " + point.x);
        }
      });
    }
    scheme.addEventListener("change", () => {
      for (const { id } of figures) {
        const target = document.getElementById(id);
        if (target) Plotly.relayout(target, theme());
      }
    });
    document.documentElement.dataset.charts = "drawn";
  };

  const start = () => draw().catch((error) => {
    document.documentElement.dataset.charts = "failed";
    for (const { id } of figures) {
      const target = document.getElementById(id);
      if (target) target.textContent = "The chart could not be drawn: " + error.message;
    }
  });
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
