"""``modelscape init``: a new site project, ready to build and to publish on GitHub Pages.

The project holds a ``site.yaml``, an about page, one shipped spec to start from, a ``runs/``
folder with its layout explained, and a GitHub Actions workflow that builds the site in strict
mode and deploys it to Pages (configure-pages, upload-pages-artifact, deploy-pages). This
repository publishes its own ``content/`` with the same workflow (:func:`pages_workflow`).

The workflows install the wheel of the modelscape that wrote the project, which ``init`` puts
in ``vendor/`` (:mod:`~modelscape.scaffold.vendored`): no package index serves modelscape yet, and
a site should build with the release it was made with. ``from_index=True`` (``init
--from-index``) installs the same version from the index instead, once it is published there.
"""

from __future__ import annotations

import json
import shlex
import shutil
import tempfile
from collections.abc import Sequence
from pathlib import Path

from modelscape._version import DISTRIBUTION, __version__
from modelscape.scaffold.runs_workflow import install_comment, runs_workflow
from modelscape.scaffold.vendored import FOLDER, vendor_wheel, with_extras
from modelscape.site.config import SiteError

__all__ = ["init_site", "pages_workflow"]


def pages_workflow(*, install: str, content: str = ".", working_directory: str = ".") -> str:
    """A GitHub Actions workflow that builds ``content`` with modelscape and deploys to Pages.

    ``install`` is the pip requirement of modelscape, without extras: ``.`` in this repository,
    which holds the source; in a site made by ``init``, the wheel in ``vendor/`` or a pinned
    release of the distribution (``modelscape-map==X``), never the bare name ``modelscape``,
    which belongs to another project on the index. It is installed with its ``search`` extra
    (Pagefind), so the published site has the search index that loads per query. The
    site is built with ``--strict`` and with the address Pages gives it, so the sitemap and
    404 page carry absolute links. The address reaches the command through
    ``env:``: no ``run:`` line holds an expression, which Actions would paste into the shell's
    text (the arguments here are this code's own, never a user's).
    """
    searchable = shlex.quote(with_extras(install, ["search"]))
    return f"""# Build the modelscape site and publish it on GitHub Pages.
# In the repository settings, under Pages, set "Source" to "GitHub Actions".
name: pages

on:
  push:
    branches: [main]
  workflow_dispatch:

permissions:
  contents: read
  pages: write
  id-token: write

concurrency:
  group: pages
  cancel-in-progress: false

jobs:
  build:
    runs-on: ubuntu-latest
    defaults:
      run:
        working-directory: {working_directory}
    steps:
      - uses: actions/checkout@v5
      - uses: actions/setup-python@v6
        with:
          python-version: "3.11"
      - id: pages
        uses: actions/configure-pages@v6
{install_comment(install, indent=6)}      - run: python -m pip install {searchable}
      - env:
          BASE_URL: ${{{{ steps.pages.outputs.base_url }}}}
        run: >-
          modelscape build {content} -o site --strict
          --base-url "$BASE_URL/"
      - uses: actions/upload-pages-artifact@v4
        with:
          path: {working_directory.rstrip("/")}/site

  deploy:
    needs: build
    runs-on: ubuntu-latest
    environment:
      name: github-pages
      url: ${{{{ steps.deployment.outputs.page_url }}}}
    steps:
      - id: deployment
        uses: actions/deploy-pages@v5
"""


_SITE_YAML = """# Settings of the site (modelscape build). Unknown keys are errors.
title: {title}
description: Where language models change their answers, one controlled change at a time.
# base_url: https://USER.github.io/PROJECT/   # set by the Pages workflow with --base-url
# theme: theme                                # a folder with templates/ and static/
navigation:
  - {{title: Leaderboard, url: index.html}}
  - {{title: About, url: about.html}}
  - {{title: Search, url: search.html}}
"""

_ABOUT = """---
title: About
---
# About this site

This site maps where language models change their behaviour, one controlled change at a time.
Each scenario varies a task along a few axes; each model is asked every variant several times;
the [leaderboard](index.html) shows each model's headline numbers, and every number opens the
report it comes from.
"""

_RUNS = """# Runs

One folder per run, each holding:

- `store.db`: the SQLite store of the run (`modelscape run SPEC --target ... --store store.db`);
- `report.json`: its report (`modelscape report --store store.db -o report.json`);
- `README.md`: how the run was made (command, versions); shown on the report page.
"""

_README = """# {title}

A modelscape site. Build it with `modelscape build . -o site` (add `--strict` to fail on
broken links or incomplete runs), or preview it with `modelscape serve .`; pushing to `main`
publishes it on GitHub Pages through `.github/workflows/pages.yml`.
{install}"""

