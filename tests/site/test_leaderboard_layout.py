"""The leaderboard's HTML as note 045 lays it out, read without a browser: the model first in
every row (the column the stylesheet pins), reference targets in a band of their own under a
heading row, a labelled column chooser with a box per scenario, and the explanations after
the matrix. The same in a browser: tests/site/test_leaderboard_browser.py."""

from __future__ import annotations

from dataclasses import dataclass, field
from html.parser import HTMLParser

from hypothesis import given
from hypothesis import strategies as st

from modelscape.site.catalog import Catalog
from modelscape.site.config import SiteConfig
from modelscape.site.leaderboard import QUANTITIES
from modelscape.site.render import Frame, render
from modelscape.site.theme import Theme
from modelscape.site.views import IndexPage
from tests.site.boards import REFERENCE, catalog_of, summary

ENVIRONMENT = Theme(None).environment


def _index(catalog: Catalog) -> str:
    page = IndexPage(catalog, "Board", "", method="method.html")
    return render(page, ENVIRONMENT, Frame.at(SiteConfig(title="Board"), "index.html"))


@dataclass
class Row:
    """One row of a matrix body: its attributes and its cells' tags and attributes."""

    attributes: dict[str, str | None]
    cells: list[tuple[str, dict[str, str | None]]] = field(default_factory=list)
    text: str = ""


@dataclass
class Body:
    """One ``<tbody>`` of the first matrix."""

    attributes: dict[str, str | None]
    rows: list[Row] = field(default_factory=list)


class _Matrix(HTMLParser):
    """The first matrix's header cells and bodies, and every element's tag and id in order."""

    def __init__(self) -> None:
        super().__init__()
        self.order: list[tuple[str, dict[str, str | None]]] = []
        self.header: list[list[tuple[str, dict[str, str | None]]]] = []
        self.bodies: list[Body] = []
        self._tables = 0
        self._inside = False
        self._row: Row | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        self.order.append((tag, found))
        if tag == "table" and "data-matrix" in found:
            self._tables += 1
            self._inside = self._tables == 1
        if not self._inside:
            return
        if tag == "tbody":
            self.bodies.append(Body(found))
        elif tag == "tr":
            self._row = Row(found)
            if self.bodies:
                self.bodies[-1].rows.append(self._row)
            else:
                self.header.append(self._row.cells)
        elif tag in ("td", "th") and self._row is not None:
            self._row.cells.append((tag, found))

    def handle_data(self, data: str) -> None:
        if self._inside and self._row is not None:
            self._row.text += data

    def handle_endtag(self, tag: str) -> None:
        if tag == "table":
            self._inside = False


def _parsed(html: str) -> _Matrix:
    parsed = _Matrix()
    parsed.feed(html)
    return parsed


#: A target of a made-up board: a model (scored or n/a) or a reference target.
TARGET = st.tuples(st.booleans(), st.one_of(st.none(), st.floats(0, 1)))


@given(
    targets=st.lists(TARGET, min_size=1, max_size=8),
    scenarios=st.integers(1, 3),
)
def test_reference_targets_form_a_band_of_their_own(
    targets: list[tuple[bool, float | None]], scenarios: int
) -> None:
    names = {f"t{i}": target for i, target in enumerate(targets)}
    references = {name for name, (reference, _) in names.items() if reference}
    settings = dict.fromkeys(references, REFERENCE)
    runs = [
        summary(
            f"run-{s}", f"scenario-{s}", {n: a for n, (_, a) in names.items()}, settings=settings
        )
        for s in range(scenarios)
    ]
    parsed = _parsed(_index(catalog_of(*runs)))
    ranked, *rest = parsed.bodies
    assert "class" not in ranked.attributes
    assert {row.attributes["data-kind"] for row in ranked.rows} <= {"model"}
    assert len(ranked.rows) == len(names) - len(references)
    if not references:
        assert rest == []
        return
    [band] = rest
    assert band.attributes["class"] == "reference-band"
    heading, *anchors = band.rows
    assert heading.attributes["class"] == "band-heading"
    [(tag, cell)] = heading.cells
    assert tag == "th"
    assert cell["scope"] == "rowgroup"
    # The heading spans every column: model, rank, mean accuracy and each scenario's quantities.
    assert cell["colspan"] == str(3 + scenarios * len(QUANTITIES))
    assert "not ranked" in heading.text
    assert len(anchors) == len(references)
    assert all(row.attributes["data-kind"] == "reference" for row in anchors)
    assert all("reference, not ranked" in row.text for row in anchors)


def test_the_model_comes_first_in_every_row() -> None:
    catalog = catalog_of(
        summary(
            "a", "alpha", {"m1": 0.9, "m2": 0.4, "oracle": 1.0}, settings={"oracle": REFERENCE}
        ),
        summary("b", "beta", {"m1": 0.7, "m2": None}),
    )
    parsed = _parsed(_index(catalog))
    first, second = parsed.header
    assert [(tag, cell.get("data-column")) for tag, cell in first[:3]] == [
        ("th", "0"),
        ("th", "1"),
        ("th", "2"),
    ]
    assert first[1][1].get("aria-sort") == "ascending"  # the rank: the page's own order
    assert len(second) == 2 * len(QUANTITIES)
    rows = [row for body in parsed.bodies for row in body.rows if "data-kind" in row.attributes]
    assert len(rows) == 3
    for row in rows:
        tag, cell = row.cells[0]
        assert (tag, cell.get("scope")) == ("th", "row")
        assert row.cells[1][0] == "td"


def test_the_column_chooser_has_a_labelled_box_per_scenario() -> None:
    catalog = catalog_of(
        summary("a", "alpha", {"m1": 0.9}),
        summary("b", "beta", {"m1": 0.7}),
        summary("c", "gamma", {"m1": 0.5}),
    )
    html = _index(catalog)
    order = _parsed(html).order
    tags = [tag for tag, _ in order]
    controls = next(i for i, (_, a) in enumerate(order) if a.get("id") == "leaderboard-controls")
    assert "hidden" in order[controls][1]  # without scripts, nothing to choose: all is shown
    chooser = next(i for i, (_, a) in enumerate(order) if a.get("id") == "leaderboard-columns")
    assert order[chooser][0] == "details"
    assert tags[chooser + 1] == "summary"
    boxes = [
        attributes
        for tag, attributes in order[chooser:]
        if tag == "input" and attributes.get("name") == "scenario"
    ]
    assert [box["value"] for box in boxes] == ["alpha", "beta", "gamma"]
    assert all("checked" in box for box in boxes)
    # Each box sits inside its label, in a fieldset whose legend names what they choose.
    assert html.count('<label><input type="checkbox" name="scenario"') == 3
    assert "<legend>Scenarios shown as columns</legend>" in html


def test_the_explanations_follow_the_matrix() -> None:
    catalog = catalog_of(summary("a", "alpha", {"m1": 0.9, "m2": 0.3}))
    order = _parsed(_index(catalog)).order
    place = {a.get("id"): i for i, (_, a) in enumerate(order) if a.get("id")}
    matrix = next(i for i, (t, a) in enumerate(order) if t == "table" and "data-matrix" in a)
    assert place["leaderboard-controls"] < matrix < place["board-method"]
    folded = [i for i, (t, _) in enumerate(order) if t == "details"]
    assert [i for i in folded if i < matrix] == [place["leaderboard-columns"]]
