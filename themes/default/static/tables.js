// modelscape site: marks each scrolling table region that is narrower than its table
// (data-wide), so the stylesheet can say that more columns lie to the side. Kept up to date
// when the window changes size; without scripts, the region's edge shadow still shows it.
"use strict";
(function () {
  const regions = Array.from(document.querySelectorAll(".table-wrap"));
  const mark = () => {
    for (const region of regions) {
      region.toggleAttribute("data-wide", region.scrollWidth > region.clientWidth + 1);
    }
  };
  mark();
  window.addEventListener("resize", mark);
})();
