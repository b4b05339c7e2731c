// The Builder widget's front end: an anywidget ESM module in plain JavaScript, no build step,
// no network. It draws the `view` the Python side computes and sends every edit back as a
// message {method, args, kwargs}; Python applies it through the Builder method of that name
// and answers with new traits (or an `error`). Nothing from the spec is ever inserted as markup:
// every text goes in through text nodes or an input's value.
//
// Every change is drawn in place: `draw` describes the whole widget as light nodes and `patch`
// changes only the elements whose description changed. An element that stays keeps what a
// person did to it: text typed but not applied yet, keyboard focus, an open panel. A control's
// value is written only when the value the Python side holds for it changes, so a reply to
// one edit never wipes what is being typed in another control.

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

function list(text) {
  return text.split(",").map((item) => item.trim()).filter((item) => item !== "").map(cell);
}

// -- light nodes and patching ---------------------------------------------------------------
// h("input", {class: "x", value: v, oninput: f, key: k}, ...children); null children hold
// their place, so what follows a control that comes and goes is never rebuilt.
export function h(tag, props = {}, ...children) {
  const kids = children.flat(Infinity).map((c) =>
    c === null || c === undefined || c === false ? { empty: true } : typeof c === "object" ? c : { text: String(c) },
  );
  return { tag, props: props || {}, key: props && props.key, children: kids };
}

const PROPERTIES = new Set(["value", "checked", "disabled", "hidden", "open", "selected"]);

function setProp(node, name, value) {
  if (name === "class") node.className = value ?? "";
  else if (PROPERTIES.has(name)) node[name] = name === "value" ? String(value ?? "") : Boolean(value);
  else if (value === null || value === undefined || value === false) node.removeAttribute(name);
  else node.setAttribute(name, String(value));
}

function fits(old, next) {
  if (old.text !== undefined || next.text !== undefined) return old.text !== undefined && next.text !== undefined;
  if (old.empty || next.empty) return Boolean(old.empty && next.empty);
  return old.tag === next.tag && old.key === next.key;
}

function create(next) {
  let node;
  if (next.text !== undefined) node = document.createTextNode(next.text);
  else if (next.empty) node = document.createComment("");
  else {
    node = document.createElement(next.tag);
    node.__v = { tag: next.tag, props: {}, children: [] };
    update(node, next, true);
    return node;
  }
  node.__v = next;
  return node;
}

function update(node, next, fresh = false) {
  if (next.text !== undefined) {
    if (node.__v.text !== next.text) node.data = next.text;
    node.__v = next;
    return;
  }
  if (next.empty) return;
  const old = node.__v.props;
  for (const [name, value] of Object.entries(next.props)) {
    if (name === "key" || name === "value") continue;
    if (name.startsWith("on")) {
      node.__on ||= {};
      if (!node.__on[name]) node.addEventListener(name.slice(2), (event) => node.__on[name] && node.__on[name](event));
      node.__on[name] = value;
    } else if (fresh || old[name] !== value) setProp(node, name, value);
  }
  for (const name of Object.keys(old)) {
    if (name in next.props || name === "key" || name.startsWith("on")) continue;
    if (name === "value") continue;
    setProp(node, name, null);
  }
  patch(node, next.children);
  // a value goes in after the options of a select exist, and only when it changed
  if ("value" in next.props && (fresh || old.value !== next.props.value)) setProp(node, "value", next.props.value);
  node.__v = next;
}

// Make the children of `parent` those `wanted` describes, reusing every element that fits.
export function patch(parent, wanted) {
  const keyed = wanted.length > 0 && wanted.every((c) => c.key !== undefined && c.key !== null);
  if (!keyed) {
    const existing = [...parent.childNodes];
    wanted.forEach((next, index) => {
      const have = existing[index];
      if (have && have.__v && fits(have.__v, next)) update(have, next);
      else if (have) parent.replaceChild(create(next), have);
      else parent.appendChild(create(next));
    });
    existing.slice(wanted.length).forEach((node) => node.remove());
    return;
  }
  const byKey = new Map();
  for (const node of parent.childNodes) if (node.__v && node.__v.key != null) byKey.set(`${node.__v.tag}\u0000${node.__v.key}`, node);
  let at = parent.firstChild;
  for (const next of wanted) {
    const id = `${next.tag}\u0000${next.key}`;
    let node = byKey.get(id);
    if (node) {
      byKey.delete(id);
      update(node, next);
    } else node = create(next);
    if (node === at) at = at.nextSibling;
    else parent.insertBefore(node, at);
  }
  while (at) {
    const following = at.nextSibling;
    at.remove();
    at = following;
  }
}

