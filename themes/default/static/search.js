// modelscape site: search. The index (assets/search-index.js) is a script that sets
// window.MODELSCAPE_SEARCH, so it loads from file:// too, where fetching JSON is blocked.
// Results are written with textContent only.
"use strict";
(function () {
  const box = document.getElementById("search-box");
  const list = document.getElementById("search-results");
  const count = document.getElementById("search-count");
  const index = window.MODELSCAPE_SEARCH || { pages: [] };
  if (!box || !list) return;
  const pages = index.pages.map((page) => ({
    page,
    title: page.title.toLowerCase(),
    text: page.text.toLowerCase(),
  }));
  const snippet = (text, word) => {
    const at = Math.max(0, text.toLowerCase().indexOf(word) - 60);
    return (at > 0 ? "… " : "") + text.slice(at, at + 180) + (text.length > at + 180 ? " …" : "");
  };
  const show = () => {
    const words = box.value.toLowerCase().split(/\s+/).filter(Boolean);
    list.textContent = "";
    if (!words.length) {
      count.textContent = "";
      return;
    }
    const found = pages
      .filter((p) => words.every((w) => p.title.includes(w) || p.text.includes(w)))
      .map((p) => ({ p, score: words.filter((w) => p.title.includes(w)).length }))
      .sort((a, b) => b.score - a.score);
    for (const { p } of found.slice(0, 50)) {
      const item = document.createElement("li");
      const link = document.createElement("a");
      link.href = p.page.url;
      link.textContent = p.page.title;
      const text = document.createElement("span");
      text.className = "meta";
      text.textContent = snippet(p.page.text, words[0]);
      item.append(link, text);
      list.append(item);
    }
    count.textContent = found.length + " page" + (found.length === 1 ? "" : "s") + " found";
  };
  box.addEventListener("input", show);
  const query = new URLSearchParams(window.location.search).get("q");
  if (query) {
    box.value = query;
    show();
  }
})();
