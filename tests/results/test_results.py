"""``Results``' own public behaviour (the reference's ``load``, ``select``, ``table``, ``trace``),
over the hostile records of :mod:`tests.records.hostile`.

Each property builds the results of some observations and measurements twice, from the
records themselves and by ``Results.load`` from a SQLite store they were saved to, and checks
both against what the reference says, computed here from the records by hand: ``select``
filters by target, case and a coordinate completed with baselines (``1``, ``1.0`` and ``True``
are three coordinates), ``table`` has one row per observation, ``trace`` recovers exactly the
measurements named, the observations they measured and those observations' variants.
"""

from __future__ import annotations

import gc
import itertools
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import modelscape
from modelscape.errors import AnalysisError, StoreError
from modelscape.records import stored
from modelscape.records.stored import DifferenceMeasurement, Observation, PointMeasurement
from modelscape.results.results import Results, run_of
from modelscape.store import MemoryStore, SQLiteStore
from modelscape.store.protocol import StoredRun
from modelscape.targets._cleaning import clean_data, clean_output
from tests.records import hostile
from tests.records.hostile import LABELS, RECORD, VARIANTS, dumps, same, typed

pytestmark = pytest.mark.filterwarnings(
    "ignore:Generating overly large repr:hypothesis.errors.HypothesisWarning"
)
SETTINGS = settings(
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
_files = itertools.count()
Run = tuple[list[Observation], list[PointMeasurement], list[DifferenceMeasurement]]


@st.composite
def runs(draw: st.DrawFn) -> Run:
    found = draw(hostile.observations(hostile.raw_outputs().map(clean_output), most=8))
    points, differences = hostile.measurements(
        draw,
        found,
        st.none() | hostile.finite,
        hostile.json_values(hostile.valid_text).map(clean_data),
    )
    return found, points, differences


def both(tmp_path: Path, run: Run) -> Iterator[tuple[str, Results, list[Observation]]]:
    """The results of ``run`` from its records and loaded from a SQLite store, each with its
    observations in the order the results hold them."""
    observations, points, differences = run
    yield "from records", Results(RECORD, VARIANTS, observations, points, differences), observations
    with SQLiteStore(tmp_path / f"s{next(_files)}.db") as store:
        store.save_experiment(RECORD, VARIANTS)
        store.save_observations(observations)
        store.save_measurements(points, differences)
        loaded = Results.load(store, RECORD.id)
    order = {o.id: i for i, o in enumerate(run_of(loaded).observations)}
    yield "loaded", loaded, sorted(observations, key=lambda o: order[o.id])


# -- select ---------------------------------------------------------------------------------------
TARGETS = [None, *(t.name for t in RECORD.targets)]
CASES = [None, *RECORD.cases]
COORDINATES: list[dict[str, Any] | None] = [None, {}, *({"label": v} for v in LABELS)]


def matches(o: Observation, target: Any, case: Any, coordinate: dict[str, Any] | None) -> bool:
    """What the reference says ``select`` keeps, read off one record."""
    if coordinate is not None:
        wanted = {**RECORD.baseline, **coordinate}
        if typed(o.coordinate) != typed(wanted):
            return False
    return (target is None or o.target == target) and (case is None or o.case == case)


@SETTINGS
@given(
    run=runs(),
    target=st.sampled_from(TARGETS),
    case=st.sampled_from(CASES),
    coordinate=st.sampled_from(COORDINATES),
)
def test_select_keeps_what_matches_every_filter_in_order_and_coordinates_partition(
    tmp_path: Path, run: Run, target: Any, case: Any, coordinate: dict[str, Any] | None
) -> None:
    for how, results, held in both(tmp_path, run):
        chosen = results.select(target=target, case=case, coordinate=coordinate)
        expected = [o for o in held if matches(o, target, case, coordinate)]
        same(dumps(chosen), dumps(expected), how)
        assert isinstance(chosen, tuple)
        # Each observation is at exactly one of the design's coordinates.
        parts = [results.select(coordinate=c) for c in RECORD.coordinates]
        assert sorted(o.id for p in parts for o in p) == sorted(o.id for o in held), how


@pytest.mark.parametrize(
    ("filters", "message"),
    [
        (
            {"target": "t</script>"},
            r"no target 't</script>' \(did you mean 't\\u202e</script>'\?\)",
        ),
        ({"case": "nope"}, "no case 'nope' in experiment"),
        ({"coordinate": {"label": "1.0"}}, "axis 'label' has no value '1.0'"),
        ({"coordinate": {"level": 1}}, r"unknown axes \['level'\]; the axes are \['label'\]"),
    ],
)
def test_select_names_a_filter_that_matches_nothing_the_run_has(
    filters: dict[str, Any], message: str
) -> None:
    results = Results(RECORD, VARIANTS, [], [], [])
    with pytest.raises(AnalysisError, match=message):
        results.select(**filters)


# -- table ----------------------------------------------------------------------------------------
def row(o: Observation, points: list[PointMeasurement]) -> dict[str, Any]:
    """The reference's tidy row of one observation, made from its records by hand."""
    (metric,) = RECORD.point_metrics
    mine = [p for p in points if p.observation_id == o.id and p.measure == metric.name]
    return {
        "observation": o.id,
        "target": o.target,
        "case": o.case,
        "variant": o.variant_id,
        "repetition": o.repetition,
        "status": o.status,
        **{f"axis:{name}": value for name, value in o.coordinate.items()},
        metric.name: mine[-1].value if mine else None,
        "output": o.output.text,
        "model": o.output.model,
        "attempts": o.attempts,
        "started": o.started,
        "duration": o.duration,
    }


@SETTINGS
@given(run=runs())
def test_the_table_has_one_row_per_observation_with_its_metrics_and_times(
    tmp_path: Path, run: Run
) -> None:
    _, points, _ = run
    for how, results, held in both(tmp_path, run):
        table = results.table()
        assert len(table) == len(held), how
        for got, observation in zip(table, held, strict=True):
            expected = row(observation, points)
            assert sorted(got) == sorted(expected), how
            value = got.pop(RECORD.point_metrics[0].name)
            wanted = expected.pop(RECORD.point_metrics[0].name)
            # A SQLite REAL column keeps no sign of a zero.
            same(
                typed(None if value is None else value + 0.0),
                typed(None if wanted is None else wanted + 0.0),
                how,
            )
            same(
                {k: typed(v) for k, v in got.items()},
                {k: typed(v) for k, v in expected.items()},
                how,
            )


# -- trace ----------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Aggregate:
    """Any number an analysis might return: it names its measurements."""

    measurement_ids: tuple[str, ...]


@SETTINGS
@given(run=runs(), data=st.data())
def test_a_trace_recovers_exactly_the_measurements_named_and_what_they_measured(
    tmp_path: Path, run: Run, data: st.DataObject
) -> None:
    observations, points, differences = run
    named = [*points, *differences]
    if not named:
        return
    picked = data.draw(st.lists(st.sampled_from(named), min_size=1, max_size=6))
    ids = [m.id for m in picked]
    measurements = list({m.id: m for m in picked}.values())
    measured: list[str] = []
    for m in measurements:
        ends = [m.observation_id] if isinstance(m, PointMeasurement) else [m.first, m.second]
        measured.extend(e for e in ends if e not in measured)
    by_id = {o.id: o for o in observations}
    variants: list[str] = []
    for oid in measured:
        if by_id[oid].variant_id not in variants:
            variants.append(by_id[oid].variant_id)
    for how, results, _ in both(tmp_path, run):
        for item in (ids, Aggregate(tuple(ids))):
            trace = results.trace(item)
            assert [m.id for m in trace.measurements] == [m.id for m in measurements], how
            same(dumps(trace.observations), dumps(by_id[o] for o in measured), how)
            assert [v.id for v in trace.variants] == variants, how
        with pytest.raises(AnalysisError, match="measurement 'no such id' is not in these"):
            results.trace([*ids, "no such id"])


# -- load and the names ---------------------------------------------------------------------------
@pytest.mark.parametrize("kind", ["sqlite", "memory"])
def test_loading_an_experiment_a_store_lacks_names_what_it_holds(tmp_path: Path, kind: str) -> None:
    store = SQLiteStore(tmp_path / "s.db") if kind == "sqlite" else MemoryStore()
    store.save_experiment(RECORD, VARIANTS)
    with pytest.raises(StoreError, match=f"no experiment 'nope'.*{RECORD.id}"):
        Results.load(store, "nope")
    loaded = Results.load(store, RECORD.id)
    assert repr(loaded) == (
        f"Results(experiment={RECORD.id!r}, targets={[t.name for t in RECORD.targets]}, "
        "observations=0)"
    )
    store.close()


def test_the_records_have_one_home() -> None:
    """The stored records are imported from :mod:`modelscape.records.stored` alone: the old
    path under ``results`` is gone rather than kept as a second name for them."""
    import importlib

    with pytest.raises(ModuleNotFoundError):
        importlib.import_module("modelscape.results.records")
    assert all(getattr(stored, name).__module__ == stored.__name__ for name in stored.__all__)
    assert modelscape.Results is Results


def test_a_point_of_an_observation_the_results_lack_traces_to_the_point_alone() -> None:
    """Records given directly may hold such a point; its trace raised a bare KeyError."""
    (metric,) = RECORD.point_metrics
    orphan = PointMeasurement(
        id="p", observation_id="gone", measure=metric.name, measure_id=metric.id, value=1.0
    )
    trace = Results(RECORD, VARIANTS, [], [orphan], []).trace(["p"])
    assert trace.measurements == (orphan,)
    assert trace.observations == ()
    assert trace.variants == ()


# -- the process's collector ----------------------------------------------------------------------
class Watching(MemoryStore):
    """A memory store that notes whether the collector was on while it loaded."""

    seen: list[bool]

    def load(self, experiment_id: str) -> StoredRun:
        self.seen.append(gc.isenabled())
        return super().load(experiment_id)


def test_a_load_leaves_the_collector_as_its_caller_set_it() -> None:
    store = Watching()
    store.seen = []
    store.save_experiment(RECORD, VARIANTS)
    assert gc.isenabled()
    Results.load(store, RECORD.id)
    gc.disable()
    try:
        Results.load(store, RECORD.id)
        assert not gc.isenabled()
    finally:
        gc.enable()
    assert store.seen == [True, False]
