"""Fixtures for site tests: built sites, and the tools that check pages (headless Chromium
through Playwright, the Nu HTML Checker, axe-core).

A test that needs a missing tool skips with the reason, except under ``CI=true``, where it
fails: CI installs every tool (see .ci/run), so a skip there would hide a broken install.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from modelscape.site import build_site
from tests.site.sitetools import CHROMIUM, CHROMIUM_ARGS, RUN, TOOLS, make_content, need, tool


@pytest.fixture
def content(tmp_path: Path) -> Path:
    """A fresh small content folder for one test."""
    return make_content(tmp_path / "content")


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A site built once per module from two shipped runs, for tests that only read it."""
    folder = tmp_path_factory.mktemp("built")
    content = make_content(folder / "content", runs=(RUN, "pressure-reference"))
    build_site(content, folder / "site", strict=True)
    return folder / "site"


# -- browser and validators -----------------------------------------------------------------
@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """One headless Chromium per module (Debian's, never a downloaded build).

    Module scope: Playwright's sync API keeps an event loop running while it is open, which
    would break ``asyncio.run`` in later test modules.
    """
    need(Path(CHROMIUM).exists(), f"no Chromium at {CHROMIUM} (apt-get install chromium)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        need(False, "playwright is not installed (pip install playwright)")
        raise
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield launched
        launched.close()


@pytest.fixture(scope="session")
def vnu() -> list[str]:
    """The command that runs the Nu HTML Checker, errors only."""
    jar = tool("MODELSCAPE_VNU_JAR", "vnu-jar/build/dist/vnu.jar")
    java = shutil.which("java")
    need(jar is not None, f"no vnu.jar (npm install --prefix {TOOLS.parent} vnu-jar)")
    need(java is not None, "no java on PATH (apt-get install default-jre-headless)")
    assert jar is not None
    assert java is not None
    return [java, "-jar", str(jar), "--errors-only"]


@pytest.fixture(scope="session")
def axe_source() -> str:
    """The source of axe-core, evaluated into pages to audit them."""
    path = tool("MODELSCAPE_AXE", "axe-core/axe.min.js")
    need(path is not None, f"no axe.min.js (npm install --prefix {TOOLS.parent} axe-core)")
    assert path is not None
    return path.read_text(encoding="utf-8")
