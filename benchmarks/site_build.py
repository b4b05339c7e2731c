"""Site build speed, size and search cost on a synthetic site of up to 10,000 pages.

The synthetic content is made from the shipped reference runs in ``content/runs``: they are
copied round-robin until there are ``--reports`` runs, each copy under model names of one of
``--models`` groups (so the leaderboard and the model pages grow as a real one would, and a
scenario holds several runs of the same model), and markdown pages of a few paragraphs each fill
the site up to ``--pages`` pages. Each reference store is copied once into the content folder
and the runs link to it, so report pages show their outputs as real ones do.

It measures, in one run:

- a cold build (empty output folder), against the 60 s budget;
- a rebuild with nothing changed, against the 2 s budget;
- a rebuild after one markdown page changed;
- pages per second, the bytes of the site, the largest page gzipped;
- the search indexes: the single-script index (the ``file://`` fallback) and, when pagefind is
  installed, the Pagefind index; with ``--browser``, the bytes a browser fetches for one query
  through each (the site served on 127.0.0.1, responses counted in Chromium).

CPU seconds are those of this process and of the worker processes it waited for.

With ``--checkout`` (given twice or more), the same content is built by each checkout in turn,
each in a process of its own whose ``PYTHONPATH`` is that checkout: cold, no change, no change
in a new process, one page changed; and the figures are printed side by side, with each
checkout's CPU seconds and wall seconds over the first one's. Each checkout builds its own copy
of the content, so every one starts from the same files.

    python benchmarks/site_build.py [--pages 10000] [--reports 1000] [--workers N] [--browser]
    python benchmarks/site_build.py --pages 1000 --reports 100 --checkout MAIN --checkout BRANCH
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import random
import resource
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from contextlib import closing
from pathlib import Path

from modelscape.pages.page import PLOTLY_FILE
from modelscape.report import Report
from modelscape.site import build_site
from modelscape.store.sqlite import SQLiteStore

CONTENT = Path(__file__).resolve().parent.parent / "content"
COLD_BUDGET = 60.0
WARM_BUDGET = 2.0
PAGE_BUDGET = 200_000
# A small vocabulary of the field's words; real pages have a larger one (and a larger index).
WORDS = [
    *("model", "answer", "scenario", "axis", "variant", "prompt", "noise", "repetition"),
    *("boundary", "pressure", "threshold", "accuracy", "spurious", "missed", "change"),
    *("invariant", "causal", "report", "store", "leaderboard", "oracle", "planted", "policy"),
    *("review", "injection", "applicant", "decision", "claim", "doubt", "professor"),
]
#: The pages a site has besides reports, models, scenarios and markdown pages.
FIXED_PAGES = 3  # index.html, search.html, 404.html


def _paragraph(rng: random.Random, number: int) -> str:
    sentences = []
    for _ in range(rng.randint(3, 6)):
        words = rng.choices(WORDS, k=rng.randint(8, 16))
        sentences.append(" ".join(words).capitalize() + ".")
    # One word of its own per page, so a query can find exactly one page.
    return " ".join(sentences) + f" Marker{number:05d}."


def make_content(
    folder: Path, *, pages: int, reports: int, models: int, snapshots: bool = True
) -> int:
    """The synthetic content folder; returns the number of markdown pages it holds.

    With ``snapshots``, each store copy keeps a snapshot of its run, as every store a run of
    this version writes does (the shipped reference stores predate them).
    """
    shutil.copyfile(CONTENT / "site.yaml", folder / "site.yaml")
    shutil.copytree(CONTENT / "specs", folder / "specs")
    shutil.copytree(CONTENT / "pages", folder / "pages")
    (folder / "stores").mkdir()
    runs = sorted(p for p in (CONTENT / "runs").iterdir() if p.name.endswith("-reference"))
    loaded = {run.name: Report.load(run / "report.json") for run in runs}
    names: set[str] = set()
    for number in range(reports):
        run = runs[number % len(runs)]
        report = loaded[run.name]
        group = number // len(runs) % models
        renames = {name: f"{name}-{group:03d}" for name in report.targets}
        names.update(renames.values())
        store = folder / "stores" / f"{run.name}-{group:03d}.db"
        if not store.exists():
            _renamed_store(run / "store.db", store, renames)
            if snapshots:
                with closing(SQLiteStore(store)) as copy:
                    copy.snapshot(report.experiment)
        target = folder / "runs" / f"{run.name}-{number:04d}"
        target.mkdir(parents=True)
        # A link inside the content folder, which the build follows: one store per group.
        (target / "store.db").symlink_to(Path("..", "..", "stores", store.name))
        shutil.copyfile(run / "README.md", target / "README.md")
        renamed = report.model_dump_json()
        for name, new_name in renames.items():
            renamed = renamed.replace(f'"{name}"', f'"{new_name}"')
            # A reference target's kind (oracle, random) is not its name: it stays.
            renamed = renamed.replace(f'"kind":"{new_name}"', f'"kind":"{name}"')
        (target / "report.json").write_text(renamed, encoding="utf-8")
    shipped = sum(1 for _ in (folder / "pages").rglob("*.md"))
    scenarios = len(
        {r.scenario for r in loaded.values()} | {p.stem for p in (CONTENT / "specs").iterdir()}
    )
    markdown = max(pages - reports - len(names) - scenarios - FIXED_PAGES - shipped, 0)
    rng = random.Random(7)
    for number in range(markdown):
        body = "\n\n".join(_paragraph(rng, number) for _ in range(rng.randint(2, 6)))
        link = f"page-{(number + 1) % markdown:05d}.md"
        (folder / "pages" / f"page-{number:05d}.md").write_text(
            f"# Notes {number}\n\n{body}\n\nNext: [notes]({link}); back to the "
            "[leaderboard](index.html).\n",
            encoding="utf-8",
        )
    return markdown


def _renamed_store(source: Path, copy: Path, renames: dict[str, str]) -> None:
    """A copy of a reference store whose targets carry the names of one group of models."""
    shutil.copyfile(source, copy)
    with sqlite3.connect(copy) as connection:
        for table in ("experiments", "observations"):
            for name, new_name in renames.items():
                for field in ("target", "model"):
                    connection.execute(
                        f"UPDATE {table} SET record = replace(record, ?, ?)",
                        (f'"{field}":"{name}"', f'"{field}":"{new_name}"'),
                    )
                connection.execute(
                    f"UPDATE {table} SET record = replace(record, ?, ?)",
                    (f'"name":"{name}"', f'"name":"{new_name}"'),
                )
    connection.close()


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


def _bytes(folder: Path) -> tuple[int, int]:
    """The bytes and the number of the files under ``folder``."""
    files = [p for p in folder.rglob("*") if p.is_file()]
    return sum(p.stat().st_size for p in files), len(files)


def _cpu() -> float:
    """CPU seconds of this process and of the children it has waited for."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def _timed(content: Path, site: Path, workers: int | None) -> tuple[object, float, float]:
    wall, cpu = time.perf_counter(), _cpu()
    result = build_site(content, site, workers=workers)
    return result, time.perf_counter() - wall, _cpu() - cpu


