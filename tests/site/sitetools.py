"""Helpers shared by the site tests: content folders made from the shipped runs, tool lookup."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
CONTENT = REPO / "content"
TOOLS = REPO / "build" / "page-tools" / "node_modules"
CHROMIUM = os.environ.get("MODELSCAPE_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-sync",
]
#: The shipped run the small content folders are made of (the smallest one).
RUN = "return-window-reference"


def need(condition: bool, reason: str) -> None:
    """Skip (fail under CI=true) unless ``condition`` holds."""
    if condition:
        return
    if os.environ.get("CI") == "true":
        pytest.fail(f"CI needs this tool: {reason}")
    pytest.skip(reason)


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


def tool(variable: str, relative: str) -> Path | None:
    """A page tool from its environment variable, or from build/page-tools."""
    configured = os.environ.get(variable)
    path = Path(configured) if configured else TOOLS / relative
    return path if path.exists() else None
