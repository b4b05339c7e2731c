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


def pytest_unconfigure(config: pytest.Config) -> None:
    """Close the two ``/dev/null`` files llama-cpp-python opens when it is imported.

    ``llama_cpp._utils`` keeps them open for the life of the process, so a run that imported it
    (the grammar test) printed two ``ResourceWarning: unclosed file`` lines at exit. Nothing of
    llama.cpp runs after the session, so closing them here is safe.
    """
    import sys

    utils = sys.modules.get("llama_cpp._utils")
    for name in ("outnull_file", "errnull_file"):
        opened = getattr(utils, name, None)
        if opened is not None:
            opened.close()
