"""Screenshots of every kind of page of a built site, with layout checks, in headless Chromium.

Usage (from the repository, with the dev extra and Chromium installed)::

    modelscape build content -o site
    python scripts/screenshots.py site -o build/screenshots

For one page of each template (leaderboard, scenario, scenario without spec, report, model,
markdown pages, search, 404), at each width (1280 and 390 px) and colour scheme (light and
dark, through ``prefers-color-scheme``), the script saves a full-page PNG named
``PAGE--WIDTH-SCHEME.png`` and checks the page by script:

- horizontal overflow: the page is wider than the window, or an element reaches past the
  window's right edge without a scrolling box around it (a wide table in its scrolling
  region is fine; a code block that pushes the page sideways is not);
- clipped text: an element that hides part of its text (``overflow: hidden`` or ``clip``
  with its text wider than its box);
- chart labels: Plotly's SVG texts (ticks, axis titles, legend entries) that overlap each
  other or fall outside the chart;
- the leaderboard in view (a page with the matrix, ``table[data-matrix]``): at 1280 px and
  wider, its first data row ends within the first 900 px of the page; at every width, once its
  scrolling region is scrolled sideways to the end, the first row's model cell is still inside
  the window and the region, and not covered; once the region is scrolled down, its header's
  model cell is still at the region's top;
- findings first (a report page, known by its marked scorecards section): the page has a findings
  section, and it comes before the page's first table.

It prints one line per problem and exits 1 when there is any, 0 otherwise. Chromium is
``/usr/bin/chromium`` unless ``MODELSCAPE_CHROMIUM`` names another; it is driven through
Playwright's Python package (``pip install -e '.[dev]'``) and never downloaded.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, cast

WIDTHS = (1280, 390)
#: The window's height, and the fold the leaderboard's first row must end above.
FOLD = 900
#: From this width on, the leaderboard's first row must be above the fold.
DESKTOP = 1280
Scheme = Literal["light", "dark"]
SCHEMES: tuple[Scheme, ...] = ("light", "dark")
CHROMIUM = os.environ.get("MODELSCAPE_CHROMIUM", "/usr/bin/chromium")

# Runs in the page: every problem of layout found, as short lines. Kept in one string so the
# checks are the same whether the script or a test drives the browser.
CHECKS = r"""() => {
  const problems = [];
  const width = document.documentElement.clientWidth;
  const name = (el) => {
    let text = el.tagName.toLowerCase();
    if (el.id) text += "#" + el.id;
    else if (typeof el.className === "string" && el.className.trim())
      text += "." + el.className.trim().split(/\s+/).join(".");
    const words = (el.textContent || "").trim().replace(/\s+/g, " ").slice(0, 40);
    return words ? text + ' "' + words + '"' : text;
  };
  const scrolls = (el) => {
    for (let node = el.parentElement; node && node !== document.body; node = node.parentElement) {
      const style = getComputedStyle(node);
      if (["auto", "scroll"].includes(style.overflowX)) return true;
    }
    return false;
  };
  const visible = (el) => {
    const style = getComputedStyle(el);
    if (style.visibility === "hidden" || style.display === "none") return false;
    const closed = "dialog:not([open]), details:not([open]) > :not(summary), [hidden]";
    if (el.closest(closed)) return false;
    const box = el.getBoundingClientRect();
    return box.width > 0 && box.height > 0;
  };
  if (document.documentElement.scrollWidth > width + 1) {
    problems.push("overflow: the page is " + document.documentElement.scrollWidth +
      " px wide in a " + width + " px window");
  }
  const seen = new Set();
  for (const el of document.body.querySelectorAll("*")) {
    if (!visible(el) || el.closest("svg")) continue;
    const box = el.getBoundingClientRect();
    if (box.right > width + 1 && !scrolls(el)) {
      const parent = el.parentElement;
      if (parent && seen.has(parent)) { seen.add(el); continue; }
      seen.add(el);
      problems.push("overflow: " + name(el) + " reaches " + Math.round(box.right) + " px");
    }
    const style = getComputedStyle(el);
    const hides = ["hidden", "clip"].includes(style.overflowX);
    if (hides && el.scrollWidth > el.clientWidth + 1 && el.textContent.trim() &&
        !el.classList.contains("skip") && style.position !== "absolute") {
      problems.push("clipped: " + name(el) + " shows " + el.clientWidth + " of " +
        el.scrollWidth + " px");
    }
  }
  // An SVG text's outline on the screen: the four corners of its box, through its rotation
  // (tick labels are often turned), so that two turned labels side by side do not count as
  // overlapping because their upright bounding boxes do.
  const corners = (t) => {
    const box = t.getBBox();
    const matrix = t.getScreenCTM();
    return [[box.x, box.y], [box.x + box.width, box.y], [box.x + box.width, box.y + box.height],
      [box.x, box.y + box.height]].map(([x, y]) => {
      const point = new DOMPoint(x, y).matrixTransform(matrix);
      return [point.x, point.y];
    });
  };
  // Separating axis test for two convex quadrilaterals, with a pixel of tolerance.
  const overlaps = (a, b) => {
    for (const shape of [a, b]) {
      for (let i = 0; i < 4; i += 1) {
        const [x1, y1] = shape[i];
        const [x2, y2] = shape[(i + 1) % 4];
        const normal = [y2 - y1, x1 - x2];
        const length = Math.hypot(normal[0], normal[1]) || 1;
        const project = (points) =>
          points.map(([x, y]) => (x * normal[0] + y * normal[1]) / length);
        const pa = project(a);
        const pb = project(b);
        if (Math.min(...pa) > Math.max(...pb) - 1 || Math.min(...pb) > Math.max(...pa) - 1) {
          return false;
        }
      }
    }
    return true;
  };
  for (const chart of document.querySelectorAll(".chart")) {
    const svg = chart.querySelector("svg.main-svg");
    if (!svg) continue;
    const frame = chart.getBoundingClientRect();
    const texts = Array.from(chart.querySelectorAll(
      "g.xtick text, g.ytick text, .g-xtitle text, .g-ytitle text, .legendtext, .gtitle"
    )).filter((t) => t.textContent.trim() && visible(t));
    const shapes = texts.map(corners);
    texts.forEach((t, i) => {
      const box = t.getBoundingClientRect();
      if (box.left < frame.left - 1 || box.right > frame.right + 1 ||
          box.top < frame.top - 1 || box.bottom > frame.bottom + 1) {
        problems.push("chart " + chart.id + ": label \"" + t.textContent + "\" is cut off");
      }
      for (let j = i + 1; j < texts.length; j += 1) {
        if (overlaps(shapes[i], shapes[j])) {
          problems.push("chart " + chart.id + ": labels \"" + t.textContent + "\" and \"" +
            texts[j].textContent + "\" overlap");
        }
      }
    });
  }
  return problems;
}"""


# Runs in any page; on a report page (its scorecards section is marked data-report-tables: a
# model page has scorecards too, and no findings), the findings section must be there and come
# before the first table.
FINDINGS_FIRST = r"""() => {
  if (!document.querySelector("[data-report-tables]")) return [];
  const findings = document.getElementById("findings");
  const table = document.querySelector("table");
  if (!findings) return ["findings: the report page has no findings section"];
  if (table && !(findings.compareDocumentPosition(table) & Node.DOCUMENT_POSITION_FOLLOWING)) {
    return ["findings: the findings section comes after a table"];
  }
  return [];
}"""


def findings_precede_tables(page: Any) -> list[str]:
    """Findings precede tables on report pages: the problems of a report page whose findings
    section is missing or comes after a table (none for any other page)."""
    return list(page.evaluate(FINDINGS_FIRST))


# Runs in the leaderboard page, after the screenshot: it scrolls the page and the table's
# region, and puts both back. Its argument is {fold, desktop}: the fold's height in pixels, and
# whether the window is wide enough that the first row must be above it.
LEADERBOARD_CHECKS = r"""({ fold, desktop }) => {
  const problems = [];
  const shown = (el) => el.getClientRects().length > 0 && !el.closest("[hidden]");
  const table = Array.from(document.querySelectorAll("table[data-matrix]")).find(shown);
  if (!table) return problems;
  const row = Array.from(table.querySelectorAll("tbody tr[data-kind]")).find(shown);
  if (!row) return problems;
  const cell = row.querySelector("th[scope=row]") || row.cells[0];
  window.scrollTo(0, 0);
  if (desktop) {
    const bottom = row.getBoundingClientRect().bottom + window.scrollY;
    if (bottom > fold + 0.5) {
      problems.push("leaderboard: its first row ends at " + Math.round(bottom) +
        " px, below the first " + fold + " px");
    }
  }
  const region = table.closest(".table-wrap");
  if (!region) {
    problems.push("leaderboard: the table has no scrolling region");
    return problems;
  }
  // Whether a cell is on the screen, inside its region and not painted over by another cell:
  // the point a third of the way into it must hit the cell or something inside it.
  const seen = (target, what) => {
    const box = target.getBoundingClientRect();
    const frame = region.getBoundingClientRect();
    const width = document.documentElement.clientWidth;
    if (box.left < Math.max(0, frame.left) - 1 || box.right > Math.min(width, frame.right) + 1 ||
        box.top < frame.top - 1 || box.bottom > frame.bottom + 1) {
      return "leaderboard: " + what + " is out of view (" + Math.round(box.left) + " to " +
        Math.round(box.right) + " px across, " + Math.round(box.top) + " to " +
        Math.round(box.bottom) + " px down)";
    }
    const hit = document.elementFromPoint(box.left + Math.min(box.width / 3, 20),
      box.top + Math.min(box.height / 3, 10));
    if (!hit || !(hit === target || target.contains(hit))) {
      const cover = hit ? hit.tagName.toLowerCase() : "nothing";
      return "leaderboard: " + what + " is covered by " + cover;
    }
    return null;
  };
  // Page scrolled so that the region's top is in the window, as a reader scrolls to the table.
  window.scrollTo(0, region.getBoundingClientRect().top + window.scrollY - 8);
  if (region.scrollWidth > region.clientWidth + 1) {
    region.scrollLeft = region.scrollWidth;
    const found = seen(cell, "the model cell of the first row, scrolled sideways to the end,");
    if (found) problems.push(found);
    region.scrollLeft = 0;
  }
  const corner = table.tHead && table.tHead.rows[0] && table.tHead.rows[0].cells[0];
  if (corner && region.scrollHeight > region.clientHeight + 1) {
    region.scrollTop = region.scrollHeight;
    const found = seen(corner, "the header's model cell, scrolled down to the end,");
    if (found) problems.push(found);
    region.scrollTop = 0;
  }
  window.scrollTo(0, 0);
  return problems;
}"""


def leaderboard_problems(page: Any, *, width: int) -> list[str]:
    """What keeps the leaderboard of an open page out of view (none on another page): its
    first row below the fold on a wide window, or its model column or header rows that do
    not stay in the table's region while it scrolls."""
    return list(page.evaluate(LEADERBOARD_CHECKS, {"fold": FOLD, "desktop": width >= DESKTOP}))


