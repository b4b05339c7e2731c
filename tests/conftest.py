"""What every test shares: the ``slow`` marker, set by what a test needs rather than by hand.

A test is slow when it loads a real model, drives a browser or a page checker, or starts whole
processes. ``python -m pytest -m "not slow"`` leaves those out for a quick loop while working;
the README's test command, which CI runs, runs everything.
"""

from __future__ import annotations

import pytest

#: Fixtures that load a real model or start a browser or the HTML checker.
SLOW_FIXTURES = frozenset(
    {
        "gemma_path",
        "smollm2_path",
        "llama_server",
        "smollm2_server",
        "browser",
        "open_page",
        "vnu",
        "axe_source",
    }
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark every test that uses a slow fixture; modules that start processes mark themselves."""
    for item in items:
        if SLOW_FIXTURES.intersection(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.slow)
