"""open_store: paths, URLs of the shipped kinds, and a kind of store from a package installed
beside modelscape (here, into a temporary folder on sys.path), through the API and the CLI."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from modelscape.cli import main
from modelscape.errors import StoreError
from modelscape.execution.runner import Runner
from modelscape.results.results import run_of
from modelscape.store import MemoryStore, SQLiteStore, Store, open_store
from modelscape.store.registry import (
    ENTRY_POINT_GROUP,
    MEMORY,
    SQLITE,
    find_store_kind,
    store_scheme,
    store_schemes,
)
from tests.support.mapping_space import experiment, planted
from tests.support.plugins import install_plugin

# A whole store package: one module with its store and its StoreKind. Its stores remember the
# location and options they were opened with, and share one process-wide memory per location.
STORE_MODULE = """
from modelscape.store.memory import MemoryStore
from modelscape.store.registry import StoreKind

HELD = {}


class DuckStore(MemoryStore):
    def __init__(self, location, read_only, create):
        super().__init__()
        self.location, self.read_only, self.create = location, read_only, create


def open_duck(location, *, read_only=False, create=True):
    store = HELD.get(location)
    if store is None:
        store = HELD[location] = DuckStore(location, read_only, create)
    return store


DUCK = StoreKind(scheme="duck", open=open_duck)
NOTHING = StoreKind(scheme="nothing", open=lambda location, **options: "not a store")
WRONG = "not a store kind"
"""


@pytest.fixture
def duck(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "site"
    folder.mkdir()
    install_plugin(
        folder,
        monkeypatch,
        module="duck_store",
        source=STORE_MODULE,
        group=ENTRY_POINT_GROUP,
        entry_points="duck = duck_store:DUCK\n"
        "nothing = duck_store:NOTHING\n"
        "wrong = duck_store:WRONG\n"
        "goose = duck_store:DUCK\n"
        "missing = no_such_store_module:KIND\n",
    )
    return folder


def test_the_shipped_kinds_are_registered_as_a_plugin_would_be() -> None:
    assert {"memory", "sqlite"} <= set(store_schemes())
    assert find_store_kind("sqlite") is SQLITE
    assert find_store_kind("memory") is MEMORY
    assert find_store_kind("duck") is None


def test_paths_are_sqlite_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    for location in (tmp_path / "a.db", str(tmp_path / "b.db"), "c.db", "./d:e.db"):
        opened = open_store(location)
        assert isinstance(opened, SQLiteStore)
        opened.close()
    assert {p.name for p in tmp_path.glob("*.db")} == {"a.db", "b.db", "c.db", "d:e.db"}
    assert store_scheme(tmp_path / "x:y.db") is None  # a Path is never a URL
    assert store_scheme("C:\\runs.db") is None  # a drive letter is no scheme
    assert store_scheme("SQLite:runs.db") == "sqlite"


def test_sqlite_urls(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    absolute = open_store(f"sqlite://{tmp_path}/abs%20olute.db")
    relative = open_store("sqlite:relative.db")
    local = open_store(f"sqlite://localhost{tmp_path}/local.db")
    for opened, name in (
        (absolute, "abs olute.db"),
        (relative, "relative.db"),
        (local, "local.db"),
    ):
        assert isinstance(opened, SQLiteStore)
        assert Path(opened.path).resolve() == tmp_path / name
        opened.close()
    run = experiment([planted()])
    with open_store(f"sqlite://{tmp_path}/runs.db") as written:  # type: ignore[attr-defined]
        Runner(store=written).run(run)
    reading = open_store(f"sqlite://{tmp_path}/runs.db", read_only=True)
    assert isinstance(reading, SQLiteStore)
    assert reading.read_only
    assert [e.id for e in reading.experiments()] == [run.id]
    reading.close()


@pytest.mark.parametrize(
    ("location", "message"),
    [
        ("sqlite://runs.db/x", "names the host 'runs.db'"),
        ("sqlite:", "names no file"),
        ("sqlite:///tmp/runs.db?mode=ro", "no \\?query"),
        ("memory:somewhere", "has no location"),
    ],
)
def test_malformed_urls_are_refused(location: str, message: str) -> None:
    with pytest.raises(StoreError, match=message):
        open_store(location)


def test_a_missing_store_is_refused_without_create(tmp_path: Path) -> None:
    for location in (tmp_path / "none.db", f"sqlite://{tmp_path}/none.db"):
        with pytest.raises(StoreError, match="no such store file"):
            open_store(location, create=False)
    assert list(tmp_path.iterdir()) == []


def test_memory_stores_are_fresh() -> None:
    first, second = open_store("memory:"), open_store(":memory:")
    assert isinstance(first, MemoryStore)
    assert isinstance(second, MemoryStore)
    assert first is not second
    assert isinstance(open_store("memory://"), MemoryStore)


def test_an_unknown_scheme_names_the_kinds_installed() -> None:
    with pytest.raises(StoreError, match="no kind of store 'nope'") as raised:
        open_store("nope://there")
    assert "the kinds installed are memory, sqlite" in str(raised.value)


def test_a_kind_from_an_installed_package(duck: Path) -> None:
    assert "duck" in store_schemes()
    opened = open_store("duck://pond", read_only=True, create=False)
    assert isinstance(opened, Store)
    assert type(opened).__name__ == "DuckStore"
    assert (opened.location, opened.read_only, opened.create) == ("duck://pond", True, False)  # type: ignore[attr-defined]
    run = experiment([planted()])
    results = Runner(store=open_store("duck://pond")).run(run)
    assert [e.id for e in opened.experiments()] == [run.id]
    assert len(run_of(results).observations) == run.calls()
    with pytest.raises(StoreError, match=r"kinds installed are .*duck.*memory"):
        open_store("nope:x")


@pytest.mark.parametrize(
    ("scheme", "message"),
    [
        ("wrong", "names duck_store:WRONG, which is not a StoreKind of scheme 'wrong'"),
        ("goose", "not a StoreKind of scheme 'goose'"),
        ("missing", "cannot be imported"),
        ("nothing", "opened 'not a store', which is no Store"),
    ],
)
def test_a_broken_registration_is_named(duck: Path, scheme: str, message: str) -> None:
    with pytest.raises(StoreError, match=message):
        open_store(f"{scheme}:x")


def test_every_store_command_goes_through_open_store(duck: Path, tmp_path: Path) -> None:
    # The CLI runs in this process, so the plugin's store keeps what `run` stored in it.
    run = CliRunner().invoke(
        main, ["run", "pressure", "--target", "echo", "--store", "duck://cli", "--repetitions", "2"]
    )
    assert run.exit_code == 0, run.output
    assert "store        duck://cli" in run.output
    listing = CliRunner().invoke(main, ["runs", "--store", "duck://cli"])
    assert listing.exit_code == 0, listing.output
    assert "pressure@1" in listing.output
    saved = tmp_path / "report.json"
    report = CliRunner().invoke(main, ["report", "--store", "duck://cli", "-o", str(saved)])
    assert report.exit_code == 0, report.output
    html = tmp_path / "page.html"
    page = CliRunner().invoke(main, ["page", str(saved), "--store", "duck://cli", "-o", str(html)])
    assert page.exit_code == 0, page.output
    assert html.exists()
    unknown = CliRunner().invoke(main, ["runs", "--store", "nope://x"])
    assert unknown.exit_code != 0
    assert "no kind of store 'nope'" in unknown.output
    assert "the kinds installed are duck, goose, memory, missing, nothing, sqlite" in unknown.output
