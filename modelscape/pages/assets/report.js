// modelscape report pages: the outputs behind every number (filtered, searched, paged, and
// for a step compared side by side), their addresses in the page's URL, and the charts.
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
  // Outputs listed, and cases compared, at a time: a number can stand on thousands of outputs.
  const PAGE = 200;
  const CASES = 20;

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

  // How an output reads in one word, for the filters: failed call, no answer, wrong, right.
  const verdict = (observation) => {
    if (observation.status === "failed") return "failed";
    if (observation.answer === null) return "unanswered";
    if (observation.correct === 0) return "wrong";
    return observation.correct === 1 ? "right" : "";
  };

  const badge = (observation) => {
    const word = verdict(observation);
    if (word === "failed") return element("span", "failed", "verdict-wrong");
    if (word === "wrong") return element("span", "wrong", "verdict-wrong");
    if (word === "right") return element("span", "right", "verdict-right");
    return null;
  };

  // The address of what the dialog shows: "#evidence=N", with "&view=list" for every output,
  // "&output=ID" for one opened output, and the filters that are set (verdict, case,
  // coordinate, repetition, search), so that a copied link reopens the same rows. Read back
  // when the page loads or history moves.
  const FILTERS = ["verdict", "case", "coordinate", "repetition", "search"];
  // The longest filter value an address may carry: a case or coordinate name, or the words
  // searched. Longer values (or any that match no option of the set) are ignored.
  const LONGEST = 1000;
  const address = (state) => {
    const params = new URLSearchParams();
    params.set("evidence", String(state.index));
    if (state.output) {
      params.set("view", "list");
      params.set("output", state.output);
    } else if (state.view === "list" && state.step) params.set("view", "list");
    for (const name of FILTERS) {
      const value = state.filters && state.filters[name];
      if (value) params.set(name, value);
    }
    return "#" + params.toString();
  };
  const parse = (hash) => {
    const params = new URLSearchParams(hash.replace(/^#/, ""));
    const written = params.get("evidence") || "";
    const index = Number(written);
    if (!evidence || !/^\d{1,9}$/.test(written) || index >= evidence.sets.length) return null;
    const output = params.get("output");
    const filters = {};
    for (const name of FILTERS) {
      const value = params.get(name);
      filters[name] = value && value.length <= LONGEST ? value : "";
    }
    if (!/^(wrong|unanswered|failed)$/.test(filters.verdict)) filters.verdict = "";
    if (!/^\d{1,9}$/.test(filters.repetition)) filters.repetition = "";
    return {
      index,
      view: params.get("view") === "list" ? "list" : null,
      output: output && /^[\w-]{1,128}$/.test(output) ? output : null,
      filters,
    };
  };
  const sameFilters = (a, b) => FILTERS.every((name) => (a && a[name] || "") === (b && b[name] || ""));

  // What a set's number compares, if anything: two coordinates of a step (``steps``), or two
  // targets on the same prompts (``pairs``, for a divergence), for the side-by-side view.
  const comparisonOf = (index) => {
    const step = evidence.steps && evidence.steps[index];
    if (Array.isArray(step) && step.length === 2) return { by: "coordinate", sides: step.map(String) };
    const pair = evidence.pairs && evidence.pairs[index];
    const known = (target) => Number.isInteger(target) && target >= 0 && target < evidence.targets.length;
    if (Array.isArray(pair) && pair.length === 2 && pair.every(known)) return { by: "target", targets: pair };
    return null;
  };

  // The start of an output, on one line, as the comparison shows it before it is opened:
  // the first EXCERPT characters (whole code points), whitespace runs made single spaces.
  const EXCERPT = 160;
  const excerpt = (text) => {
    let start = "";
    let count = 0;
    for (const character of String(text)) {
      if (count === EXCERPT) return start.replace(/\s+/g, " ").trim() + " …";
      start += character;
      count += 1;
    }
    return start.replace(/\s+/g, " ").trim();
  };

  let state = null;
  // True while the dialog follows the address (so following it does not write it again).
  let following = false;
  const remember = (push) => {
    if (following || !state) return;
    const url = location.pathname + location.search + address(state);
    const data = { modelscape: true, label: state.label, pushed: push || Boolean(history.state && history.state.pushed) };
    if (push) history.pushState(data, "", url);
    else history.replaceState(data, "", url);
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
    const mark = badge(observation);
    if (mark) summary.append(mark);
    details.append(summary);
    details.addEventListener("toggle", () => {
      if (details.open && details.childElementCount === 1) details.append(body(observation));
      if (!state) return;
      if (details.open) state.output = observation.id;
      else if (state.output === observation.id) state.output = null;
      remember(false);
    });
    item.append(details);
    return item;
  };

  // One repetition's answer in the comparison; its raw output opens below it.
  const answer = (index) => {
    const observation = evidence.observations[index];
    const item = element("li");
    item.dataset.observation = observation.id;
    const details = element("details");
    const summary = element("summary");
    summary.append(
      element("span", "repetition " + observation.repetition, "meta"),
      element("span", observation.status === "failed" ? "no answer (failed call)" : "answer " + (observation.answer === null ? "none" : observation.answer)),
    );
    const mark = badge(observation);
    if (mark) summary.append(mark);
    // What the model wrote, not only the answer read from it: its start, the whole below.
    const written = observation.status === "failed" ? observation.error : observation.text;
    const start = element("span", written ? excerpt(written) : "(empty output)", "output-excerpt");
    start.dir = "auto";
    summary.append(start);
    details.append(summary);
    details.addEventListener("toggle", () => {
      // Its address names the output, which opens in the list (where every output has a row).
      if (state && details.open) state.output = observation.id;
      else if (state && state.output === observation.id) state.output = null;
      remember(false);
      if (!details.open || details.childElementCount > 1) return;
      const text = element("pre", observation.text, "prompt output-text");
      text.dir = "auto";
      details.append(text);
      cut(details, observation, "text", "output");
      if (observation.error) details.append(element("pre", observation.error, "prompt"));
    });
    item.append(details);
    return item;
  };

  // -- filters and search ------------------------------------------------------------------------
  const field = (id) => document.getElementById(id);
  const filters = {
    verdict: field("outputs-verdict"),
    case: field("outputs-case"),
    coordinate: field("outputs-coordinate"),
    repetition: field("outputs-repetition"),
    search: field("outputs-search"),
  };
  const haystacks = new Map();
  const haystack = (index) => {
    let text = haystacks.get(index);
    if (text === undefined) {
      const observation = evidence.observations[index];
      const variant = evidence.variants[observation.variant];
      text = [
        variant.case, variant.coordinate, variant.system || "",
        ...variant.messages.map((message) => message[1]),
        observation.text || "", observation.data || "", observation.answer === null ? "" : observation.answer,
        observation.error || "",
      ].join("\n").toLowerCase();
      haystacks.set(index, text);
    }
    return text;
  };
  const choices = (select, values, first) => {
    select.replaceChildren(new Option(first, ""));
    for (const value of values) select.append(new Option(String(value), String(value)));
    select.value = "";
  };
  const fill = (indices) => {
    const cases = new Set();
    const coordinates = new Set();
    const repetitions = new Set();
    for (const index of indices) {
      const observation = evidence.observations[index];
      const variant = evidence.variants[observation.variant];
      cases.add(variant.case);
      coordinates.add(variant.coordinate);
      repetitions.add(observation.repetition);
    }
    choices(filters.case, Array.from(cases).sort(), "every case");
    choices(filters.coordinate, Array.from(coordinates), "every coordinate");
    choices(filters.repetition, Array.from(repetitions).sort((a, b) => a - b), "every repetition");
    filters.verdict.value = "";
    filters.search.value = "";
  };
  // The filters as they are set, and setting them from an address: a select takes only one of
  // its own options (so a value the set does not have is ignored), the search box any text.
  const current = () => {
    const values = {};
    for (const name of FILTERS) values[name] = filters[name].value;
    return values;
  };
  const apply = (wanted) => {
    for (const name of FILTERS) {
      const value = (wanted && wanted[name]) || "";
      const control = filters[name];
      if (!value) continue;
      if (control === filters.search) control.value = value;
      else if (Array.from(control.options).some((option) => option.value === value)) control.value = value;
    }
  };
  const matches = () => {
    const words = filters.search.value.toLowerCase().split(/\s+/).filter(Boolean);
    const wanted = {
      verdict: filters.verdict.value,
      case: filters.case.value,
      coordinate: filters.coordinate.value,
      repetition: filters.repetition.value,
    };
    return (index) => {
      const observation = evidence.observations[index];
      const variant = evidence.variants[observation.variant];
      if (wanted.verdict && verdict(observation) !== wanted.verdict) return false;
      if (wanted.case && variant.case !== wanted.case) return false;
      if (wanted.coordinate && variant.coordinate !== wanted.coordinate) return false;
      if (wanted.repetition && String(observation.repetition) !== wanted.repetition) return false;
      if (words.length) {
        const text = haystack(index);
        return words.every((word) => text.includes(word));
      }
      return true;
    };
  };

  // -- the two views -------------------------------------------------------------------------------
  const compareBox = field("outputs-compare");
  const shown = field("outputs-shown");
  const viewButtons = { compare: field("outputs-view-compare"), list: field("outputs-view-list") };
  const plural = (count, word) => count.toLocaleString("en") + " " + word + (count === 1 ? "" : "s");

  const listed = (filtered, upTo) => {
    list.replaceChildren();
    const old = dialog.querySelector(".dialog-body > button.more");
    if (old) old.remove();
    let count = 0;
    const more = element("button", null, "dialog-close more");
    more.type = "button";
    const next = (until) => {
      const end = Math.min(filtered.length, Math.max(count + PAGE, until || 0));
      list.append(...filtered.slice(count, end).map(row));
      count = end;
      more.textContent = "Show " + Math.min(PAGE, filtered.length - count) + " more";
      if (count >= filtered.length) more.remove();
      else if (!more.isConnected) list.after(more);
      more.hidden = state.view !== "list";
      return count;
    };
    more.addEventListener("click", () => {
      next();
      say(filtered);
    });
    next(upTo);
    state.more = more;
    state.listedCount = () => count;
  };

  const compared = (filtered) => {
    compareBox.replaceChildren();
    if (!state.step) return;
    const keep = new Set(filtered);
    const all = window.modelscapeCompare.groups(evidence, state.indices, state.step);
    const wanted = all.filter((group) => group.outputs.some((side) => side.some((index) => keep.has(index))));
    state.groups = { shown: 0, total: all.length, wanted: wanted.length };
    const more = element("button", null, "dialog-close more-cases");
    more.type = "button";
    const next = () => {
      const slice = wanted.slice(state.groups.shown, state.groups.shown + CASES);
      compareBox.append(...slice.map((group) => window.modelscapeCompare.render(evidence, group, state.step, answer)));
      state.groups.shown += slice.length;
      more.textContent = "Show " + Math.min(CASES, wanted.length - state.groups.shown) + " more cases";
      if (state.groups.shown >= wanted.length) more.remove();
      else compareBox.append(more);
    };
    more.addEventListener("click", () => {
      next();
      say(filtered);
    });
    next();
    if (!wanted.length) compareBox.append(element("p", "No case has an output that matches the filters.", "meta"));
  };

  const say = (filtered) => {
    const total = state.indices.length;
    const filteredWords = filtered.length === total ? "" : " match the filters";
    if (state.view === "compare" && state.groups) {
      const { shown: count, wanted, total } = state.groups;
      shown.textContent = "Showing " + count.toLocaleString("en") + " of " + plural(wanted, "case") +
        (wanted === total ? "" : " with outputs that match the filters (" + total.toLocaleString("en") + " in all)") + ".";
    } else {
      shown.textContent = "Showing " + Math.min(state.listedCount(), filtered.length).toLocaleString("en") + " of " +
        plural(filtered.length, "output") + (filteredWords ? " that" + filteredWords : "") + ".";
    }
  };

  const refresh = (upTo) => {
    const keep = matches();
    const filtered = state.indices.filter(keep);
    listed(filtered, upTo);
    if (state.view === "compare") compared(filtered);
    else compareBox.replaceChildren();
    say(filtered);
    return filtered;
  };

  const showView = (view) => {
    state.view = state.step ? view : "list";
    const comparing = state.view === "compare";
    compareBox.hidden = !comparing;
    list.hidden = comparing;
    viewButtons.compare.setAttribute("aria-pressed", String(comparing));
    viewButtons.list.setAttribute("aria-pressed", String(!comparing));
    field("outputs-views").hidden = !state.step;
  };

  const open = (index, label, wish) => {
    const want = wish || {};
    const indices = members(evidence.sets[index]);
    const step = comparisonOf(index);
    state = { index, label, indices, step, view: "compare", output: null, groups: null };
    document.getElementById("outputs-title").textContent = label;
    document.getElementById("outputs-count").textContent =
      plural(indices.length, "output") + " behind this number" +
      (!step ? "" : step.by === "coordinate" ? " · a step from " + step.sides[0] + " to " + step.sides[1]
        : " · " + evidence.targets[step.targets[1]] + " against " + evidence.targets[step.targets[0]] + " on the same prompts");
    fill(indices);
    apply(want.filters);
    state.filters = current();
    showView(want.view === "list" || want.output ? "list" : "compare");
    let upTo = 0;
    if (want.output) {
      const position = indices.findIndex((i) => evidence.observations[i].id === want.output);
      if (position >= 0) upTo = position + 1;
    }
    refresh(upTo);
    if (!dialog.open) dialog.showModal();
    if (want.output) {
      const item = Array.from(list.children).find((li) => li.dataset.observation === want.output);
      if (item) {
        const details = item.querySelector("details");
        details.open = true;
        state.output = want.output;
        item.scrollIntoView({ block: "start" });
      }
    }
  };

  for (const control of Object.values(filters)) {
    control.addEventListener(control === filters.search ? "input" : "change", () => {
      if (!state) return;
      state.filters = current();
      refresh();
      remember(false);
    });
  }
  field("outputs-filters").addEventListener("submit", (event) => event.preventDefault());
  for (const [view, button] of Object.entries(viewButtons)) {
    button.addEventListener("click", () => {
      if (!state) return;
      state.output = null;
      showView(view);
      refresh();
      remember(false);
    });
  }

  // The label of a number from the address alone: the first button that opens its outputs.
  const labelOf = (index) => {
    const button = Array.from(document.querySelectorAll("button[data-evidence]"))
      .find((candidate) => candidate.dataset.evidence === String(index));
    return button ? button.dataset.label : "Outputs behind a number";
  };

  // Make the dialog show what the address names, without writing the address again.
  const follow = () => {
    const wanted = parse(location.hash);
    following = true;
    try {
      if (wanted === null) {
        if (dialog.open) dialog.close();
        state = null;
        return;
      }
      const stepped = comparisonOf(wanted.index) !== null;
      const view = wanted.view === "list" || wanted.output || !stepped ? "list" : "compare";
      const same = state && dialog.open && state.index === wanted.index &&
        state.view === view && state.output === wanted.output && sameFilters(state.filters, wanted.filters);
      if (same) return;
      const label = history.state && history.state.modelscape && history.state.label
        ? history.state.label : labelOf(wanted.index);
      open(wanted.index, label, wanted);
    } finally {
      following = false;
    }
  };

  const begin = (index, label) => {
    open(index, label);
    remember(true);
  };

  document.addEventListener("click", (event) => {
    const button = event.target.closest("button[data-evidence]");
    if (button && evidence) begin(Number(button.dataset.evidence), button.dataset.label);
  });
  document.getElementById("outputs-close").addEventListener("click", () => dialog.close());
  dialog.addEventListener("click", (event) => {
    if (event.target === dialog) dialog.close();
  });
  // However the dialog closes (its button, Escape, a click outside), the address forgets it: a
  // dialog this page opened steps back in history, one opened from an address drops the hash.
  // The close event arrives as a task of its own, after the call that closed the dialog: one
  // that finds the dialog open again belongs to a dialog the history has since reopened.
  dialog.addEventListener("close", () => {
    if (following || !state || dialog.open) return;
    state = null;
    if (!parse(location.hash)) return;
    if (history.state && history.state.modelscape && history.state.pushed) history.back();
    else history.replaceState(null, "", location.pathname + location.search);
  });
  window.addEventListener("popstate", follow);
  window.addEventListener("hashchange", follow);
  if (evidence && parse(location.hash)) follow();

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
          const labels = figure.labels && figure.labels[point.curveNumber];
          // A heatmap's point is a [row, column] pair; its labels are rows of labels.
          const at = point.pointNumber;
          const words = !labels ? undefined
            : Array.isArray(at) ? (Array.isArray(labels[at[0]]) ? labels[at[0]][at[1]] : undefined)
            : labels[at];
          begin(Number(point.customdata), typeof words === "string" ? words : labelOf(point.customdata));
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
