"""What every test shares: the ``slow`` marker, set by what a test needs rather than by hand.

A test is slow when it loads a real model, drives a browser or a page checker, or starts whole
processes. ``python -m pytest -m "not slow"`` leaves those out for a quick loop while working;
the README's test command, which CI runs, runs everything.

It also loads the suite's Hypothesis profile (``dev``, ``ci`` or ``thorough``, see
:mod:`tests.support.examples`) before any test module is imported, and under ``ci`` seeds every
property so that a rerun tries the same examples.
"""

from __future__ import annotations

from pathlib import Path

import hypothesis
import pytest

from tests.support.examples import SEED, register

PROFILE = register(str(Path(__file__).resolve().parents[1] / ".hypothesis" / "examples"))

#: The fixtures that load a real model and those that start a browser, by the xdist group
#: their tests join: under ``-n`` each group runs on one worker, so the model servers start once
#: and no two Chromiums (or a Chromium and JupyterLab) compete for the two cores.
GROUPS = {
    "model": frozenset({"gemma_path", "smollm2_path", "llama_server", "smollm2_server"}),
    "browser": frozenset({"browser", "open_page", "axe_source"}),
}
#: Modules that start a browser or JupyterLab without one of those fixtures.
BROWSER_MODULES = frozenset({"test_jupyterlab.py", "test_site_screenshots.py"})
#: Fixtures that load a real model or start a browser or the HTML checker.
SLOW_FIXTURES = frozenset({"vnu"}).union(*GROUPS.values())


def pytest_report_header() -> str:
    """Say which Hypothesis profile the run uses, and its seed under ``ci``."""
    seeded = f", seed {SEED}" if PROFILE == "ci" else ""
    return f"modelscape hypothesis profile: {PROFILE}{seeded}"


@pytest.hookimpl(tryfirst=True)  # before xdist reads the groups
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark every test that uses a slow fixture (modules that start processes mark themselves)
    and put it in its xdist group; under the ``ci`` profile give every property the suite's
    seed."""
    for item in items:
        fixtures = set(getattr(item, "fixturenames", ()))
        if SLOW_FIXTURES.intersection(fixtures):
            item.add_marker(pytest.mark.slow)
        group = next((name for name, needs in GROUPS.items() if needs & fixtures), None)
        if group is None and item.path.name in BROWSER_MODULES:
            group = "browser"
        if group is not None:
            item.add_marker(pytest.mark.xdist_group(group))
        if PROFILE == "ci" and isinstance(item, pytest.Function):
            _seed(item)


def _seed(item: pytest.Function) -> None:
    # hypothesis.seed is the public way to fix a property's seed; unlike derandomize (and
    # --hypothesis-seed) it keeps the example database in use.
    test = getattr(item.obj, "__func__", item.obj)
    if hypothesis.is_hypothesis_test(test):
        hypothesis.seed(SEED)(test)


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
