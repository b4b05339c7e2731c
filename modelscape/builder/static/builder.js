// The Builder widget's front end: an anywidget ESM module in plain JavaScript, no build step,
// no network. It draws the `view` the Python side computes and sends every edit back as a
// message {method, args, kwargs}; Python applies it through the Builder method of that name
// and answers with new traits (or an `error`). Nothing from the spec is ever inserted as markup:
// every text goes in through textContent or an input's value.

const SCALES = ["nominal", "ordinal", "numeric"];

// A value typed as text, read as the Python side reads cells: whole numbers, decimals and
// true/false become numbers and booleans, anything else stays text.
export function cell(text) {
  if (/^-?(0|[1-9][0-9]*)$/.test(text)) return parseInt(text, 10);
  if (/^-?(0|[1-9][0-9]*)\.[0-9]+$/.test(text)) return parseFloat(text);
  if (/^(true|false)$/i.test(text)) return text.toLowerCase() === "true";
  return text;
}

function show(value) {
  return value === null || value === undefined ? "—" : String(value);
}

function same(a, b) {
  return typeof a === typeof b && a === b;
}

// A small element builder: h("button", {class: "x", onclick: f}, "text", child, ...).
function h(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (value === undefined || value === null) continue;
    if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else if (key === "class") node.className = value;
    else if (key === "value" || key === "checked" || key === "disabled") node[key] = value;
    else if (key === "dataset") Object.assign(node.dataset, value);
    else node.setAttribute(key, String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : String(child));
  }
  return node;
}

function options(values, chosen, blank) {
  const items = blank === undefined ? [] : [h("option", { value: "" }, blank)];
  values.forEach((value, index) =>
    items.push(h("option", { value: String(index), selected: same(value, chosen) ? "" : null }, show(value))),
  );
  return items;
}

function picked(select, values) {
  return select.value === "" ? null : values[Number(select.value)];
}

function list(text) {
  return text.split(",").map((item) => item.trim()).filter((item) => item !== "").map(cell);
}

// The template text of pieces: literal braces doubled, slots as written.
function template(pieces) {
  return pieces.map((p) => (p.slot === null ? p.text.replace(/[{}]/g, "$&$&") : p.text)).join("");
}

// Where the current selection lies, when both its ends are in the same literal piece.
function selectionIn(root) {
  const selection = root.ownerDocument.getSelection();
  if (!selection || selection.rangeCount === 0) return null;
  const ends = [
    [selection.anchorNode, selection.anchorOffset],
    [selection.focusNode, selection.focusOffset],
  ].map(([node, offset]) => {
    const element = node && (node.nodeType === Node.TEXT_NODE ? node.parentElement : node);
    const piece = element && element.closest ? element.closest("[data-piece]") : null;
    if (!piece || !root.contains(piece)) return null;
    const at = node.nodeType === Node.TEXT_NODE ? offset : offset === 0 ? 0 : piece.textContent.length;
    return { piece, at };
  });
  if (!ends[0] || !ends[1]) return null;
  if (ends[0].piece !== ends[1].piece) return { problem: "Select text within one piece of the prompt." };
  const piece = ends[0].piece;
  if (piece.dataset.slot !== undefined) return { problem: "That is a slot already; select plain text." };
  const start = Math.min(ends[0].at, ends[1].at);
  const end = Math.max(ends[0].at, ends[1].at);
  return {
    prompt: Number(piece.dataset.prompt),
    piece: Number(piece.dataset.piece),
    start,
    end,
    text: piece.textContent.slice(start, end),
  };
}

