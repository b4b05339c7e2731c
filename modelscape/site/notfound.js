// modelscape 404 page, built without the site's public address. A server shows this page at
// whatever address was missing (/project/a/b/c), so links written from the site's root would
// resolve against the missing address. The site's root is the deepest folder of the address
// that holds the site's icon (assets/favicon.svg, always published): it is probed as an image,
// deepest folder first, and every relative link is then pointed at that root.
"use strict";
(function () {
  const MARKER = "assets/favicon.svg";
  const folders = [];
  let folder = window.location.pathname.replace(/[^/]*$/, "");
  for (;;) {
    folders.push(folder);
    if (folder === "/" || folder === "") break;
    folder = folder.replace(/[^/]*\/$/, "");
  }
  const relative = (href) => href !== null && !/^([a-z][a-z0-9+.-]*:|\/|#)/i.test(href);
  const settle = (root) => {
    if (root !== null) {
      for (const link of document.querySelectorAll("a[href]")) {
        const href = link.getAttribute("href");
        if (relative(href)) link.setAttribute("href", root + href);
      }
    }
    document.documentElement.dataset.root = root === null ? "unknown" : root;
  };
  const probe = (index) => {
    if (index >= folders.length) {
      settle(null);
      return;
    }
    const image = new Image();
    image.onload = () => settle(folders[index]);
    image.onerror = () => probe(index + 1);
    image.src = folders[index] + MARKER;
  };
  probe(0);
})();