@dataclass(frozen=True)
class Shot:
    """One page at one width and colour scheme: where its PNG went and what was wrong."""

    page: str
    width: int
    scheme: str
    file: Path
    problems: tuple[str, ...]


def pages_of(site: Path) -> dict[str, str]:
    """One page per template of a built site, by a short name: the first of each folder,
    and every markdown page (the top-level pages that are not the site's own)."""
    chosen: dict[str, str] = {}
    for name in ("index", "search", "404"):
        if (site / f"{name}.html").is_file():
            chosen[name] = f"{name}.html"
    for folder in ("scenarios", "reports", "models"):
        found = sorted((site / folder).glob("*.html")) if (site / folder).is_dir() else []
        if found:
            # The largest page of a folder is the one most likely to overflow.
            page = max(found, key=lambda p: (p.stat().st_size, p.name))
            chosen[folder.rstrip("s")] = f"{folder}/{page.name}"
    for page in sorted(site.glob("*.html")):
        if page.stem not in ("index", "search", "404"):
            chosen[page.stem] = page.name
    return chosen


@dataclass
class Browser:
    """Headless Chromium through Playwright, opened once for many pages."""

    executable: str = CHROMIUM

    def __enter__(self) -> Browser:
        from playwright.sync_api import sync_playwright

        self._playwright = sync_playwright().start()
        self.browser = self._playwright.chromium.launch(
            executable_path=self.executable, args=["--headless", "--no-sandbox"]
        )
        return self

    def __exit__(self, *exc: object) -> None:
        self.browser.close()
        self._playwright.stop()

    def shoot(self, url: str, *, width: int, scheme: Scheme, file: Path) -> list[str]:
        """Open ``url``, wait for its charts, save a full-page PNG, return its problems."""
        context: Any = self.browser.new_context(
            viewport={"width": width, "height": FOLD}, color_scheme=scheme
        )
        try:
            page = context.new_page()
            page.set_default_timeout(20_000)
            page.goto(url)
            page.wait_for_load_state("load")
            if page.locator(".chart").count():
                page.wait_for_selector("html[data-charts]", state="attached")
            if url.endswith("404.html"):
                page.wait_for_selector("html[data-root]", state="attached")
            page.screenshot(path=str(file), full_page=True)
            problems = list(page.evaluate(CHECKS))
            problems += findings_precede_tables(page)
            problems += leaderboard_problems(page, width=width)
            return problems
        finally:
            context.close()