function render({ model, el }) {
  const root = h("div", { class: "ms-builder" });
  el.append(root);
  let chosen = null; // the last selection inside a literal piece
  const send = (method, args = [], kwargs = {}) => model.send({ method, args, kwargs });
  const section = (title, ...content) => h("section", {}, h("h3", {}, title), ...content);
  const input = (value, onchange, props = {}) =>
    h("input", { type: "text", value: value ?? "", onchange: (e) => onchange(e.target.value), ...props });
  // a text cell: one line in an input, several in a textarea so the lines stay visible
  const text = (value, onchange) =>
    String(value).includes("\n")
      ? h("textarea", { class: "ms-cell", rows: String(value).split("\n").length, value, onchange: (e) => onchange(e.target.value) })
      : input(value, onchange);

  function field(view, key, label, kind) {
    const read = (text) => (text === "" ? null : kind === "number" ? cell(text) : text);
    return h("label", { class: "ms-field" }, label, input(view.fields[key], (text) => send("edit", [key, read(text)])));
  }

  function prompts(view) {
    const versioned = view.versions.name !== null;
    const shown = view.prompts.map((prompt, index) => {
      const pieces = prompt.pieces.map((piece, position) =>
        piece.slot === null
          ? h("span", { class: "ms-piece", dataset: { piece: position, prompt: index } }, piece.text)
          : h("span", { class: "ms-slot", dataset: { piece: position, prompt: index, slot: piece.slot } }, piece.text),
      );
      const editor = h("textarea", { class: "ms-source", rows: 4, hidden: "" });
      editor.value = template(prompt.pieces);
      const toggle = h("button", { onclick: () => (editor.hidden = !editor.hidden) }, "Edit text");
      const apply = h("button", {
        onclick: () => (versioned ? send("version", [prompt.label, editor.value]) : send("edit", ["prompt", editor.value])),
      }, "Apply text");
      return h("div", { class: "ms-version" },
        versioned ? h("div", { class: "ms-label" }, `${view.versions.name} = ${show(prompt.label)}`) : null,
        h("div", { class: "ms-prompt" }, pieces),
        prompt.error ? h("div", { class: "ms-problem" }, prompt.error) : null,
        h("div", { class: "ms-row" }, toggle, apply), editor);
    });
    const name = h("input", { type: "text", placeholder: "slot name (optional)" });
    const sources = [["", "the selected text as its value"]]
      .concat(view.slots.map((s) => [`slot:${s.name}`, `existing slot {${s.name}}`]))
      .concat(view.lexicons.map((l) => [`lexicon:${l}`, `shipped lexicon: ${l}`]));
    const source = h("select", { class: "ms-source-pick" }, sources.map(([value, text]) => h("option", { value }, text)));
    const note = h("span", { class: "ms-selection" }, chosen ? `Selected “${chosen.text}”` : "Select text in the prompt.");
    const make = h("button", {
      class: "ms-mark",
      onclick: () => {
        if (!chosen || chosen.problem) return;
        const kwargs = {};
        let slot = name.value.trim() || null;
        if (source.value.startsWith("slot:")) slot = source.value.slice(5);
        if (source.value.startsWith("lexicon:")) kwargs.lexicon = source.value.slice(8);
        if (versioned) kwargs.version = view.versions.labels[chosen.prompt];
        send("mark", [chosen.piece, chosen.start, chosen.end, slot], kwargs);
      },
    }, "Make slot");
    const versionName = input(view.versions.name, () => {}, { placeholder: "versions name, e.g. tone" });
    const labels = input(view.versions.labels.map(show).join(", "), () => {}, { placeholder: "labels, comma separated" });
    return section("Prompt", shown,
      h("div", { class: "ms-row ms-toolbar" }, note, name, source, make),
      h("div", { class: "ms-row" }, versionName, labels,
        h("button", { onclick: () => send("versions", [versionName.value.trim() || null, list(labels.value)]) }, "Set versions"),
        versioned ? h("button", { onclick: () => send("versions", [null, []]) }, "One prompt") : null));
  }

  function slotTable(view, slot) {
    const versions = view.versions.labels;
    const perVersion = slot.versioned && versions.length > 0;
    const row = (r) => {
      const out = { label: r.label, ...r.properties };
      out.text = perVersion ? Object.fromEntries(versions.map((v, i) => [show(v), r.text[i]])) : r.text;
      return out;
    };
    const change = (index, update) => {
      const rows = slot.rows.map(row);
      update(rows[index]);
      send("rows", [slot.name, rows]);
    };
    const head = h("tr", {}, h("th", {}, "#"), h("th", {}, "label"),
      perVersion ? versions.map((v) => h("th", {}, `text (${show(v)})`)) : h("th", {}, "text"),
      slot.properties.map((p) => h("th", {}, p, h("button", { class: "ms-small", title: `drop ${p}`, onclick: () => send("drop", [slot.name, p]) }, "×"))),
      h("th", {}));
    const body = slot.rows.map((r, index) => h("tr", {},
      h("td", {}, index === 0 ? "baseline" : String(index)),
      h("td", {}, input(show(r.label), (text) => change(index, (o) => (o.label = text)))),
      perVersion
        ? versions.map((v, i) => h("td", {}, text(r.text[i], (typed) => change(index, (o) => (o.text[show(v)] = typed)))))
        : h("td", {}, text(r.text, (typed) => change(index, (o) => (o.text = typed)))),
      slot.properties.map((p) => h("td", {}, input(r.properties[p] === null ? "" : show(r.properties[p]), (text) => change(index, (o) => (o[p] = text))))),
      h("td", {}, index > 0 ? h("button", { class: "ms-small", title: "move up", onclick: () => send("move", [slot.name, index]) }, "↑") : null)));
    const table = h("table", { class: "ms-table" }, h("thead", {}, head), h("tbody", {}, body));
    // long lexicons (the shipped names have 70) stay folded until asked for
    return h("details", { open: slot.rows.length <= 12 ? "" : null },
      h("summary", {}, `${slot.rows.length} value${slot.rows.length === 1 ? "" : "s"}`), table);
  }

  function slots(view) {
    return section("Slots", view.slots.length === 0 ? h("p", {}, "No slots yet: select text in the prompt and make it a slot.") : null,
      view.slots.map((slot) => {
        const property = h("input", { type: "text", placeholder: "new property" });
        const [start, stop, step] = ["start", "stop", "step"].map((k) => h("input", { type: "text", class: "ms-number", placeholder: k, value: slot.range ? show(slot.range[k]) : "" }));
        return h("div", { class: "ms-slot-box", dataset: { slotName: slot.name } },
          h("div", { class: "ms-row" },
            h("strong", {}, "{", input(slot.name, (text) => send("rename", [slot.name, text.trim()]), { class: "ms-name" }), "}"),
            slot.lexicon ? h("span", { class: "ms-note" }, `shipped lexicon ${slot.lexicon}`) : null,
            h("button", { onclick: () => send("remove", [slot.name]) }, "Remove slot")),
          slot.error ? h("div", { class: "ms-problem" }, slot.error) : slotTable(view, slot),
          h("div", { class: "ms-row" },
            h("button", { onclick: () => send("add", [slot.name]) }, "+ value"),
            property, h("button", { onclick: () => send("extend", [slot.name, property.value.trim()]) }, "+ property"),
            view.versions.name !== null
              ? h("label", {}, h("input", { type: "checkbox", checked: Boolean(slot.versioned), onchange: (e) => send("per_version", [slot.name, e.target.checked]) }), " text per version")
              : null,
            start, stop, step,
            h("button", { onclick: () => send("range", [slot.name, cell(start.value), cell(stop.value), cell(step.value)]) }, "Numbers")));
      }));
  }

  function vary(view) {
    return section("What varies", h("table", { class: "ms-table" }, view.attributes.map((a) => {
      const scale = h("select", { onchange: (e) => send("vary", [a.name, e.target.value || null]) },
        h("option", { value: "" }, "fixed"), SCALES.map((s) => h("option", { value: s, selected: a.scale === s ? "" : null }, s)));
      return h("tr", {}, h("td", {}, a.name), h("td", {}, scale), h("td", { class: "ms-note" }, a.values.slice(0, 6).map(show).join(", ") + (a.values.length > 6 ? ", …" : "")));
    })));
  }

  function answer(view) {
    const a = view.answer;
    const mode = h("select", {}, h("option", { value: "field" }, "JSON field"), h("option", { value: "pattern", selected: a.pattern !== null ? "" : null }, "text pattern"));
    const read = h("input", { type: "text", value: a.pattern ?? a.field ?? "", placeholder: "field name or pattern" });
    const choices = h("input", { type: "text", value: a.choices.map(show).join(", "), placeholder: "choices, comma separated" });
    const kinds = [["none", "no correct answer yet"], ["one", "always the same"], ["mapping", "depends on one attribute"]];
    if (a.correct.kind === "rows") kinds.push(["rows", "a table (as written in YAML)"]);
    const kind = h("select", { class: "ms-kind" }, kinds.map(([v, t]) => h("option", { value: v, selected: a.correct.kind === v ? "" : null }, t)));
    const attributes = view.attributes.map((x) => x.name);
    const attribute = h("select", { class: "ms-attribute" }, options(attributes, a.correct.attribute ?? null, "attribute…"));
    const one = h("select", {}, options(a.choices, a.correct.value ?? null, "choice…"));
    const table = h("div", { class: "ms-pairs" });
    const drawPairs = () => {
      const name = picked(attribute, attributes);
      const values = name === null ? [] : view.attributes.find((x) => x.name === name).values;
      const known = name === a.correct.attribute ? a.correct.pairs : [];
      table.replaceChildren(...values.map((value) => {
        const pair = known.find(([v]) => same(v, value));
        return h("label", { class: "ms-field" }, show(value), " → ", h("select", { dataset: { index: values.indexOf(value) } }, options(a.choices, pair ? pair[1] : null, "choice…")));
      }));
    };
    attribute.addEventListener("change", drawPairs);
    drawPairs();
    const showKind = () => {
      one.hidden = kind.value !== "one";
      attribute.hidden = table.hidden = kind.value !== "mapping";
    };
    kind.addEventListener("change", showKind);
    showKind();
    const set = h("button", {
      onclick: () => {
        const listed = list(choices.value);
        let correct = null;
        if (kind.value === "one") correct = picked(one, a.choices);
        if (kind.value === "rows") correct = a.correct.rows;
        if (kind.value === "mapping") {
          const name = picked(attribute, attributes);
          const values = name === null ? [] : view.attributes.find((x) => x.name === name).values;
          const pairs = [...table.querySelectorAll("select")].map((s) => [values[Number(s.dataset.index)], picked(s, a.choices)]);
          correct = name === null ? null : { [name]: pairs.filter(([, v]) => v !== null) };
        }
        const text = read.value.trim();
        if (mode.value === "pattern") send("answer", [null, listed, correct], { pattern: text });
        else send("answer", [text, listed, correct]);
      },
    }, "Set answer");
    return section("Answer", h("div", { class: "ms-row" }, mode, read, choices),
      h("div", { class: "ms-row" }, "Correct answer: ", kind, one, attribute), table,
      h("div", { class: "ms-row" }, set, h("button", { onclick: () => send("instruct") }, "Add reply instruction to system prompt")));
  }

  function groups(view) {
    const attributes = view.attributes.map((x) => x.name);
    const name = h("input", { type: "text", placeholder: "group name" });
    const attribute = h("select", {}, options(attributes, null, "attribute…"));
    const value = h("select", {});
    attribute.addEventListener("change", () => {
      const found = view.attributes.find((x) => x.name === picked(attribute, attributes));
      value.replaceChildren(...options(found ? found.values : [], null));
    });
    const add = h("button", {
      onclick: () => {
        const key = picked(attribute, attributes);
        const found = view.attributes.find((x) => x.name === key);
        if (key !== null && found) send("group", [name.value.trim(), { [key]: picked(value, found.values) }]);
      },
    }, "Add group");
    return section("Groups",
      view.groups.map((g) => h("div", { class: "ms-row" }, h("strong", {}, g.name), " ",
        g.when.map(([k, v]) => `${k} = ${Array.isArray(v) ? v.map(show).join(" or ") : show(v)}`).join("; "),
        h("button", { class: "ms-small", onclick: () => send("group", [g.name, null]) }, "×"))),
      h("div", { class: "ms-row" }, name, attribute, value, add));
  }

  function preview() {
    const rows = model.get("preview") || [];
    if (rows.length === 0) return section("Preview", h("p", { class: "ms-note" }, "The variants show here once the spec is complete."));
    return section(`Preview: every variant of case ${rows[0].case}`,
      rows[0].system ? h("pre", { class: "ms-system" }, rows[0].system) : null,
      rows.map((r) => h("div", { class: "ms-variant" }, h("div", { class: "ms-label" }, `${r.changed} · correct answer: ${show(r.answer)}`), h("pre", {}, r.prompt))));
  }

  function draw() {
    const view = model.get("view");
    const problems = model.get("problems") || [];
    const error = model.get("error");
    const path = h("input", { type: "text", value: `${view.fields.name || "scenario"}.yaml` });
    root.replaceChildren(...[
      h("div", { class: "ms-row ms-top" }, h("strong", {}, "Scenario builder"),
        h("button", { class: "ms-undo", onclick: () => send("undo") }, "Undo"), path,
        h("button", { onclick: () => send("save", [path.value]) }, "Save YAML"),
        h("span", { class: "ms-note" }, model.get("status") || "")),
      error ? h("div", { class: "ms-error", role: "alert" }, error) : null,
      h("div", { class: "ms-fields" }, field(view, "name", "name"), field(view, "description", "description"),
        field(view, "cases", "cases", "number"), field(view, "repetitions", "repetitions", "number"), field(view, "seed", "seed", "number")),
      prompts(view),
      section("System prompt", h("textarea", { class: "ms-system-text", rows: 3, onchange: (e) => send("edit", ["system", e.target.value || null]) }, view.fields.system ?? "")),
      slots(view), vary(view), answer(view), groups(view),
      section("Problems", problems.length === 0 ? h("p", { class: "ms-complete" }, "Complete: ready to save and run.") : h("ul", { class: "ms-problems" }, problems.map((p) => h("li", {}, p)))),
      preview(),
      h("details", {}, h("summary", {}, "YAML"), h("pre", { class: "ms-yaml" }, view.yaml)),
    ].filter(Boolean));
  }

  const remember = () => {
    const found = selectionIn(root);
    if (found) {
      chosen = found;
      const note = root.querySelector(".ms-selection");
      if (note) note.textContent = found.problem ?? `Selected “${found.text}”`;
    }
  };
  const redraw = () => {
    chosen = null;
    draw();
  };
  const doc = el.ownerDocument || document;
  doc.addEventListener("selectionchange", remember);
  root.addEventListener("mouseup", remember);
  const traits = ["view", "problems", "preview", "error", "status"];
  traits.forEach((name) => model.on(`change:${name}`, redraw));
  draw();
  return () => {
    doc.removeEventListener("selectionchange", remember);
    traits.forEach((name) => model.off(`change:${name}`, redraw));
  };
}

export default { render };
