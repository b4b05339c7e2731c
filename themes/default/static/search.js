// modelscape site: search. Two indexes, the same entries (title and text of every page):
// - Pagefind (pagefind/, when the build made it): fetched a chunk at a time, so a query costs
//   the same on a site of ten thousand pages as on one of ten; used when the site is served.
// - assets/search-index.js: one script that sets window.MODELSCAPE_SEARCH; a script loads
//   from file://, where fetch and module imports are refused, so it is the fallback there and
//   wherever the Pagefind files are missing.
// Results are written with textContent only: titles and text come from contributed pages.
"use strict";
(function () {
  const box = document.getElementById("search-box");
  const list = document.getElementById("search-results");
  const count = document.getElementById("search-count");
  if (!box || !list) return;
  const LIMIT = 50;
  let engine = null; // (words) => Promise of [{url, title, text}] and the number found
  let asked = 0; // the latest query; an answer to an older one is dropped

  const snippet = (text, word) => {
    const at = Math.max(0, text.toLowerCase().indexOf(word) - 60);
    return (at > 0 ? "… " : "") + text.slice(at, at + 180) + (text.length > at + 180 ? " …" : "");
  };
  // Only links into this site: a site path, or an absolute path on this server.
  const safe = (url) => typeof url === "string" && !/^[a-z][a-z0-9+.-]*:/i.test(url) && !url.startsWith("//");

  const render = (found, total, words, source) => {
    list.textContent = "";
    list.dataset.source = source;
    for (const page of found) {
      if (!safe(page.url)) continue;
      const item = document.createElement("li");
      const link = document.createElement("a");
      link.href = page.url;
      link.textContent = page.title;
      const text = document.createElement("span");
      text.className = "meta";
      text.textContent = page.excerpt !== undefined ? page.excerpt : snippet(page.text, words[0]);
      item.append(link, text);
      list.append(item);
    }
    count.textContent = total + " page" + (total === 1 ? "" : "s") + " found";
  };

  const scriptEngine = () =>
    new Promise((resolve, reject) => {
      const ready = () => {
        const index = window.MODELSCAPE_SEARCH || { pages: [] };
        const pages = index.pages.map((page) => ({
          page,
          title: String(page.title).toLowerCase(),
          text: String(page.text).toLowerCase(),
        }));
        resolve({
          source: "script",
          find: async (words) => {
            const found = pages
              .filter((p) => words.every((w) => p.title.includes(w) || p.text.includes(w)))
              .map((p) => ({ p, score: words.filter((w) => p.title.includes(w)).length }))
              .sort((a, b) => b.score - a.score);
            return { total: found.length, pages: found.slice(0, LIMIT).map(({ p }) => p.page) };
          },
        });
      };
      if (window.MODELSCAPE_SEARCH) return ready();
      const script = document.createElement("script");
      script.src = box.dataset.index;
      script.onload = ready;
      script.onerror = () => reject(new Error("the search index did not load"));
      document.head.append(script);
    });

  const pagefindEngine = async (module) => {
    // An import resolves against this script's address; the page's attribute is relative to
    // the page, so it is made absolute first.
    const pagefind = await import(new URL(module, document.baseURI).href);
    // Its results are read one by one (each a small fragment), the first LIMIT only.
    await pagefind.options({ excerptLength: 30 });
    await pagefind.init();
    return {
      source: "pagefind",
      find: async (words) => {
        const answer = await pagefind.search(words.join(" "));
        const shown = await Promise.all(answer.results.slice(0, LIMIT).map((r) => r.data()));
        return {
          total: answer.results.length,
          pages: shown.map((d) => ({
            url: d.url,
            title: String((d.meta && d.meta.title) || d.url),
            excerpt: String(d.plain_excerpt || ""),
          })),
        };
      },
    };
  };

  const start = () => {
    if (engine) return engine;
    const module = box.dataset.pagefind;
    const served = window.location.protocol === "http:" || window.location.protocol === "https:";
    engine = module && served ? pagefindEngine(module).catch(() => scriptEngine()) : scriptEngine();
    return engine;
  };

  const show = async () => {
    const number = ++asked;
    const words = box.value.toLowerCase().split(/\s+/).filter(Boolean);
    if (!words.length) {
      list.textContent = "";
      count.textContent = "";
      return;
    }
    const chosen = await start();
    const found = await chosen.find(words);
    if (number === asked) render(found.pages, found.total, words, chosen.source);
  };
  box.addEventListener("input", show);
  const query = new URLSearchParams(window.location.search).get("q");
  if (query) {
    box.value = query;
    show();
  }
})();