def _fresh(content: Path, site: Path, workers: int | None) -> tuple[float, float]:
    """A rebuild as a user runs it: ``modelscape build`` in a new process, so the
    interpreter's start and the imports count; its wall and CPU seconds."""
    command = [sys.executable, "-m", "modelscape", "build", str(content), "-o", str(site)]
    command += [] if workers is None else ["--workers", str(workers)]
    wall, cpu = time.perf_counter(), _cpu()
    subprocess.run(command, check=True, capture_output=True)
    return time.perf_counter() - wall, _cpu() - cpu


#: The builds each checkout is measured on, in the order they run.
STEPS = ("cold", "no change", "no change, new process", "one page changed")


def _edit(content: Path) -> None:
    """The change of the one-page-changed build: a line added to one markdown page."""
    page = content / "pages" / "page-00000.md"
    page.write_text(page.read_text(encoding="utf-8") + "\nOne more line.\n", "utf-8")


def _measure(content: Path, site: Path, workers: int | None) -> None:
    """The four builds of one checkout (this process's modelscape), printed as JSON."""
    figures = {}
    for step in STEPS:
        if step == "no change, new process":
            figures[step] = _fresh(content, site, workers)
            continue
        if step == "one page changed":
            _edit(content)
        result, wall, cpu = _timed(content, site, workers)
        figures[step] = (wall, cpu)
        if step == "cold":
            figures["pages"] = (float(result.pages), 0.0)  # type: ignore[attr-defined]
    print(json.dumps(figures))


