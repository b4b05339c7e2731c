"""What ``Results`` shows a user: the names the reference documents, and nothing it inherits.

``Results`` holds its run (an ``IndexedRun``) rather than being one, so the forty-odd helpers
the analyses, pages and reports read stay off its public surface. These tests lock that
surface: a public name added to ``Results`` by accident (or by a new base class) fails here,
and so does one of the reference's names going missing.
"""

from __future__ import annotations

import inspect

import pytest

from modelscape.records.run import IndexedRun
from modelscape.results.results import Results, run_of
from tests.records.hostile import RECORD, VARIANTS

#: Results' names in the API reference (section "Results").
REFERENCE = (
    "agreement", "divergence", "load", "profile", "profiles", "scorecard", "select",
    "sensitivity", "table", "trace", "transitions", "variability",
)  # fmt: skip
#: The names the README documents beyond the reference: the grid surface and the run's table
#: (issue 29 asked for the exports; docs/design/046 says why they stay).
DOCUMENTED = ("surface", "to_arrow", "to_pandas", "to_parquet", "to_polars")


def _public(value: object) -> set[str]:
    return {name for name in dir(value) if not name.startswith("_")}


def test_results_show_exactly_the_documented_names() -> None:
    assert _public(Results) == {*REFERENCE, *DOCUMENTED}
    results = Results(RECORD, VARIANTS, [], [], [])
    assert _public(results) == {*REFERENCE, *DOCUMENTED}


def test_every_public_name_is_documented_and_keeps_its_shape() -> None:
    for name in (*REFERENCE, *DOCUMENTED):
        assert inspect.getdoc(getattr(Results, name)), f"Results.{name} has no docstring"
    assert list(inspect.signature(Results).parameters) == [
        "experiment",
        "variants",
        "observations",
        "point_measurements",
        "difference_measurements",
    ]
    assert isinstance(inspect.getattr_static(Results, "load"), classmethod)


def test_results_hold_their_run_and_are_not_one() -> None:
    assert not issubclass(Results, IndexedRun)
    results = Results(RECORD, VARIANTS, [], [], [])
    run = run_of(results)
    assert isinstance(run, IndexedRun)
    assert run is run_of(results)  # held once: what the analyses keep on it stays warm
    assert run.experiment is RECORD
    with pytest.raises(AttributeError):
        results.observations  # type: ignore[attr-defined]  # noqa: B018
    with pytest.raises(AttributeError):
        results.anything = 1  # type: ignore[attr-defined]