_VENDORED = """
The workflows install modelscape from `{wheel}`,
the wheel of the modelscape that made this project (no package index serves modelscape yet).
Once `{distribution}=={version}` is published, install it from the index instead: make the
project again with
`modelscape init --from-index`, or replace the wheel's path in the workflows' `pip install`
lines with `{distribution}` (keeping the brackets: `'{distribution}[search]=={version}'`) and
delete `{folder}/`.
"""

_FROM_INDEX = """
The workflows install `{distribution}=={version}` from the package index, the release that made
this project.
"""


def init_site(
    folder: str | Path,
    *,
    title: str | None = None,
    spec: str = "pressure",
    shards: int | None = None,
    targets: Sequence[str] = (),
    from_index: bool = False,
) -> list[Path]:
    """Create a site project in ``folder`` (new or empty) and return the files written.

    The project's workflows install the wheel of the running modelscape, written to
    ``vendor/``; with ``from_index``, the same version from the package index instead. With
    ``shards``, it also holds ``.github/workflows/runs.yml``, which runs the spec against
    ``targets`` in that many shards per target and publishes the merged runs (see
    :mod:`~modelscape.scaffold.runs_workflow`). Everything is checked, and the wheel made, before
    the first file is written.
    """
    root = Path(folder)
    if shards is None and targets:
        raise SiteError("targets are for the runs workflow: give the number of shards too")
    name = _checked(root, title)
    if shards is not None:  # its arguments checked before the wheel is made
        runs_workflow(install=DISTRIBUTION, scenarios=[spec], targets=targets, shards=shards)
    with tempfile.TemporaryDirectory() as scratch:
        wheel = None if from_index else vendor_wheel(Path(scratch))
        # A site repository holds no modelscape source, so its workflows install the release
        # that wrote the site: its wheel, or the same version by its own distribution name (the
        # bare name ``modelscape`` is another project's, and an unpinned one could build with a
        # release the site was not made for).
        install = f"{DISTRIBUTION}=={__version__}" if wheel is None else f"./{FOLDER}/{wheel.name}"
        written = _write(root, name, spec, shards, targets, install)
        if wheel is not None:
            vendored = root / FOLDER / wheel.name
            vendored.parent.mkdir(exist_ok=True)
            written.append(Path(shutil.copyfile(wheel, vendored)))
    return written


def _checked(root: Path, title: str | None) -> str:
    """The site's title, once the folder is known to be new or empty."""
    if root.exists() and not root.is_dir():
        raise SiteError(f"{root} is a file: choose a new folder for the site project")
    if root.exists() and any(root.iterdir()):
        raise SiteError(f"{root} is not empty: choose a new folder for the site project")
    name = root.resolve().name if title is None else title
    if not name.strip() or not name.isprintable():
        raise SiteError(
            f"the site's title must be one line of printable text, not {name!r} (--title)"
        )
    return name


def _write(
    root: Path,
    name: str,
    spec: str,
    shards: int | None,
    targets: Sequence[str],
    install: str,
) -> list[Path]:
    runs = None
    if shards is not None:
        runs = runs_workflow(install=install, scenarios=[spec], targets=targets, shards=shards)
    files = {
        # A JSON string is a YAML double-quoted scalar: "Lab: results" stays one title.
        "site.yaml": _SITE_YAML.format(title=json.dumps(name, ensure_ascii=False)),
        "pages/about.md": _ABOUT,
        "runs/README.md": _RUNS,
        "README.md": _README.format(title=name, install=_install_note(install)),
        ".gitignore": "site/\n",
        ".github/workflows/pages.yml": pages_workflow(install=install),
    }
    if runs is not None:
        files[".github/workflows/runs.yml"] = runs
    written = []
    try:
        for relative, text in files.items():
            path = root / relative
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
            written.append(path)
    except OSError as error:
        raise SiteError(f"cannot create the site project in {root}: {error.strerror}") from None
    (root / "specs").mkdir(exist_ok=True)
    # Imported here: the specs load the statistics, which ``import modelscape.site`` (and a
    # build with nothing to make) should not pay for.
    from modelscape.specs import shipped_path

    written.append(Path(shutil.copyfile(shipped_path(spec), root / "specs" / f"{spec}.yaml")))
    return written


def _install_note(install: str) -> str:
    values = {"distribution": DISTRIBUTION, "version": __version__, "folder": FOLDER}
    if install.endswith(".whl"):
        return _VENDORED.format(wheel=install.removeprefix("./"), **values)
    return _FROM_INDEX.format(**values)
