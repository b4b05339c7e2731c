"""The leaderboard's downloads and pages: schema, contents against the reports, n/a, the page
without scripts, and hostile names (escaped in HTML, neutralised in CSV, exact in JSON)."""

from __future__ import annotations

import csv
import io
import json
import math
import re
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from modelscape.report import Report
from modelscape.site.config import SiteConfig
from modelscape.site.exports import COLUMNS, SCHEMA_VERSION, leaderboard_csv, leaderboard_json
from modelscape.site.render import Frame, render
from modelscape.site.theme import Theme
from modelscape.site.views import IndexPage, ModelPage
from tests.site.boards import (
    FORMULA_NAME,
    MARKUP_NAME,
    REPORTED,
    build_full,
    catalog_of,
    summary,
)
from tests.site.sitetools import CONTENT

NAMES = [name for name, _ in COLUMNS]


@pytest.fixture(scope="module")
def full(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The board of the tests' own runs, plus a run of targets with hostile names, built."""
    return build_full(tmp_path_factory.mktemp("full"))


def _csv(site: Path) -> list[dict[str, str]]:
    text = (site / "leaderboard.csv").read_text(encoding="utf-8")
    reader = csv.DictReader(io.StringIO(text))
    assert reader.fieldnames == NAMES
    return list(reader)


def _json(site: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((site / "leaderboard.json").read_text(encoding="utf-8"))
    return data


def test_the_index_links_both_downloads(full: Path) -> None:
    index = (full / "index.html").read_text(encoding="utf-8")
    assert 'href="leaderboard.csv"' in index
    assert 'href="leaderboard.json"' in index


def test_the_json_names_its_schema(full: Path) -> None:
    data = _json(full)
    assert data["schema"] == "modelscape.leaderboard"
    assert data["schema_version"] == SCHEMA_VERSION == 2
    assert [c["name"] for c in data["columns"]] == NAMES
    assert all(set(record) == set(NAMES) for record in data["records"])
    assert data["groups"][0]["group"] == "all"


def test_every_scorecard_of_every_report_is_a_record(full: Path) -> None:
    records = {(r["run"], r["model"], r["group"]): r for r in _json(full)["records"]}
    rows = {(r["run"], r["model"], r["group"]): r for r in _csv(full)}
    seen = 0
    for folder in sorted((full.parent / "content" / "runs").iterdir()):
        if folder.name == "hostile":  # its names are neutralised in the CSV: tested below
            continue
        report = Report.load(folder / "report.json")
        for card in report.scorecards:
            key = (folder.name, card.target, card.group)
            record, row = records[key], rows[key]
            seen += 1
            assert record["scenario"] == row["scenario"] == report.scenario
            for name in ("accuracy", "accuracy_low", "accuracy_high", "baseline_accuracy"):
                value = getattr(card, name)
                assert record[name] == value
                assert row[name] == ("" if value is None else repr(value))
                if value is not None:
                    assert float(row[name]) == value  # exact round trip
            assert record["spurious_change"] == card.spurious_change
            assert record["missed_change"] == card.missed_change
            for name in ("missed_low", "missed_high"):
                value = getattr(card, name)
                assert record[name] == value
                assert row[name] == ("" if value is None else repr(value))
            departures = (
                None if "invariant_departures" in card.undefined else card.invariant_departures
            )
            assert record["invariant_departures"] == departures
            assert row["invariant_departures"] == ("" if departures is None else str(departures))
            assert record["answered"] == card.answered
            assert record["observations"] == card.observations
            assert record["undefined"] == dict(sorted(card.undefined.items()))
            assert record["report"] == f"reports/{folder.name}.html"
    assert seen == len(records) - 2 * 1  # the hostile run's two targets (no named groups)


def test_n_a_is_empty_or_null_with_its_reason(full: Path) -> None:
    # The stand-in for Gemma 3 270M never answers readably on fair-lending: its changes are n/a.
    key = ("fair-lending-models-fixture", "gemma-3-270m", "all")
    record = next(r for r in _json(full)["records"] if (r["run"], r["model"], r["group"]) == key)
    row = next(r for r in _csv(full) if (r["run"], r["model"], r["group"]) == key)
    assert record["spurious_change"] is None
    assert row["spurious_change"] == ""
    assert "spurious_change" in record["undefined"]
    assert "spurious_change: answered 0%" in row["undefined"]
    assert record["accuracy"] == 0.0  # a measured zero stays a zero
    assert row["accuracy"] == "0.0"


def test_records_follow_the_ranking(full: Path) -> None:
    data = _json(full)
    ranking = data["groups"][0]["ranking"]
    assert [r["rank"] for r in ranking if r["rank"] is not None] == sorted(
        r["rank"] for r in ranking if r["rank"] is not None
    )
    in_records = list(dict.fromkeys(r["model"] for r in data["records"] if r["group"] == "all"))
    assert in_records == [r["model"] for r in ranking]
    for record in data["records"]:
        rate = record["mean_win_rate"]
        assert rate is None or 0.0 <= rate <= 1.0
        assert math.isfinite(rate) if rate is not None else True


def test_the_method_page_documents_every_column_in_order() -> None:
    # The shipped method page is the subject: it documents the downloads' columns.
    text = (CONTENT / "pages" / "method.md").read_text(encoding="utf-8")
    documented = re.findall(r"^\| `([a-z_]+)` \| (.+) \|$", text, re.MULTILINE)
    assert documented == list(COLUMNS)
    assert f"Schema version {SCHEMA_VERSION}" in text


# -- no scripts ------------------------------------------------------------------------------
class _Cells(HTMLParser):
    """Elements and their attributes, and the text of every matrix cell, as parsed."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.cells: list[dict[str, str | None]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        self.tags.append((tag, found))
        if tag == "td" and "data-quantity" in found:
            self.cells.append(found)


def test_without_scripts_every_table_and_cell_is_in_the_page(full: Path) -> None:
    parsed = _Cells()
    parsed.feed((full / "index.html").read_text(encoding="utf-8"))
    groups = [a["data-group"] for t, a in parsed.tags if t == "section" and "data-group" in a]
    assert groups[0] == "all"
    assert set(groups) == {g["group"] for g in _json(full)["groups"]}
    quantities = {cell["data-quantity"] for cell in parsed.cells}
    assert quantities == {
        "accuracy",
        "baseline",
        "spurious",
        "missed",
        "shifts",
        "departures",
        "answered",
    }
    # Nothing is hidden by the server but the controls, which need the script to work.
    hidden = [(t, a.get("id")) for t, a in parsed.tags if "hidden" in a]
    assert hidden == [("div", "leaderboard-controls")]


# -- hostile names ---------------------------------------------------------------------------
def test_hostile_names_are_neutralised_in_the_csv(full: Path) -> None:
    rows = [r for r in _csv(full) if r["run"] == "hostile"]
    assert {r["model"] for r in rows} == {"'" + FORMULA_NAME, MARKUP_NAME}
    formula = next(r for r in rows if r["model"] == "'" + FORMULA_NAME)
    assert formula["reported_models"] == "'" + REPORTED + "=330"
    assert formula["kind"] == "model"
    for row in _csv(full):
        for name in NAMES:
            if row[name].startswith(("=", "+", "@", "\t", "\r")):
                pytest.fail(f"{name} would run as a formula: {row[name]!r}")
            if row[name].startswith("-"):
                float(row[name])  # only a number may start with a minus


def test_hostile_names_stay_exact_in_the_json(full: Path) -> None:
    records = [r for r in _json(full)["records"] if r["run"] == "hostile"]
    assert {r["model"] for r in records} == {FORMULA_NAME, MARKUP_NAME}
    assert next(r for r in records if r["model"] == FORMULA_NAME)["reported_models"] == {
        REPORTED: 330
    }


def _markup_free(html: str) -> None:
    """No element made from a name: no img or b, and every script is a site file or data."""
    parsed = _Cells()
    parsed.feed(html)
    assert [t for t, _ in parsed.tags if t in ("img", "b")] == []
    for tag, attributes in parsed.tags:
        if tag == "script":
            source = attributes.get("src") or ""
            data = attributes.get("type") == "application/json"
            assert data or source.startswith(("assets/", "../assets/")), attributes


@pytest.mark.parametrize("page", ["index.html", "models/cmd-c-calc-a0.html"])
def test_hostile_names_are_text_in_the_pages(full: Path, page: str) -> None:
    html = (full / page).read_text(encoding="utf-8")
    _markup_free(html)
    assert "&lt;img src=x onerror=alert(&#34;name&#34;)&gt;&lt;b&gt;bold&lt;/b&gt;" in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html


def test_hostile_scenario_and_group_names_everywhere() -> None:
    scenario, group = '=HYPERLINK("x")<script>', "+evil</td>"
    catalog = catalog_of(
        summary(
            "run",
            scenario,
            {FORMULA_NAME: 0.5, MARKUP_NAME: 0.25},
            groups={group: {FORMULA_NAME: 0.1, MARKUP_NAME: 0.2}},
            models={FORMULA_NAME: {REPORTED: 3}},
        )
    )
    rows = list(csv.DictReader(io.StringIO(leaderboard_csv(catalog))))
    assert {r["scenario"] for r in rows} == {"'" + scenario}
    assert {r["group"] for r in rows} == {"all", "'" + group}
    assert all(r["spurious_change"] == "-0.05" for r in rows)  # numbers are never prefixed
    data = json.loads(leaderboard_json(catalog, title="<t>"))
    assert {r["scenario"] for r in data["records"]} == {scenario}
    environment = Theme(None).environment
    config = SiteConfig(title="Board")
    index = render(IndexPage(catalog, "Board", ""), environment, Frame.at(config, "index.html"))
    _markup_free(index)
    assert "=HYPERLINK(&#34;x&#34;)&lt;script&gt;" in index
    assert "Group +evil&lt;/td&gt;" in index
    path = catalog.model_path(FORMULA_NAME)
    model = render(ModelPage(FORMULA_NAME, catalog), environment, Frame.at(config, path))
    _markup_free(model)
    figure = re.search(
        r'<script type="application/json" id="comparison-data">(.*?)</script>', model
    )
    assert figure is not None
    shown = json.loads(figure.group(1))
    # Plotly reads its labels as markup of its own: names reach it escaped.
    assert '&lt;img src=x onerror=alert("name")&gt;&lt;b&gt;bold&lt;/b&gt;' in {
        text for trace in shown["data"] for text in trace["text"]
    }


NAME = st.text(st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=30)


@given(model=NAME, other=NAME, scenario=NAME, reported=NAME)
def test_any_names_round_trip_safely(model: str, other: str, scenario: str, reported: str) -> None:
    assume(model != other)
    catalog = catalog_of(
        summary("run", scenario, {model: 0.5, other: None}, models={model: {reported: 2}})
    )
    rows = list(csv.DictReader(io.StringIO(leaderboard_csv(catalog))))
    assert len(rows) == 2
    for row in rows:
        for name in NAMES:
            assert not row[name].startswith(("=", "+", "@", "\t", "\r")), (name, row[name])
    assert {r["model"] for r in rows} == {_spreadsheet(model), _spreadsheet(other)}
    assert {r["scenario"] for r in rows} == {_spreadsheet(scenario)}
    data = json.loads(leaderboard_json(catalog, title=model))
    assert {r["model"] for r in data["records"]} == {model, other}
    mine = next(r for r in data["records"] if r["model"] == model)
    assert mine["reported_models"] == {reported: 2}
    index = render(
        IndexPage(catalog, "Board", ""),
        Theme(None).environment,
        Frame.at(SiteConfig(), "index.html"),
    )
    parsed = _Cells()
    parsed.feed(index)
    rows_found = [a for t, a in parsed.tags if t == "tr" and "data-kind" in a]
    assert len(rows_found) == 2


def _spreadsheet(text: str) -> str:
    return "'" + text if text.startswith(("=", "+", "-", "@", "\t", "\r")) else text
