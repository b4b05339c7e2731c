"""Helpers shared by the site tests: content folders made from the shipped runs."""

from __future__ import annotations

import shutil
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
CONTENT = REPO / "content"
#: The shipped run the small content folders are made of (the smallest one).
RUN = "return-window-reference"


def make_content(folder: Path, *, runs: tuple[str, ...] = (RUN,)) -> Path:
    """A small content folder: the repository's settings and pages, one spec, some runs."""
    folder.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(CONTENT / "site.yaml", folder / "site.yaml")
    shutil.copytree(CONTENT / "pages", folder / "pages")
    (folder / "specs").mkdir()
    for run in runs:
        shutil.copytree(CONTENT / "runs" / run, folder / "runs" / run)
        spec = run.removesuffix("-reference")
        shutil.copyfile(CONTENT / "specs" / f"{spec}.yaml", folder / "specs" / f"{spec}.yaml")
    return folder
