"""Fixtures for site tests: built sites, and the tools that check pages (headless Chromium
through Playwright, the Nu HTML Checker, axe-core).

A test that needs a missing tool skips with the reason, except under ``CI=true``, where it
fails: CI installs every tool (see .ci/run), so a skip there would hide a broken install.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from modelscape.site import build_site
from tests.site.hostile import Sandbox, make_sandbox
from tests.site.sitetools import RUN, make_content
from tests.support.browsertools import axe_source as read_axe
from tests.support.browsertools import chromium, vnu_command


@pytest.fixture
def content(tmp_path: Path) -> Path:
    """A fresh small content folder for one test."""
    return make_content(tmp_path / "content")


@pytest.fixture
def sandbox(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Sandbox:
    """A content folder with files around it that a build must neither change nor publish."""
    return make_sandbox(tmp_path, monkeypatch)


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A site built once per module from two runs (its content beside it, in ``content``), for
    tests that only read it."""
    folder = tmp_path_factory.mktemp("built")
    content = make_content(folder / "content", runs=(RUN, "pressure-fixture"))
    build_site(content, folder / "site", strict=True)
    return folder / "site"


# -- browser and validators -----------------------------------------------------------------
@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """One headless Chromium per module (Debian's, never a downloaded build).

    Module scope: Playwright's sync API keeps an event loop running while it is open, which
    would break ``asyncio.run`` in later test modules.
    """
    with chromium() as launched:
        yield launched


@pytest.fixture(scope="session")
def vnu() -> list[str]:
    """The command that runs the Nu HTML Checker, errors only."""
    return vnu_command()


@pytest.fixture(scope="session")
def axe_source() -> str:
    """The source of axe-core, evaluated into pages to audit them."""
    return read_axe()
