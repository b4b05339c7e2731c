// modelscape pages: the filter box. Only text is ever written into the page (textContent).
"use strict";
(function () {
  for (const input of document.querySelectorAll("input[data-filter]")) {
    const items = Array.from(document.querySelectorAll(input.dataset.filter));
    const count = document.getElementById(input.id + "-count");
    const texts = items.map((item) => item.textContent.toLowerCase());
    const apply = () => {
      const words = input.value.toLowerCase().split(/\s+/).filter(Boolean);
      let shown = 0;
      items.forEach((item, index) => {
        const match = words.every((word) => texts[index].includes(word));
        item.hidden = !match;
        if (match) shown += 1;
      });
      if (count) count.textContent = words.length ? shown + " of " + items.length + " shown" : "";
    };
    input.addEventListener("input", apply);
  }
})();
