"""Helpers shared by the site tests: content folders made from the shipped runs."""

from __future__ import annotations

import shutil
from pathlib import Path

import yaml

from modelscape.site.embeds import mentions

REPO = Path(__file__).resolve().parents[2]
CONTENT = REPO / "content"
#: The shipped run the small content folders are made of (the smallest one).
RUN = "return-window-reference"


def make_content(folder: Path, *, runs: tuple[str, ...] = (RUN,)) -> Path:
    """A small content folder: the repository's settings and pages, one spec, some runs.

    Pages that embed results of the shipped runs (and their links in the navigation) are
    left out: their runs are not all copied, so they would be broken references.
    """
    folder.mkdir(parents=True, exist_ok=True)
    shutil.copytree(CONTENT / "pages", folder / "pages")
    dropped = set()
    for page in sorted((folder / "pages").rglob("*.md")):
        if mentions(page.read_text(encoding="utf-8")):
            page.unlink()
            dropped.add(page.relative_to(folder / "pages").with_suffix(".html").as_posix())
    settings = yaml.safe_load((CONTENT / "site.yaml").read_text(encoding="utf-8"))
    settings["navigation"] = [i for i in settings["navigation"] if i["url"] not in dropped]
    (folder / "site.yaml").write_text(yaml.safe_dump(settings), encoding="utf-8")
    (folder / "specs").mkdir()
    for run in runs:
        shutil.copytree(CONTENT / "runs" / run, folder / "runs" / run)
        spec = run.removesuffix("-reference")
        shutil.copyfile(CONTENT / "specs" / f"{spec}.yaml", folder / "specs" / f"{spec}.yaml")
    return folder
