"""``Results.to_arrow`` and the exports made from it (Parquet, pandas, polars), over the hostile
records of :mod:`tests.records.hostile` and over a real run read back by DuckDB.

The property builds the results of some hostile observations twice (from the records, and by
``Results.load`` of a SQLite store they were saved to) and checks every cell of the table
against the record it came from, read here field by field: text with NUL and right-to-left
marks, JSON data nested two hundred levels deep, numbers past 64 bits, every awkward float.
The Parquet file must read back as the same table, and pandas and polars must hold the same
rows and columns.
"""

from __future__ import annotations

import itertools
import json
import math
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from modelscape.errors import MissingExtraError, ModelscapeError
from modelscape.execution.runner import Runner
from modelscape.records.stored import DifferenceMeasurement, Observation, PointMeasurement
from modelscape.results.results import Results, run_of
from modelscape.store import SQLiteStore
from modelscape.targets._cleaning import clean_data, clean_output
from modelscape.targets.protocol import TargetOutput
from modelscape.text_measures import edit_difference
from tests.records import hostile
from tests.records.hostile import RECORD, VARIANTS, same, typed
from tests.support import mapping_space

pa = pytest.importorskip("pyarrow")
parquet = pytest.importorskip("pyarrow.parquet")

pytestmark = pytest.mark.filterwarnings(
    "ignore:Generating overly large repr:hypothesis.errors.HypothesisWarning"
)
SETTINGS = settings(
    deadline=None,
    max_examples=60,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
_files = itertools.count()
Run = tuple[list[Observation], list[PointMeasurement], list[DifferenceMeasurement]]
METRIC = RECORD.point_metrics[0].name
AXIS = f"axis:{RECORD.axes[0].name}"


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


def both(tmp_path: Path, run: Run) -> list[tuple[str, Results, list[Observation]]]:
    """The results of ``run`` from its records and loaded from a SQLite store, each with its
    observations in the order the results hold them."""
    observations, points, differences = run
    made = Results(RECORD, VARIANTS, observations, points, differences)
    with SQLiteStore(tmp_path / f"s{next(_files)}.db") as store:
        store.save_experiment(RECORD, VARIANTS)
        store.save_observations(observations)
        store.save_measurements(points, differences)
        loaded = Results.load(store, RECORD.id)
    order = {o.id: i for i, o in enumerate(run_of(loaded).observations)}
    return [
        ("from records", made, observations),
        ("loaded", loaded, sorted(observations, key=lambda o: order[o.id])),
    ]


def json_of(value: Any) -> str:
    """How the table writes a value that has no column type of its own: its JSON text."""
    return json.dumps(value, ensure_ascii=False)


def expected_row(
    observation: Observation, points: list[PointMeasurement], wide: bool
) -> dict[str, Any]:
    """A row of the table, read off its record by hand; ``wide``: seeds are text."""
    output, usage = observation.output, observation.output.usage
    mine = [p for p in points if p.observation_id == observation.id]
    return {
        "observation": observation.id,
        "target": observation.target,
        "target_id": observation.target_id,
        "variant": observation.variant_id,
        "case": observation.case,
        AXIS: json_of(observation.coordinate["label"]),
        "repetition": observation.repetition,
        "seed": str(observation.seed) if wide else observation.seed,
        "status": observation.status,
        "attempts": observation.attempts,
        "started": observation.started,
        "duration": observation.duration,
        "text": output.text,
        "data": None if output.data is None else json_of(output.data),
        "model": output.model,
        "finish_reason": output.finish_reason,
        "error": output.error,
        "latency": output.latency,
        "input_tokens": None if usage is None else usage.input_tokens,
        "output_tokens": None if usage is None else usage.output_tokens,
        "cost": None if usage is None else usage.cost,
        # The last point stored wins, as everywhere in the results.
        METRIC: mine[-1].value if mine else None,
    }


def plus_zero(value: Any) -> Any:
    """A SQLite REAL column keeps no sign of a zero: compared with the sign dropped."""
    return value + 0.0 if isinstance(value, float) else value


@SETTINGS
@given(run=runs())
def test_the_table_holds_every_observation_field_by_field_and_parquet_keeps_it(
    tmp_path: Path, run: Run
) -> None:
    _, points, _ = run
    for how, results, held in both(tmp_path, run):
        table = results.to_arrow()
        assert table.num_rows == len(held), how
        assert table.schema.metadata == {b"modelscape.experiment": RECORD.id.encode()}
        wide = any(not -(2**63) <= o.seed < 2**63 for o in held)
        assert table.schema.field("seed").type == (pa.string() if wide else pa.int64()), how
        for got, observation in zip(table.to_pylist(), held, strict=True):
            wanted = expected_row(observation, points, wide)
            assert list(got) == list(wanted), how
            got_data, wanted_data = got.pop("data"), wanted.pop("data")
            if wanted_data is not None:
                # Equal as data: the text may spell a float differently (1e+300 or 1e300).
                same(typed(json.loads(got_data)), typed(json.loads(wanted_data)), how)
            else:
                assert got_data is None, how
            got[METRIC], wanted[METRIC] = plus_zero(got[METRIC]), plus_zero(wanted[METRIC])
            same({k: typed(v) for k, v in got.items()}, {k: typed(v) for k, v in wanted.items()})
        path = results.to_parquet(tmp_path / f"t{next(_files)}.parquet")
        assert parquet.read_table(path).equals(table), how


@SETTINGS
@given(run=runs())
def test_pandas_and_polars_hold_the_same_rows_and_columns(tmp_path: Path, run: Run) -> None:
    pytest.importorskip("pandas")
    polars = pytest.importorskip("polars")
    for how, results, held in both(tmp_path, run):
        table = results.to_arrow()
        frame = results.to_pandas()
        assert list(frame.columns) == table.column_names, how
        assert list(frame["observation"]) == [o.id for o in held], how
        assert list(frame["text"]) == [o.output.text for o in held], how
        lazy = results.to_polars()
        assert isinstance(lazy, polars.DataFrame)
        assert lazy.columns == table.column_names, how
        assert lazy["observation"].to_list() == [o.id for o in held], how


def test_hand_made_records_read_as_a_store_would_hold_them() -> None:
    """Records made by hand, not cleaned: a lone surrogate becomes U+FFFD, NaN in the data
    null, and NUL stays."""
    variant = VARIANTS[0]
    target = RECORD.targets[0]
    output = TargetOutput(text="a\x00b\ud83d", data={"x": [math.nan, math.inf, 1]}, error="\ude00")
    observation = Observation(
        id="o1",
        experiment_id=RECORD.id,
        target=target.name,
        target_id=target.id,
        variant_id=variant.id,
        case=variant.case,
        coordinate=dict(variant.coordinate),
        repetition=0,
        seed=1,
        status="ok",
        output=output,
    )
    (row,) = Results(RECORD, VARIANTS, [observation], [], []).to_arrow().to_pylist()
    assert row["text"] == "a\x00b\ufffd"
    assert row["error"] == "\ufffd"
    assert json.loads(row["data"]) == {"x": [None, None, 1]}
    assert row[METRIC] is None
    assert row["input_tokens"] is None


def test_an_export_without_its_library_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    results = Results(RECORD, VARIANTS, [], [], [])
    for module, call, extra in [
        ("pyarrow", results.to_arrow, "arrow"),
        ("pandas", results.to_pandas, "pandas"),
        ("polars", results.to_polars, "polars"),
    ]:
        with monkeypatch.context() as patched:
            patched.setitem(sys.modules, module, None)  # what an absent module imports as
            with pytest.raises(MissingExtraError, match=rf"modelscape-map\[{extra}\]") as raised:
                call()
        assert isinstance(raised.value, ImportError)
        assert isinstance(raised.value, ModelscapeError)


def test_an_empty_run_has_every_column_and_no_row() -> None:
    table = Results(RECORD, VARIANTS, [], [], []).to_arrow()
    assert table.num_rows == 0
    assert METRIC in table.column_names
    assert "differs</script>" not in table.column_names  # pairwise: no place in a row


# -- a real run, read by DuckDB -------------------------------------------------------------------
def test_a_run_exports_its_answers_and_duckdb_reads_the_table_and_the_file(
    tmp_path: Path,
) -> None:
    duckdb = pytest.importorskip("duckdb")
    scenario = mapping_space.scenario(cases=3, measures=[edit_difference()])
    targets = [mapping_space.planted("a"), mapping_space.planted("b", noise=0.3)]
    experiment = scenario.experiment(targets, mapping_space.FAST)
    with SQLiteStore(tmp_path / "run.db") as store:
        results = Runner(store=store).run(experiment)
    table = results.to_arrow()
    rows = table.to_pylist()
    assert table.column_names[:7] == [
        "observation", "target", "target_id", "variant", "case", "axis:level", "axis:who"
    ]  # fmt: skip
    assert table.schema.field("axis:level").type == pa.int64()
    assert table.column_names[-3:] == ["correct", "answered", "answer_change"]
    assert "edit_distance" not in table.column_names  # pairwise: no place in a row
    coordinates = len(run_of(results).experiment.coordinates)
    assert len(rows) == len(run_of(results).observations) == 2 * 3 * coordinates * 2
    # The keyed measure's key is the answer the scenario's reader read, as JSON text.
    for row, observation in zip(rows, run_of(results).observations, strict=True):
        assert json.loads(row["answer_change"]) == scenario.answer(observation.output)
    connection = duckdb.connect()
    connection.register("run", table)
    by_target = connection.execute(
        'select target, count(*), avg(correct) from run where "axis:level" > 1 '
        "group by target order by target"
    ).fetchall()
    expected = [
        (name, len(mine), sum(r["correct"] for r in mine) / len(mine))
        for name in ("a", "b")
        for mine in [[r for r in rows if r["target"] == name and r["axis:level"] > 1]]
    ]
    assert by_target == pytest.approx(expected)
    path = results.to_parquet(tmp_path / "run.parquet")
    from_file = connection.execute(
        f"select observation, answer_change from read_parquet('{path}') order by observation"
    ).fetchall()
    assert from_file == sorted((r["observation"], r["answer_change"]) for r in rows)
