"""Site build speed and page size on a synthetic site of about 1,000 pages.

The synthetic content is made from the shipped reference runs in ``content/runs``: each is
copied ``--copies`` times under new model names (so every copy adds a report page and three
model pages), next to ``--pages`` markdown pages of a few paragraphs each and the four shipped
specs. The script then measures, in one run:

- a cold build (empty output folder), against the 10 s budget;
- a rebuild with nothing changed, against the 1 s budget;
- a rebuild after one markdown page changed;
- the largest page gzipped (every file but the shared plotting library), against 200 KB.

    python benchmarks/site_build.py [--copies 25] [--pages 741]
"""

from __future__ import annotations

import argparse
import gzip
import random
import shutil
import tempfile
import time
from pathlib import Path

from modelscape.pages.page import PLOTLY_FILE
from modelscape.report import Report
from modelscape.site import build_site

CONTENT = Path(__file__).resolve().parent.parent / "content"
COLD_BUDGET = 10.0
WARM_BUDGET = 1.0
PAGE_BUDGET = 200_000
# A small vocabulary of the field's words; real pages have a larger one (and a larger index).
WORDS = [
    *("model", "answer", "scenario", "axis", "variant", "prompt", "noise", "repetition"),
    *("boundary", "pressure", "threshold", "accuracy", "spurious", "missed", "change"),
    *("invariant", "causal", "report", "store", "leaderboard", "oracle", "planted", "policy"),
    *("review", "injection", "applicant", "decision", "claim", "doubt", "professor"),
]


def _paragraph(rng: random.Random) -> str:
    sentences = []
    for _ in range(rng.randint(3, 6)):
        words = rng.choices(WORDS, k=rng.randint(8, 16))
        sentences.append(" ".join(words).capitalize() + ".")
    return " ".join(sentences)


def make_content(folder: Path, copies: int, pages: int) -> None:
    """The synthetic content folder: copied runs under new model names, and markdown pages."""
    shutil.copyfile(CONTENT / "site.yaml", folder / "site.yaml")
    shutil.copytree(CONTENT / "specs", folder / "specs")
    rng = random.Random(7)
    for run in sorted(p for p in (CONTENT / "runs").iterdir() if p.name.endswith("-reference")):
        report = Report.load(run / "report.json")
        for copy in range(copies):
            target = folder / "runs" / f"{run.name}-{copy:03d}"
            target.mkdir(parents=True)
            (target / "store.db").symlink_to(run / "store.db")
            shutil.copyfile(run / "README.md", target / "README.md")
            # Copies under new model names: the leaderboard and model pages grow as they would.
            renamed = report.model_dump_json().replace('"oracle"', f'"oracle-{copy:03d}"')
            renamed = renamed.replace('"random"', f'"random-{copy:03d}"')
            for planted in ("sycophant", "biased", "late", "hijacked"):
                renamed = renamed.replace(f'"{planted}"', f'"{planted}-{copy:03d}"')
            (target / "report.json").write_text(renamed, encoding="utf-8")
    shutil.copytree(CONTENT / "pages", folder / "pages")
    for number in range(pages):
        body = "\n\n".join(_paragraph(rng) for _ in range(rng.randint(2, 6)))
        link = f"page-{(number + 1) % pages:04d}.md"
        (folder / "pages" / f"page-{number:04d}.md").write_text(
            f"# Notes {number}\n\n{body}\n\nNext: [notes]({link}); back to the "
            "[leaderboard](index.html).\n",
            encoding="utf-8",
        )


def _largest(site: Path, suffix: str = "") -> tuple[int, str]:
    sizes = [
        (len(gzip.compress(path.read_bytes(), 6)), path.relative_to(site).as_posix())
        for path in site.rglob("*")
        if path.is_file()
        and path.name != PLOTLY_FILE
        and not path.name.startswith(".")
        and path.name.endswith(suffix)
    ]
    return max(sizes)


def main() -> None:
    """Build the synthetic site cold, then again, and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--copies", type=int, default=25, help="copies of each reference run")
    parser.add_argument("--pages", type=int, default=741, help="markdown pages")
    arguments = parser.parse_args()
    with tempfile.TemporaryDirectory() as temporary:
        content, site = Path(temporary) / "content", Path(temporary) / "site"
        content.mkdir()
        make_content(content, arguments.copies, arguments.pages)
        started = time.perf_counter()
        cold = build_site(content, site)
        cold_seconds = time.perf_counter() - started
        started = time.perf_counter()
        warm = build_site(content, site)
        warm_seconds = time.perf_counter() - started
        page = content / "pages" / "page-0000.md"
        page.write_text(page.read_text(encoding="utf-8") + "\nOne more line.\n", "utf-8")
        started = time.perf_counter()
        one = build_site(content, site)
        one_seconds = time.perf_counter() - started
        size, name = _largest(site)
        page_size, page_name = _largest(site, ".html")
        kinds: dict[str, int] = {}
        for path in cold.rendered:
            if path.endswith(".html"):
                kind = path.split("/")[0] if "/" in path else "top-level"
                kinds[kind] = kinds.get(kind, 0) + 1
        index = gzip.compress((site / "assets" / "search-index.js").read_bytes(), 6)
        print(f"pages            {cold.pages} ({', '.join(f'{k} {v}' for k, v in kinds.items())})")
        print(
            f"cold build       {cold_seconds:6.2f} s   budget {COLD_BUDGET:.0f} s "
            f"({cold_seconds / COLD_BUDGET:.0%})   warnings {len(cold.warnings)}"
        )
        print(
            f"no-change build  {warm_seconds:6.2f} s   budget {WARM_BUDGET:.0f} s "
            f"({warm_seconds / WARM_BUDGET:.0%})   rendered {len(warm.rendered)}"
        )
        print(f"one page changed {one_seconds:6.2f} s   rendered {sorted(one.rendered)}")
        print(
            f"largest file     {size / 1000:6.1f} kB gzipped ({name})   budget "
            f"{PAGE_BUDGET / 1000:.0f} kB ({size / PAGE_BUDGET:.0%}); search index "
            f"{index.__len__() / 1000:.1f} kB gzipped"
        )
        print(f"largest page     {page_size / 1000:6.1f} kB gzipped ({page_name})")
        print(f"cold / no-change {cold_seconds / warm_seconds:.0f}x")


if __name__ == "__main__":
    main()