// -- template text as a person reads it -----------------------------------------------------
// A prompt's pieces shown with literal braces as one brace, and slots as {name}.
function readable(pieces) {
  return pieces.map((p) => p.text).join("");
}

// Text typed in a prompt box back to template text: {name} of a known slot stays a slot, every
// other brace is a literal one, doubled.
export function templateOf(text, names) {
  const escape = (part) => part.replace(/[{}]/g, "$&$&");
  let out = "";
  let last = 0;
  for (const found of text.matchAll(/\{([^{}]*)\}/g)) {
    const name = found[1].split(/[.!:[]/)[0];
    out += escape(text.slice(last, found.index));
    out += names.includes(name) ? found[0] : escape(found[0]);
    last = found.index + found[0].length;
  }
  return out + escape(text.slice(last));
}

// The pattern that reads the first of the choices written as a word, in any case.
export function wordPattern(choices) {
  const words = choices.map((c) => String(c).replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
  return `(?i)\\b(${words.join("|")})\\b`;
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

// -- the widget ------------------------------------------------------------------------------
// The answer form as a person fills it in, from the answer the Python side holds.
function answerForm(a) {
  const mode = a.field !== null ? "field" : a.pattern === null ? "field" : a.pattern === wordPattern(a.choices) ? "word" : "pattern";
  const picks = {};
  if (a.correct.kind === "mapping") for (const [value, choice] of a.correct.pairs) picks[show(value)] = show(choice);
  return {
    mode,
    read: a.field ?? (mode === "pattern" ? a.pattern : ""),
    choices: a.choices.map(show).join(", "),
    kind: a.correct.kind,
    one: a.correct.kind === "one" ? show(a.correct.value) : "",
    attribute: a.correct.attribute ?? "",
    picks,
    at: "",
    below: "",
    above: "",
  };
}

function render({ model, el }) {
  const root = document.createElement("div");
  root.className = "ms-builder";
  el.append(root);
  const local = {
    chosen: null, // the last selection inside a literal piece of the prompt
    origin: "top", // the part of the widget whose control sent the last edit: its error shows there
    answer: null, // the answer form as typed (see answerForm)
    answerSeen: null, // the view's answer that form was filled from
    editing: {}, // the prompt versions whose text box is open
    groupAttribute: "",
  };
  const send = (origin, method, args = [], kwargs = {}) => {
    local.origin = origin;
    model.send({ method, args, kwargs });
  };
  const input = (value, onchange, props = {}) =>
    h("input", { type: "text", value: value ?? "", onchange: onchange && ((e) => onchange(e.target.value)), ...props });
  const section = (key, title, ...content) => h("section", { class: `ms-${key}` }, h("h3", {}, title), ...content);

  // each problem beside the control that can fix it, and the last edit's error beside the
  // control that sent it
  function notes(view, match, origin) {
    const shown = view.notes.filter((n) => (typeof match === "string" ? n.place === match : match(n.place)));
    const error = origin !== undefined && local.origin === origin ? model.get("error") : "";
    return h("div", { class: "ms-notes" },
      shown.map((n) => h("div", { class: "ms-problem" }, n.text)),
      error ? h("div", { class: "ms-error", role: "alert" }, error) : null);
  }

  function field(view, key, label, kind) {
    const read = (text) => (text === "" ? null : kind === "number" ? cell(text) : text);
    return h("label", { class: "ms-field" }, label, input(view.fields[key], (text) => send("fields", "edit", [key, read(text)])));
  }

  function prompts(view) {
    const versioned = view.versions.name !== null;
    const names = view.slots.map((s) => s.name).concat(versioned ? [view.versions.name] : []);
    const shown = view.prompts.map((prompt, index) => {
      const pieces = prompt.pieces.map((piece, position) =>
        piece.slot === null
          ? h("span", { class: "ms-piece", "data-piece": position, "data-prompt": index }, piece.text)
          : h("span", { class: "ms-slot", "data-piece": position, "data-prompt": index, "data-slot": piece.slot }, piece.text),
      );
      const open = Boolean(local.editing[index]);
      const apply = (event) => {
        const text = templateOf(event.target.closest(".ms-version").querySelector(".ms-source").value, names);
        if (versioned) send("prompt", "version", [prompt.label, text]);
        else send("prompt", "edit", ["prompt", text]);
      };
      return h("div", { class: "ms-version", key: `version-${index}` },
        versioned ? h("div", { class: "ms-label" }, `${view.versions.name} = ${show(prompt.label)}`) : null,
        h("div", { class: "ms-prompt" }, pieces),
        prompt.error ? h("div", { class: "ms-problem" }, prompt.error) : null,
        h("div", { class: "ms-row" },
          h("button", { onclick: () => { local.editing[index] = !open; draw(); } }, open ? "Close text" : "Edit text"),
          open ? h("button", { onclick: apply }, "Apply text") : null),
        h("textarea", { class: "ms-source", rows: 4, hidden: !open, value: readable(prompt.pieces), "aria-label": "prompt text" }));
    });
    const sources = [["", "the selected text as its value"]]
      .concat(view.slots.map((s) => [`slot:${s.name}`, `existing slot {${s.name}}`]))
      .concat(view.lexicons.map((l) => [`lexicon:${l}`, `shipped list of values: ${l}`]));
    const chosen = local.chosen;
    const make = (event) => {
      if (!chosen || chosen.problem) return;
      const bar = event.target.closest(".ms-toolbar");
      const name = bar.querySelector(".ms-slot-name");
      const source = bar.querySelector(".ms-source-pick");
      const kwargs = {};
      let slot = name.value.trim() || null;
      if (source.value.startsWith("slot:")) slot = source.value.slice(5);
      if (source.value.startsWith("lexicon:")) kwargs.lexicon = source.value.slice(8);
      if (versioned) kwargs.version = view.versions.labels[chosen.prompt];
      send("prompt", "mark", [chosen.piece, chosen.start, chosen.end, slot], kwargs);
      name.value = "";
      source.value = "";
    };
    const setVersions = (event) => {
      const row = event.target.closest(".ms-row");
      const [name, labels] = row.querySelectorAll("input");
      send("prompt", "versions", [name.value.trim() || null, list(labels.value)]);
    };
    return section("prompt-part", "Prompt", shown,
      h("div", { class: "ms-row ms-toolbar" },
        h("span", { class: "ms-selection" }, chosen ? chosen.problem ?? `Selected “${chosen.text}”` : "Select text in the prompt."),
        input("", null, { class: "ms-slot-name", placeholder: "slot name (optional)", "aria-label": "slot name" }),
        h("select", { class: "ms-source-pick", "aria-label": "values of the slot" }, sources.map(([value, text]) => h("option", { value }, text))),
        h("button", { class: "ms-mark", onclick: make }, "Make slot")),
      notes(view, "prompt", "prompt"),
      h("div", { class: "ms-row" },
        input(view.versions.name, null, { placeholder: "versions name, e.g. tone", "aria-label": "versions name" }),
        input(view.versions.labels.map(show).join(", "), null, { placeholder: "labels, comma separated", "aria-label": "version labels" }),
        h("button", { onclick: setVersions }, "Set versions"),
        versioned ? h("button", { onclick: () => send("prompt", "versions", [null, []]) }, "One prompt") : null));
  }

  function system(view) {
    const names = view.slots.map((s) => s.name).concat(view.versions.name !== null ? [view.versions.name] : []);
    const change = (e) => send("system", "edit", ["system", e.target.value === "" ? null : templateOf(e.target.value, names)]);
    return section("system-part", "System prompt",
      h("textarea", { class: "ms-system-text", rows: 3, value: readable(view.system.pieces), onchange: change, "aria-label": "system prompt" }),
      view.system.error ? h("div", { class: "ms-problem" }, view.system.error) : null,
      notes(view, "system", "system"));
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
      send(`slot:${slot.name}`, "rows", [slot.name, rows]);
    };
    // a long text gets a box that wraps, so none is cut off in a narrow cell
    const text = (value, onchange, label) => {
      const typed = String(value);
      if (!typed.includes("\n") && typed.length <= 40) return input(typed, onchange, { "aria-label": label });
      const rows = Math.min(10, typed.split("\n").length + Math.floor(typed.length / 60));
      return h("textarea", { class: "ms-cell", rows, value: typed, onchange: (e) => onchange(e.target.value), "aria-label": label });
    };
    const head = h("tr", {}, h("th", {}, "#"), h("th", {}, "label"),
      perVersion ? versions.map((v) => h("th", {}, `text (${show(v)})`)) : h("th", {}, "text"),
      slot.properties.map((p) => h("th", {}, p, h("button", { class: "ms-small", title: `drop ${p}`, onclick: () => send(`slot:${slot.name}`, "drop", [slot.name, p]) }, "×"))),
      h("th", {}));
    const body = slot.rows.map((r, index) => h("tr", {},
      h("td", {}, same(r.label, slot.baseline) ? "baseline" : String(index)),
      h("td", {}, input(show(r.label), (typed) => change(index, (o) => (o.label = typed)), { "aria-label": `label ${index}` })),
      perVersion
        ? versions.map((v, i) => h("td", {}, text(r.text[i], (typed) => change(index, (o) => (o.text[show(v)] = typed)), `text ${index} (${show(v)})`)))
        : h("td", {}, text(r.text, (typed) => change(index, (o) => (o.text = typed)), `text ${index}`)),
      slot.properties.map((p) => h("td", {}, input(r.properties[p] === null ? "" : show(r.properties[p]), (typed) => change(index, (o) => (o[p] = typed)), { "aria-label": `${p} ${index}` }))),
      h("td", {}, index > 0 ? h("button", { class: "ms-small", title: "move up", "aria-label": `move value ${index} up`, onclick: () => send(`slot:${slot.name}`, "move", [slot.name, index]) }, "↑") : null)));
    // long lists (the shipped names have 70) stay folded until asked for
    return h("details", { open: slot.rows.length <= 12 },
      h("summary", {}, `${slot.rows.length} value${slot.rows.length === 1 ? "" : "s"}`),
      h("table", { class: "ms-table" }, h("thead", {}, head), h("tbody", {}, body)));
  }

  function slotBox(view, slot) {
    const origin = `slot:${slot.name}`;
    const attribute = view.attributes.find((a) => a.name === slot.name);
    const numbers = slot.rows.length > 1 && slot.rows.every((r) => typeof r.label === "number");
    const fixed = attribute && attribute.scale === null;
    const numbersFrom = (event) => {
      const box = event.target.closest(".ms-range");
      const [start, stop, step] = [...box.querySelectorAll("input")].map((i) => cell(i.value.trim()));
      send(origin, "range", [slot.name, start, stop, step]);
    };
    const extend = (event) => {
      const field = event.target.closest(".ms-row").querySelector(".ms-property");
      send(origin, "extend", [slot.name, field.value.trim()]);
      field.value = "";
    };
    return h("div", { class: "ms-slot-box", key: slot.name, "data-slot-name": slot.name },
      h("div", { class: "ms-row" },
        h("strong", {}, "{", input(slot.name, (typed) => send(origin, "rename", [slot.name, typed.trim()]), { class: "ms-name", "aria-label": "slot name" }), "}"),
        slot.lexicon ? h("span", { class: "ms-note" }, `shipped list ${slot.lexicon}`) : null,
        h("button", { onclick: () => send(origin, "remove", [slot.name]) }, "Remove slot")),
      slot.error ? h("div", { class: "ms-problem" }, slot.error) : slotTable(view, slot),
      h("div", { class: "ms-row" },
        h("button", { onclick: () => send(origin, "add", [slot.name]) }, "+ value"),
        input("", null, { class: "ms-property", placeholder: "new property", "aria-label": "new property" }),
        h("button", { onclick: extend }, "+ property"),
        view.versions.name !== null
          ? h("label", {}, h("input", { type: "checkbox", checked: Boolean(slot.versioned), onchange: (e) => send(origin, "per_version", [slot.name, e.target.checked]) }), " text per version")
          : null),
      h("div", { class: "ms-row ms-range" }, "Numbers from ",
        ["start", "stop", "step"].map((k) => input(slot.range ? show(slot.range[k]) : "", null, { class: "ms-number", placeholder: k, "aria-label": k })),
        h("button", { onclick: numbersFrom }, "Numbers"),
        numbers && fixed ? h("button", { class: "ms-vary-numeric", onclick: () => send(origin, "vary", [slot.name, "numeric"]) }, "Vary these numbers") : null),
      notes(view, origin, origin));
  }

  function slots(view) {
    return section("slots-part", "Slots",
      view.slots.length === 0 ? h("p", {}, "No slots yet: select text in the prompt and make it a slot.") : null,
      h("div", {}, view.slots.map((slot) => slotBox(view, slot))));
  }

  function vary(view) {
    const rows = view.attributes.map((a) => {
      const scale = h("select", { value: a.scale ?? "", onchange: (e) => send(`vary:${a.name}`, "vary", [a.name, e.target.value || null]), "aria-label": `scale of ${a.name}` },
        h("option", { value: "" }, "fixed"), SCALES.map((s) => h("option", { value: s }, s)));
      return h("tr", { key: a.name }, h("td", {}, a.name), h("td", {}, scale),
        h("td", { class: "ms-note" }, a.values.slice(0, 6).map(show).join(", ") + (a.values.length > 6 ? ", …" : "")),
        h("td", {}, notes(view, `vary:${a.name}`, `vary:${a.name}`)));
    });
    return section("vary-part", "What varies", h("table", { class: "ms-table" }, h("tbody", {}, rows)), notes(view, (p) => p === "vary"));
  }

  function answer(view) {
    const form = local.answer;
    const typed = list(form.choices);
    const shown = typed.map(show);
    const redraw = (key) => (e) => { form[key] = e.target.value; draw(); };
    const choice = (value, onchange, blank, label) =>
      h("select", { value, onchange, "aria-label": label }, h("option", { value: "" }, blank), shown.map((c) => h("option", { value: c }, c)));
    const attributes = view.attributes.map((x) => x.name);
    const found = view.attributes.find((x) => x.name === form.attribute);
    const values = found ? found.values : [];
    const mapping = form.kind === "mapping";
    const pairs = mapping
      ? values.map((value) => h("label", { class: "ms-field", key: show(value) }, show(value), " → ",
          choice(form.picks[show(value)] ?? "", (e) => { form.picks[show(value)] = e.target.value; draw(); }, "choice…", `answer for ${show(value)}`)))
      : [];
    const numeric = mapping && values.length > 0 && values.every((v) => typeof v === "number");
    const fill = () => {
      const at = Number(form.at);
      if (form.at.trim() === "" || Number.isNaN(at)) return;
      for (const value of values) form.picks[show(value)] = value <= at ? form.below : form.above;
      draw();
    };
    const set = () => {
      const byText = new Map(typed.map((c) => [show(c), c]));
      let correct = null;
      if (form.kind === "one") correct = form.one === "" ? null : byText.get(form.one) ?? cell(form.one);
      if (form.kind === "rows") correct = view.answer.correct.rows;
      if (mapping && form.attribute !== "") {
        const written = values.filter((v) => byText.has(form.picks[show(v)] ?? "")).map((v) => [v, byText.get(form.picks[show(v)])]);
        correct = { [form.attribute]: written };
      }
      const text = form.read.trim();
      if (form.mode === "word") send("answer", "answer", [null, typed, correct], { pattern: wordPattern(typed) });
      else if (form.mode === "pattern") send("answer", "answer", [null, typed, correct], { pattern: text });
      else send("answer", "answer", [text, typed, correct]);
    };
    const kinds = [["none", "no correct answer yet"], ["one", "always the same"], ["mapping", "depends on one attribute"]];
    if (view.answer.correct.kind === "rows") kinds.push(["rows", "a table (as written in YAML)"]);
    return section("answer-part", "Answer",
      h("div", { class: "ms-row" }, "Read the reply as ",
        h("select", { class: "ms-mode", value: form.mode, onchange: redraw("mode"), "aria-label": "how the reply is read" },
          h("option", { value: "field" }, "a JSON field"), h("option", { value: "word" }, "one of the choices, as a word"), h("option", { value: "pattern" }, "a text pattern")),
        input(form.read, null, { hidden: form.mode === "word", placeholder: "field name or pattern", oninput: (e) => { form.read = e.target.value; }, "aria-label": "field name or pattern" }),
        input(form.choices, null, { class: "ms-choices", placeholder: "choices, comma separated", oninput: redraw("choices"), "aria-label": "choices" })),
      notes(view, "answer"),
      h("div", { class: "ms-row" }, "Correct answer: ",
        h("select", { class: "ms-kind", value: form.kind, onchange: redraw("kind"), "aria-label": "correct answer" }, kinds.map(([v, t]) => h("option", { value: v }, t))),
        form.kind === "one" ? choice(form.one, redraw("one"), "choice…", "the correct answer") : null,
        mapping ? h("select", { class: "ms-attribute", value: form.attribute, onchange: redraw("attribute"), "aria-label": "attribute" },
          h("option", { value: "" }, "attribute…"), attributes.map((x) => h("option", { value: x }, x))) : null),
      numeric ? h("div", { class: "ms-row ms-threshold" }, `${form.attribute} up to `,
        input(form.at, null, { class: "ms-number", placeholder: "30", oninput: (e) => { form.at = e.target.value; }, "aria-label": "threshold" }),
        " → ", choice(form.below, redraw("below"), "choice…", "answer up to the threshold"),
        ", above it → ", choice(form.above, redraw("above"), "choice…", "answer above the threshold"),
        h("button", { class: "ms-fill", onclick: fill }, "Fill in")) : null,
      h("div", { class: "ms-pairs" }, pairs),
      notes(view, "correct"),
      h("div", { class: "ms-row" }, h("button", { class: "ms-set-answer", onclick: set }, "Set answer"),
        h("button", { onclick: () => send("answer", "instruct") }, "Add reply instruction to system prompt")),
      notes(view, () => false, "answer"));
  }

  function groups(view) {
    const offered = view.case_attributes;
    const found = offered.find((x) => x.name === local.groupAttribute);
    const add = (event) => {
      const row = event.target.closest(".ms-row");
      const name = row.querySelector(".ms-group-name").value.trim();
      const value = row.querySelector(".ms-group-value").value;
      if (!found || value === "") return;
      send("groups", "group", [name, { [found.name]: found.values[Number(value)] }]);
    };
    return section("groups-part", "Groups",
      h("div", {}, view.groups.map((g) => h("div", { class: "ms-row", key: g.name }, h("strong", {}, g.name), " ",
        g.when.map(([k, v]) => `${k} = ${Array.isArray(v) ? v.map(show).join(" or ") : show(v)}`).join("; "),
        h("button", { class: "ms-small", title: `remove ${g.name}`, onclick: () => send("groups", "group", [g.name, null]) }, "×"),
        notes(view, `group:${g.name}`)))),
      offered.length === 0
        ? h("p", { class: "ms-note" }, "Every case is the same so far: groups need an attribute that differs between cases (one that is not varied).")
        : h("div", { class: "ms-row" },
          input("", null, { class: "ms-group-name", placeholder: "group name", "aria-label": "group name" }),
          h("select", { value: local.groupAttribute, onchange: (e) => { local.groupAttribute = e.target.value; draw(); }, "aria-label": "attribute of the group" },
            h("option", { value: "" }, "attribute…"), offered.map((x) => h("option", { value: x.name }, x.name))),
          h("select", { class: "ms-group-value", "aria-label": "value of the attribute" },
            (found ? found.values : []).map((v, i) => h("option", { value: String(i) }, show(v)))),
          h("button", { onclick: add }, "Add group")),
      notes(view, () => false, "groups"));
  }

  function todo(view) {
    return section("todo-part", "Still to do",
      view.complete && view.notes.length === 0
        ? h("p", { class: "ms-complete" }, "Complete: ready to save and run.")
        : h("ul", { class: "ms-problems" }, view.notes.map((n) => h("li", {}, n.text))));
  }

  function preview(view) {
    const rows = model.get("preview") || [];
    if (rows.length === 0) {
      return section("preview-part", "Preview",
        h("p", { class: "ms-note" }, view.stopped ? `No preview yet: ${view.stopped}` : "The variants show here once the prompt reads."));
    }
    const count = rows.length === 1 ? "the example prompt" : `${rows.length} variants of the example`;
    const cases = view.cases > 1 ? ` (the first of ${view.cases} cases)` : "";
    return section("preview-part", `Preview: ${count}${cases}`,
      rows[0].system ? h("pre", { class: "ms-system" }, rows[0].system) : null,
      h("div", {}, rows.map((r) => h("div", { class: "ms-variant" },
        h("div", { class: "ms-label" }, `${r.changed} · correct answer: ${r.answer === null || r.answer === undefined ? "?" : show(r.answer)}`),
        h("pre", {}, r.prompt)))));
  }

  function draw() {
    const view = model.get("view");
    const seen = JSON.stringify(view.answer);
    if (local.answerSeen !== seen) {
      local.answer = answerForm(view.answer);
      local.answerSeen = seen;
    }
    const save = (event) => send("top", "save", [event.target.closest(".ms-top").querySelector(".ms-path").value]);
    patch(root, [
      h("div", { class: "ms-row ms-top" }, h("strong", {}, "Scenario builder"),
        h("button", { class: "ms-undo", onclick: () => send("top", "undo") }, "Undo"),
        input(`${view.fields.name || "scenario"}.yaml`, null, { class: "ms-path", "aria-label": "file to save" }),
        h("button", { onclick: save }, "Save YAML"),
        h("span", { class: "ms-note ms-status" }, model.get("status") || "")),
      notes(view, () => false, "top"),
      h("div", { class: "ms-fields" }, field(view, "name", "name"), field(view, "description", "description"),
        field(view, "cases", "cases", "number"), field(view, "repetitions", "repetitions", "number"), field(view, "seed", "seed", "number")),
      notes(view, (p) => p.startsWith("field:"), "fields"),
      prompts(view), system(view), slots(view), vary(view), answer(view), groups(view), todo(view), preview(view),
      h("details", { class: "ms-yaml-panel" }, h("summary", {}, "YAML"), h("pre", { class: "ms-yaml" }, view.yaml)),
    ]);
  }

  const remember = () => {
    const found = selectionIn(root);
    if (found && JSON.stringify(found) !== JSON.stringify(local.chosen)) {
      local.chosen = found;
      draw();
    }
  };
  const changed = (name) => () => {
    if (name === "view") local.chosen = null; // its pieces are not those of the new prompt
    draw();
  };
  const doc = el.ownerDocument || document;
  doc.addEventListener("selectionchange", remember);
  root.addEventListener("mouseup", remember);
  const handlers = ["view", "problems", "preview", "error", "status"].map((name) => [name, changed(name)]);
  handlers.forEach(([name, handler]) => model.on(`change:${name}`, handler));
  draw();
  return () => {
    doc.removeEventListener("selectionchange", remember);
    handlers.forEach(([name, handler]) => model.off(`change:${name}`, handler));
  };
}

export default { render };