def _compare(arguments: argparse.Namespace, content: Path, work: Path) -> None:
    """Each checkout's figures on its own copy of ``content``, side by side."""
    rows: dict[str, list[tuple[float, float]]] = {}
    for number, checkout in enumerate(arguments.checkout):
        commit = subprocess.run(
            ["git", "-C", str(checkout), "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
        ).stdout.strip()
        print(f"measuring {checkout} at {commit or 'an unknown commit'}", flush=True)
        copy = work / f"content-{number}"
        shutil.copytree(content, copy, symlinks=True)
        command = [sys.executable, __file__, "--measure", str(copy), str(work / f"site-{number}")]
        command += [] if arguments.workers is None else ["--workers", str(arguments.workers)]
        environment = {**os.environ, "PYTHONPATH": str(checkout)}
        # Run from the checkout, so ``python -m modelscape`` finds that checkout's package too.
        done = subprocess.run(
            command, check=True, capture_output=True, text=True, env=environment, cwd=checkout
        )
        figures = json.loads(done.stdout.strip().splitlines()[-1])
        for step in ("pages", *STEPS):
            rows.setdefault(step, []).append(tuple(figures[step]))
        print(f"measured {checkout}", flush=True)
    print(f"pages: {', '.join(str(int(p)) for p, _ in rows.pop('pages'))}")
    names = [Path(checkout).name for checkout in arguments.checkout]
    print("step | " + " | ".join(names) + " | " + " | ".join(f"{n}/{names[0]}" for n in names[1:]))
    for step, cells in rows.items():
        (base_wall, base_cpu) = cells[0]
        shown = [f"{wall:.2f} s wall, {cpu:.2f} CPU s" for wall, cpu in cells]
        ratios = [
            f"CPU {cpu / base_cpu:.2f}, wall {wall / base_wall:.2f}" for wall, cpu in cells[1:]
        ]
        print(f"{step} | " + " | ".join(shown + ratios))


def main() -> None:
    """Build the synthetic site cold, then again, and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--pages", type=int, default=10_000, help="pages of the site")
    parser.add_argument("--reports", type=int, default=1_000, help="report pages among them")
    parser.add_argument("--models", type=int, default=20, help="groups of model names")
    parser.add_argument("--workers", type=int, default=None, help="render processes")
    parser.add_argument("--browser", action="store_true", help="bytes fetched per query")
    parser.add_argument("--keep", type=Path, default=None, help="keep the site in this folder")
    parser.add_argument(
        "--no-snapshots", action="store_true", help="stores without snapshots (as before 024)"
    )
    parser.add_argument(
        "--checkout", action="append", default=[], help="a checkout to measure (twice or more)"
    )
    parser.add_argument("--measure", nargs=2, type=Path, help=argparse.SUPPRESS)
    arguments = parser.parse_args()
    if arguments.measure is not None:  # one checkout's builds, for --checkout
        _measure(*arguments.measure, arguments.workers)
        return
    with tempfile.TemporaryDirectory() as temporary:
        content = Path(temporary) / "content"
        site = arguments.keep or Path(temporary) / "site"
        if site.exists():
            shutil.rmtree(site)
        content.mkdir()
        made = time.perf_counter()
        markdown = make_content(
            content,
            pages=arguments.pages,
            reports=arguments.reports,
            models=arguments.models,
            snapshots=not arguments.no_snapshots,
        )
        made = time.perf_counter() - made
        if arguments.checkout:
            print(f"content made in {made:.1f} s ({markdown} markdown pages)", flush=True)
            _compare(arguments, content, Path(temporary))
            return
        workers = arguments.workers
        cold, cold_seconds, cold_cpu = _timed(content, site, workers)
        warm, warm_seconds, warm_cpu = _timed(content, site, workers)
        fresh = _fresh(content, site, workers)
        page = content / "pages" / "page-00000.md"
        if markdown:
            page.write_text(page.read_text(encoding="utf-8") + "\nOne more line.\n", "utf-8")
        one, one_seconds, one_cpu = _timed(content, site, workers)
        _report(
            arguments,
            site,
            markdown,
            made,
            (cold, cold_seconds, cold_cpu),
            (warm, warm_seconds, warm_cpu),
            (one, one_seconds, one_cpu),
            fresh,
        )
        if arguments.browser:
            from search_bytes import measure  # needs Playwright and Chromium

            for line in measure(site, "marker00042 accuracy"):
                print(line)


def _report(arguments, site, markdown, made, cold, warm, one, fresh) -> None:  # type: ignore[no-untyped-def]
    (cold, cold_seconds, cold_cpu), (warm, warm_seconds, warm_cpu) = cold, warm
    one, one_seconds, one_cpu = one
    kinds: dict[str, int] = {}
    for path in cold.rendered:
        if path.endswith(".html") and not path.startswith("pagefind/"):
            kind = path.split("/")[0] if "/" in path else "top-level"
            kinds[kind] = kinds.get(kind, 0) + 1
    total, files = _bytes(site)
    size, name = _largest(site, ".html")
    index = (site / "assets" / "search-index.js").read_bytes()
    stores = "without snapshots" if arguments.no_snapshots else "with snapshots"
    print(
        f"content made     {made:6.2f} s   ({markdown} markdown pages generated, stores {stores})"
    )
    print(f"pages            {cold.pages} ({', '.join(f'{k} {v}' for k, v in kinds.items())})")
    print(f"workers          {cold.workers} (of {os.cpu_count()} cores)")
    print(
        f"cold build       {cold_seconds:6.2f} s   {cold_cpu:6.2f} CPU s   budget "
        f"{COLD_BUDGET:.0f} s ({cold_seconds / COLD_BUDGET:.0%})   warnings {len(cold.warnings)}"
    )
    print(f"pages per second {cold.pages / cold_seconds:6.0f} (cold, wall)")
    print(
        f"no-change build  {warm_seconds:6.2f} s   {warm_cpu:6.2f} CPU s   budget "
        f"{WARM_BUDGET:.0f} s ({warm_seconds / WARM_BUDGET:.0%})   rendered {len(warm.rendered)}"
    )
    print(
        f"  in a new process {fresh[0]:6.2f} s   {fresh[1]:6.2f} CPU s   (modelscape build: "
        "the interpreter's start and imports included)"
    )
    written = sorted(p for p in one.rendered if not p.startswith("pagefind/"))
    pagefind_written = len(one.rendered) - len(written)
    print(
        f"one page changed {one_seconds:6.2f} s   {one_cpu:6.2f} CPU s   rendered {written}"
        f" and {pagefind_written} Pagefind files"
    )
    print(f"site             {total / 1e6:6.1f} MB in {files} files")
    print(
        f"largest page     {size / 1000:6.1f} kB gzipped ({name})   "
        f"budget {PAGE_BUDGET / 1000:.0f} kB"
    )
    zipped = len(gzip.compress(index, 6))
    print(
        f"search (script)  {len(index) / 1000:6.1f} kB, {zipped / 1000:.1f} kB gzipped: "
        "every query loads all of it"
    )
    pagefind = site / "pagefind"
    if pagefind.is_dir():
        pf_total, pf_files = _bytes(pagefind)
        print(f"search (Pagefind) {pf_total / 1e6:5.1f} MB in {pf_files} files on disk")
    else:
        print("search (Pagefind) none: pip install 'modelscape-map[search]' to make it")
    if cold.warnings:
        print("first warning:", str(cold.warnings[0])[:300])


if __name__ == "__main__":
    main()