def screenshots(
    site: Path,
    output: Path,
    *,
    widths: tuple[int, ...] = WIDTHS,
    schemes: tuple[Scheme, ...] = SCHEMES,
    pages: dict[str, str] | None = None,
) -> Iterator[Shot]:
    """Every page of ``pages`` (default: one per template) at every width and scheme."""
    output.mkdir(parents=True, exist_ok=True)
    with Browser() as browser:
        for name, path in (pages or pages_of(site)).items():
            for width in widths:
                for scheme in schemes:
                    file = output / f"{name}--{width}-{scheme}.png"
                    url = (site / path).resolve().as_uri()
                    found = browser.shoot(url, width=width, scheme=scheme, file=file)
                    yield Shot(path, width, scheme, file, tuple(dict.fromkeys(found)))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("site", type=Path, help="a built site (modelscape build content -o site)")
    parser.add_argument("-o", "--output", type=Path, default=Path("build/screenshots"))
    parser.add_argument("--width", type=int, action="append", help="default: 1280 and 390")
    parser.add_argument("--scheme", choices=SCHEMES, action="append", help="default: both")
    parser.add_argument(
        "--page",
        action="append",
        help="a page to check, by its path in the site (index.html); default: one per template",
    )
    arguments = parser.parse_args(argv)
    if not (arguments.site / "index.html").is_file():
        parser.error(f"{arguments.site}: no index.html; build the site first")
    widths = tuple(arguments.width or WIDTHS)
    schemes = cast(tuple[Scheme, ...], tuple(arguments.scheme or SCHEMES))
    failed = 0
    chosen = {Path(path).stem: path for path in arguments.page} if arguments.page else None
    for shot in screenshots(
        arguments.site, arguments.output, widths=widths, schemes=schemes, pages=chosen
    ):
        for problem in shot.problems:
            print(f"{shot.page} at {shot.width} px, {shot.scheme}: {problem}")
        failed += bool(shot.problems)
    print(f"screenshots in {arguments.output}; {failed} with problems", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
