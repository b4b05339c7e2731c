// modelscape report pages: the side-by-side comparison of the two coordinates of a step, or
// of two targets' outputs on the same prompts (a divergence).
// Every text here is hostile (prompts come from contributed specs, outputs from models): it is
// only ever written with textContent, and the marks are <ins> and <del> elements holding text.
"use strict";
(function () {
  // Words, runs of whitespace and single other characters: the tokens of the scenario page's
  // word diff (word_diff in modelscape/pages/scenario.py), so both pages mark the same words.
  const TOKEN = /\s+|[\p{L}\p{N}_]+|[^\s\p{L}\p{N}_]/gu;
  // The most token pairs the word diff compares: beyond it, what lies between the shared start
  // and the shared end of two prompts is marked changed as a whole, so that a huge prompt
  // cannot keep the page computing (the table needs one number per pair).
  const LIMIT = 250000;

  const tokens = (text) => String(text).match(TOKEN) || [];
  const blank = (list) => list.every((token) => /^\s+$/u.test(token));

  // The longest common subsequence of two token lists, as runs of shared and changed tokens:
  // [changed, removed tokens, added tokens].
  const middle = (a, b) => {
    if (!a.length && !b.length) return [];
    if (!a.length || !b.length || a.length * b.length > LIMIT) return [[true, a, b]];
    const width = b.length + 1;
    const table = new Uint32Array((a.length + 1) * width);
    for (let i = a.length - 1; i >= 0; i -= 1) {
      for (let j = b.length - 1; j >= 0; j -= 1) {
        table[i * width + j] = a[i] === b[j]
          ? table[(i + 1) * width + j + 1] + 1
          : Math.max(table[(i + 1) * width + j], table[i * width + j + 1]);
      }
    }
    const runs = [];
    const add = (changed, removed, added) => {
      const last = runs[runs.length - 1];
      if (last && last[0] === changed) {
        if (removed !== null) last[1].push(removed);
        if (added !== null) last[2].push(added);
      } else {
        runs.push([changed, removed === null ? [] : [removed], added === null ? [] : [added]]);
      }
    };
    let i = 0;
    let j = 0;
    while (i < a.length || j < b.length) {
      if (i < a.length && j < b.length && a[i] === b[j]) {
        add(false, a[i], b[j]);
        i += 1;
        j += 1;
      } else if (j >= b.length || (i < a.length && table[(i + 1) * width + j] >= table[i * width + j + 1])) {
        add(true, a[i], null);
        i += 1;
      } else {
        add(true, null, b[j]);
        j += 1;
      }
    }
    return runs;
  };

  // ``after`` against ``before``: [kind, text] segments, kind "same", "del" or "ins". As in the
  // Python word diff, whitespace alone between two changes joins them, so a changed phrase is
  // one mark rather than many.
  const diff = (before, after) => {
    const a = tokens(before);
    const b = tokens(after);
    let start = 0;
    while (start < a.length && start < b.length && a[start] === b[start]) start += 1;
    let endA = a.length;
    let endB = b.length;
    while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
      endA -= 1;
      endB -= 1;
    }
    const runs = [];
    if (start) runs.push([false, a.slice(0, start), b.slice(0, start)]);
    runs.push(...middle(a.slice(start, endA), b.slice(start, endB)));
    if (endA < a.length) runs.push([false, a.slice(endA), b.slice(endB)]);
    const chunks = [];
    runs.forEach(([changed, removed, added], position) => {
      const between = position > 0 && position < runs.length - 1;
      const joined = changed || (between && blank(added));
      const last = chunks[chunks.length - 1];
      if (last && joined && last[0]) {
        last[1].push(...removed);
        last[2].push(...added);
      } else {
        chunks.push([joined, removed.slice(), added.slice()]);
      }
    });
    const segments = [];
    for (const [changed, removed, added] of chunks) {
      if (!changed) segments.push(["same", added.join("")]);
      else {
        if (removed.length) segments.push(["del", removed.join("")]);
        if (added.length) segments.push(["ins", added.join("")]);
      }
    }
    return segments.filter(([, text]) => text.length > 0);
  };

  const element = (tag, text, className) => {
    const node = document.createElement(tag);
    if (text !== undefined && text !== null) node.textContent = String(text);
    if (className) node.className = className;
    return node;
  };

  // One side of a diff as a <pre>: the shared text, and this side's own words marked.
  const marked = (segments, side) => {
    const pre = element("pre", null, "prompt");
    pre.dir = "auto";
    for (const [kind, text] of segments) {
      if (kind === "same") pre.append(document.createTextNode(text));
      else if (kind === side) pre.append(element(kind, text));
    }
    return pre;
  };

  // The prompt parts of two variants, paired: the system text, then each message by position.
  const parts = (left, right) => {
    const paired = [];
    if (left.system || right.system) paired.push(["system", left.system || "", right.system || ""]);
    const count = Math.max(left.messages.length, right.messages.length);
    for (let i = 0; i < count; i += 1) {
      const l = left.messages[i] || ["", ""];
      const r = right.messages[i] || ["", ""];
      paired.push([r[0] || l[0], l[1], r[1]]);
    }
    return paired;
  };

  // The outputs behind a comparison, by group, each output on one of two sides.
  // ``comparison.by`` says what the sides are. "coordinate": the two coordinates of a step
  // (``comparison.sides``), one group per target and case. "target": the two targets of a
  // divergence (``comparison.targets``, indices into evidence.targets), one group per
  // variant (a case at a coordinate), so both sides answered the very same prompt.
  // Outputs on neither side are left out rather than guessed at.
  const groups = (evidence, indices, comparison) => {
    const byKey = new Map();
    const byTarget = comparison.by === "target";
    for (const index of indices) {
      const observation = evidence.observations[index];
      const variant = evidence.variants[observation.variant];
      const at = byTarget ? observation.target : variant.coordinate;
      const sides = byTarget ? comparison.targets : comparison.sides;
      const side = at === sides[0] ? 0 : at === sides[1] ? 1 : -1;
      if (side < 0) continue;
      const key = byTarget ? variant.id : evidence.targets[observation.target] + "\u0000" + variant.case;
      if (!byKey.has(key)) {
        byKey.set(key, {
          case: variant.case, coordinate: variant.coordinate, target: observation.target,
          variants: [null, null], outputs: [[], []],
        });
      }
      const group = byKey.get(key);
      group.variants[side] = variant;
      group.outputs[side].push(index);
    }
    return Array.from(byKey.values());
  };

  const sideOf = (evidence, group, side, comparison, segments, answer) => {
    const box = element("div", null, "compare-side");
    const variant = group.variants[side];
    const byTarget = comparison.by === "target";
    box.append(element("h4", byTarget
      ? "Target: " + evidence.targets[comparison.targets[side]]
      : (side === 0 ? "Before: " : "After: ") + comparison.sides[side], "compare-where"));
    if (variant === null) {
      box.append(element("p", byTarget
        ? "No output of this target on this prompt is behind the number."
        : "No output of this case at this coordinate is behind the number.", "meta"));
      return box;
    }
    box.append(element("p", "Correct answer: " + variant.reference, "meta"));
    for (const [role, pairs] of segments) {
      const text = marked(pairs, side === 0 ? "del" : "ins");
      if (pairs.some(([kind]) => kind !== "same") || group.variants[1 - side] === null) {
        box.append(element("p", role, "role-label"), text);
      } else {
        // A part both prompts share is folded away, so the words that changed stand out.
        const fold = element("details", null, "compare-same");
        fold.append(element("summary", role + " (the same on both sides)", "role-label"), text);
        box.append(fold);
      }
    }
    const answers = element("ol", null, "compare-answers");
    for (const index of group.outputs[side].slice().sort((x, y) =>
      evidence.observations[x].repetition - evidence.observations[y].repetition)) {
      answers.append(answer(index));
    }
    box.append(element("p", "outputs, one per repetition", "role-label"), answers);
    return box;
  };

  // One group's comparison: both prompts with the changed words marked (for two targets, the
  // one prompt they share, folded), and every repetition's output under each. ``answer``
  // makes the row of one output (report.js owns how it reads).
  const render = (evidence, group, comparison, answer) => {
    const section = element("section", null, "compare-case");
    section.dataset.case = group.case;
    const title = element("h3", null, "compare-title");
    const where = comparison.by === "target" ? group.coordinate : evidence.targets[group.target];
    title.append(element("span", group.case, "case-name"), " ", element("span", where, "meta"));
    section.append(title);
    const [left, right] = group.variants;
    const segments = left && right
      ? parts(left, right).map(([role, a, b]) => [role, diff(a, b)])
      : [];
    const only = left || right;
    const plain = (variant) => parts(variant, variant).map(([role, a]) => [role, [["same", a]]]);
    const grid = element("div", null, "compare-grid");
    grid.append(
      sideOf(evidence, group, 0, comparison, left && right ? segments : left ? plain(only) : [], answer),
      sideOf(evidence, group, 1, comparison, left && right ? segments : right ? plain(only) : [], answer),
    );
    section.append(grid);
    return section;
  };

  window.modelscapeCompare = Object.freeze({ diff, tokens, groups, render });
})();
