"""The embedded observations read from a stored run's columns are those built from records.

A report page reads the observations it embeds straight from the columns of a run loaded from
its store (:mod:`modelscape.pages.embedded`); records are built only for results held as
records. A page must not change with the way it was read, so the two are compared entry by
entry (by ``repr``, which tells ``1``, ``1.0`` and ``True`` apart) over stored values a hand
or a hostile model could leave: odd and long text, unicode, lone surrogates, NaN and
infinities, huge numbers, nested JSON, fields missing from a row, answers of every kind. And
the whole page is compared over every kind of the tests' own runs (tests.support.runs):
reference targets, stand-ins for local models, targets that fail, a grid of two axes.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
import tempfile
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from modelscape.pages import ReportPage
from modelscape.pages.embedded import Embedded, _from_columns, _from_records, embedded
from modelscape.pages.evidence import OUTPUT_LIMIT
from modelscape.report import Report
from modelscape.results.results import Results, run_of
from modelscape.store import SQLiteStore
from tests.pages.conftest import Run
from tests.support.runs import KINDS, made

# Values that look alike but print differently, so that a value shared between rows (a
# categorical column keeps each distinct value once) is caught if printed as another row's.
_ALIKE = st.sampled_from([0, 0.0, -0.0, 1, 1.0, True, False, "1", "", " 1 ", None])
_NUMBER = st.one_of(
    st.integers(min_value=-(10**30), max_value=10**30),
    st.floats(allow_nan=True, allow_infinity=True),
    _ALIKE,
)
_TEXT = st.one_of(
    st.text(max_size=40),
    st.text(st.characters(categories=["Cs", "Zl", "Zp", "Cc", "So"]), max_size=8),
    st.sampled_from(["</script><script>alert(1)</script>", "\u2028", "x" * (OUTPUT_LIMIT + 3)]),
)
_SCALAR = st.one_of(st.none(), st.booleans(), _NUMBER, _TEXT)
_JSON = st.recursive(
    _SCALAR,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(_TEXT, inner, max_size=4)),
    max_leaves=12,
)
# What a row's output may be changed to: a field set to a value, or left out (None).
_OUTPUT = st.fixed_dictionaries(
    {},
    optional={
        "text": st.one_of(st.none(), _TEXT),
        "data": st.one_of(st.none(), st.just("drop"), _JSON),
        "model": st.one_of(st.none(), _TEXT, st.just("drop")),
        "error": st.one_of(st.none(), _TEXT, st.just("drop")),
        "extra": _JSON,
    },
)
_DETAILS = st.one_of(
    st.none(),
    _JSON,
    st.builds(lambda answer: {"answer": answer}, _JSON),
    st.builds(lambda answer: {"note": 1, "answer": answer}, _ALIKE),
)
# A point's value as SQLite keeps it in a REAL column (NaN would be kept as NULL).
_VALUE = st.one_of(st.none(), st.floats(allow_nan=False), st.integers(-3, 3), st.booleans())
_POINT = st.tuples(_VALUE, _DETAILS)


def _same(fast: Embedded, slow: Embedded) -> None:
    assert fast.ids == slow.ids
    assert fast.variants == slow.variants
    assert len(fast.entries) == len(slow.entries)
    for one, other in zip(fast.entries, slow.entries, strict=True):
        assert list(one) == list(other)  # the same keys in the same order
        assert repr(one) == repr(other)


def _long(key: str, text: str | None, name: str) -> dict[str, Any]:
    """Stands for the page's own: every text whole, with its file name beside it."""
    return {key: text, f"{key}_name": name}


def _both(results: Results) -> tuple[Embedded, Embedded]:
    """The entries of every observation of a run, read from its columns and from records."""
    indexed = run_of(results)
    held = indexed.observations
    used = list(getattr(held, "ids", []))
    fast = embedded(results, used, _long, limit=20)
    points = indexed.point_measurements
    rows = sorted(held.rows_by_id[i] for i in used)  # type: ignore[attr-defined]
    assert fast == _from_columns(results, held, points, rows, _long, 20)  # type: ignore[arg-type]
    return fast, _from_records(results, frozenset(used), _long, 20)


