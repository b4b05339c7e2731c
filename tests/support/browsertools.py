"""What the browser and validator tests share: Debian's Chromium, the page tools, skip rules.

Locally a test whose tool is missing skips with the command that installs it; under
``CI=true`` it fails instead, because CI must run every check.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]
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


def need(condition: bool, reason: str) -> None:
    """Skip (fail under CI=true) unless ``condition`` holds."""
    if condition:
        return
    if os.environ.get("CI") == "true":
        pytest.fail(f"CI needs this tool: {reason}")
    pytest.skip(reason)


def tool(variable: str, relative: str) -> Path | None:
    """A page tool from its environment variable, or from build/page-tools."""
    configured = os.environ.get(variable)
    path = Path(configured) if configured else TOOLS / relative
    return path if path.exists() else None


@contextmanager
def chromium() -> Iterator[Any]:
    """Debian's headless Chromium driven by Playwright (never a browser Playwright downloads).

    Use it for one test module at a time: Playwright's sync API keeps an event loop running in
    the main thread while it is open, which breaks ``asyncio.run`` in later modules.
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


def vnu_command() -> list[str]:
    """The command that runs the Nu HTML Checker, errors only."""
    jar = tool("MODELSCAPE_VNU_JAR", "vnu-jar/build/dist/vnu.jar")
    java = shutil.which("java")
    need(jar is not None, f"no vnu.jar (npm install --prefix {TOOLS.parent} vnu-jar)")
    need(java is not None, "no java on PATH (apt-get install default-jre-headless)")
    assert jar is not None
    assert java is not None
    return [java, "-jar", str(jar), "--errors-only"]


def axe_source() -> str:
    """The source of axe-core, evaluated into pages to audit them."""
    path = tool("MODELSCAPE_AXE", "axe-core/axe.min.js")
    need(path is not None, f"no axe.min.js (npm install --prefix {TOOLS.parent} axe-core)")
    assert path is not None
    return path.read_text(encoding="utf-8")
