"""Helpers shared by the site tests: small content folders of the tests' own runs and pages.

Nothing here reads the repository's ``content/``: its runs and pages are published material
that changes with every publication. Only the tests whose subject is that material read it,
through :data:`CONTENT`.
"""

from __future__ import annotations

from pathlib import Path

from tests.support.runs import RUN as RUN  # the run make_content copies by default
from tests.support.runs import copy_run

REPO = Path(__file__).resolve().parents[2]
#: The shipped content: read only by the tests whose subject it is (a strict build of it, the
#: method page documenting the downloads), never copied into a test's content folder.
CONTENT = REPO / "content"

#: The settings of a test's content folder: a title, and navigation to its own pages.
SETTINGS = """\
title: modelscape leaderboard
description: >-
  The tests' own leaderboard: small runs of shipped scenarios against reference targets.
navigation:
  - {title: Leaderboard, url: index.html}
  - {title: About, url: about.html}
  - {title: Method, url: method.html}
  - {title: Search, url: search.html}
"""

#: The markdown pages of a test's content folder, by file name. None embeds results.
PAGES = {
    "about.md": """\
---
title: About
description: What this test site shows.
---
# About this site

Each scenario asks a task many times, changing one thing at a time, and each target is
asked every variant several times so that its answers are compared with its own noise.

## What the numbers mean

Accuracy is the share of right answers; a spurious change is one the task did not ask for.

## The runs

Every run is a folder of `runs/`: its store, its report and its notes.
""",
    "method.md": """\
---
title: Method
description: How the answers are compared, and when a number is n/a.
---
# Method

Answers at two coordinates are compared with the answers of the same coordinate asked
again, so that a change is counted only beyond run-to-run noise.

## Ranking

Targets are ranked by their mean win rate over the scenarios they ran.
""",
}


def make_content(folder: Path, *, runs: tuple[str, ...] = (RUN,)) -> Path:
    """A small content folder: settings, two pages, and the runs named (kinds of
    :mod:`tests.support.runs`, made once per process) with their scenarios' specs."""
    (folder / "pages").mkdir(parents=True, exist_ok=True)
    (folder / "site.yaml").write_text(SETTINGS, encoding="utf-8")
    for name, text in PAGES.items():
        (folder / "pages" / name).write_text(text, encoding="utf-8")
    (folder / "specs").mkdir(exist_ok=True)
    for run in runs:
        copy_run(run, folder)
    return folder