def _edit(store: Path, outputs: list[dict[str, Any]], points: list[tuple[Any, Any]]) -> None:
    """Change stored rows in place, as a hand (or a hostile tool) editing the file would."""
    with closing(sqlite3.connect(store)) as connection, connection:
        rows = connection.execute("SELECT id, record FROM observations ORDER BY id").fetchall()
        for (observation, text), change in zip(rows, outputs, strict=False):
            record = json.loads(text)
            output = record["output"]
            for name, value in change.items():
                if name == "extra":
                    output["extra"] = value
                elif value == "drop" or (value is None and name == "text"):
                    output.pop(name, None)
                else:
                    output[name] = value
            # ensure_ascii keeps lone surrogates as escapes, which SQLite's UTF-8 cannot hold.
            connection.execute(
                "UPDATE observations SET record = ? WHERE id = ?",
                (json.dumps(record), observation),
            )
        measured = connection.execute(
            "SELECT id FROM measurements WHERE second_id IS NULL AND measure IN "
            "('answered', 'correct') ORDER BY observation_id, measure"
        ).fetchall()
        for (measurement,), (value, details) in zip(measured, points, strict=False):
            connection.execute(
                "UPDATE measurements SET value = ?, details = ? WHERE id = ?",
                (value, None if details is None else json.dumps(details), measurement),
            )


def _loaded(store: Path, experiment: str) -> Results:
    with closing(SQLiteStore(store)) as opened:
        return Results.load(opened, experiment)


@settings(
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    outputs=st.lists(_OUTPUT, min_size=1, max_size=30),
    points=st.lists(_POINT, max_size=30),
)
def test_hostile_stored_values_read_from_columns_as_from_records(
    run: Run, outputs: list[dict[str, Any]], points: list[tuple[Any, Any]]
) -> None:
    with tempfile.TemporaryDirectory() as folder:
        store = Path(folder) / "run.db"
        shutil.copyfile(run.store, store)
        _edit(store, outputs, points)
        # Read from the rows, then from the snapshot the store keeps of what it read.
        for _ in range(2):
            _same(*_both(_loaded(store, run.report.experiment)))
            with closing(SQLiteStore(store)) as opened:
                opened.snapshot(run.report.experiment)


def _as_records(results: Results) -> Results:
    """The same run holding records, as results made from records in memory do."""
    indexed = run_of(results)
    return Results(
        indexed.experiment,
        indexed.variants,
        list(indexed.observations),
        list(indexed.point_measurements),
        indexed.difference_measurements,
    )


def test_results_held_as_records_are_read_from_records(
    run: Run, monkeypatch: pytest.MonkeyPatch
) -> None:
    held = _as_records(run.results)
    assert run_of(held).observations.filed is None  # type: ignore[attr-defined]

    def refused(*arguments: object) -> Embedded:
        raise AssertionError("read from columns that hold records")

    monkeypatch.setattr("modelscape.pages.embedded._from_columns", refused)
    used = [o.id for o in run_of(held).observations][::7]
    found = embedded(held, used, _long, limit=20)
    assert set(found.ids) == set(used)
    _same(found, _from_records(held, frozenset(used), _long, 20))


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_every_kind_of_run_embeds_the_same_page_either_way(kind: str, tmp_path: Path) -> None:
    report = Report.load(made(kind) / "report.json")
    store = tmp_path / "store.db"  # a copy: the made run is shared by every test
    shutil.copyfile(made(kind) / "store.db", store)
    stored = _loaded(store, report.experiment)
    assert run_of(stored).observations.filed is not None  # type: ignore[attr-defined]
    _same(*_both(stored))
    # The same run held as records (as a run made in this process holds them): the same page.
    held = _as_records(stored)
    assert run_of(held).observations.filed is None  # type: ignore[attr-defined]
    assert ReportPage(report, stored).html() == ReportPage(report, held).html()
