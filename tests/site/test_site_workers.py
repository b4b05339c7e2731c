"""Pages made in worker processes: the same site, byte for byte, the same warnings in the same
order, strict builds and template errors as in one process; and when workers are used."""

from __future__ import annotations

import faulthandler
import gc
import multiprocessing
import os
import shutil
import signal
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from modelscape._collector import RUN_THRESHOLDS
from modelscape.cli import main
from modelscape.site import SiteError, build_site
from modelscape.site import workers as workers_module
from modelscape.site.jobs import Job
from modelscape.site.workers import PARALLEL_MINIMUM, Made, forked_map, worker_count
from tests.site.sitetools import RUN, make_content

needs_fork = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="workers are forked on Linux only"
)


def _tree(folder: Path) -> dict[str, bytes]:
    return {
        p.relative_to(folder).as_posix(): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


@pytest.fixture(scope="module")
def rich(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two runs, many pages, and pages that warn (a broken link, an embed of a missing run,
    each with its page and line), so that every kind of output and warning is made."""
    folder = tmp_path_factory.mktemp("rich")
    content = make_content(folder / "content", runs=(RUN, "pressure-fixture"))
    pages = content / "pages"
    for number in range(40):
        (pages / f"note-{number:02d}.md").write_text(
            f"# Note {number}\n\nA page about accuracy, number {number}.\n\n"
            f"[next](note-{(number + 1) % 40:02d}.md)\n",
            encoding="utf-8",
        )
    (pages / "broken.md").write_text(
        "# Broken\n\nA [link](nowhere.md) to no page.\n\nAnd `ms:accuracy no-such-run oracle`.\n",
        encoding="utf-8",
    )
    return content


@needs_fork
def test_two_workers_make_the_same_site_and_warnings_as_one(rich: Path, tmp_path: Path) -> None:
    one = build_site(rich, tmp_path / "one", workers=1)
    two = build_site(rich, tmp_path / "two", workers=2)
    assert (one.workers, two.workers) == (1, 2)
    assert _tree(tmp_path / "one") == _tree(tmp_path / "two")
    assert one.warnings == two.warnings
    assert [w for w in map(str, two.warnings) if "broken.md:5: " in w]  # page and line
    assert [w for w in map(str, two.warnings) if "broken link 'nowhere.html'" in w]
    assert sorted(one.rendered) == sorted(two.rendered)
    # A rebuild reuses what workers made, and repeats the warnings they met.
    again = build_site(rich, tmp_path / "two", workers=2)
    assert [p for p in again.rendered if p.endswith(".html")] == []
    assert again.warnings == one.warnings


@needs_fork
def test_a_rebuild_in_workers_after_one_change_matches_one_process(
    rich: Path, tmp_path: Path
) -> None:
    content = tmp_path / "content"
    shutil.copytree(rich, content, symlinks=True)
    build_site(content, tmp_path / "one", workers=1)
    build_site(content, tmp_path / "two", workers=2)
    note = content / "pages" / "note-07.md"
    note.write_text(note.read_text(encoding="utf-8") + "\nOne more line.\n", encoding="utf-8")
    one = build_site(content, tmp_path / "one", workers=1)
    two = build_site(content, tmp_path / "two", workers=2)
    assert "note-07.html" in two.rendered
    assert sorted(one.rendered) == sorted(two.rendered)
    assert _tree(tmp_path / "one") == _tree(tmp_path / "two")


@needs_fork
def test_a_strict_build_in_workers_writes_nothing(rich: Path, tmp_path: Path) -> None:
    site = tmp_path / "site"
    with pytest.raises(SiteError, match=r"broken\.md:5: "):
        build_site(rich, site, strict=True, workers=2)
    assert not site.exists()


@needs_fork
def test_a_template_refused_in_a_worker_stops_the_build_with_its_line(tmp_path: Path) -> None:
    content = make_content(tmp_path / "content")
    theme = content / "theme" / "templates"
    theme.mkdir(parents=True)
    (theme / "base.html.j2").write_text(
        '{% extends "default/base.html.j2" %}\n'
        "{% block footer %}{{ cycler.__init__.__globals__.os }}{% endblock %}\n",
        encoding="utf-8",
    )
    settings = content / "site.yaml"
    settings.write_text(settings.read_text(encoding="utf-8") + "theme: theme\n", "utf-8")
    site = tmp_path / "site"
    site.mkdir()
    (site / "kept.txt").write_text("as it was", encoding="utf-8")
    with pytest.raises(SiteError, match=r"base\.html\.j2: line 2: refused by the template sandbox"):
        build_site(content, site, workers=2, force=True)
    assert _tree(site) == {"kept.txt": b"as it was"}


def test_a_small_build_is_made_in_one_process() -> None:
    assert worker_count(None, PARALLEL_MINIMUM - 1) == 1
    assert worker_count(None, 0) == 1


@needs_fork
def test_workers_asked_for_are_used() -> None:
    assert worker_count(3, 5) == 3


@pytest.mark.parametrize("workers", [0, -2])
def test_workers_must_be_one_or_more(workers: int) -> None:
    with pytest.raises(SiteError, match="workers must be 1 or more"):
        worker_count(workers, 10)


def test_the_build_command_takes_the_number_of_workers(tmp_path: Path) -> None:
    content = make_content(tmp_path / "content")
    site = tmp_path / "site"
    done = CliRunner().invoke(main, ["build", str(content), "-o", str(site), "--workers", "1"])
    assert done.exit_code == 0, done.output
    assert "pages" in done.output
    refused = CliRunner().invoke(main, ["build", str(content), "-o", str(site), "--workers", "0"])
    assert refused.exit_code == 2
    assert "--workers" in refused.output


@pytest.fixture
def deadline() -> Iterator[None]:
    """A test of a worker's death fails after a minute instead of hanging the suite, which is
    what ``multiprocessing.Pool`` did."""

    def hung(number: int, frame: object) -> None:
        raise AssertionError("the build still waits for a worker that died")

    previous = signal.signal(signal.SIGALRM, hung)
    signal.alarm(60)
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, previous)


def _segfault() -> None:
    faulthandler.disable()  # pytest's handler would print every thread's stack
    os.kill(os.getpid(), signal.SIGSEGV)


def _dies_at(chosen: int, how: Callable[[], None]) -> Callable[[int], int]:
    def work(index: int) -> int:
        if index == chosen:
            how()
        return index * index

    return work


@needs_fork
@pytest.mark.usefixtures("deadline")
@pytest.mark.parametrize(
    ("how", "said"),
    [
        (lambda: os.kill(os.getpid(), signal.SIGKILL), "killed by SIGKILL"),
        (_segfault, "killed by SIGSEGV"),
        (lambda: os._exit(3), "exited with status 3"),
    ],
)
def test_a_worker_that_dies_stops_the_map_naming_what_it_held(
    how: Callable[[], None], said: str
) -> None:
    made: list[int] = []
    values = forked_map(
        _dies_at(217, how), range(100, 400), workers=2, describe=lambda i: f"page {i}"
    )
    with pytest.raises(SiteError, match=f"{said}.* while making page 217") as raised:
        made.extend(values)
    # Values came back in order, and none from the dead page on (the death may be seen
    # while an earlier page is still being made by the other worker).
    assert made == [index * index for index in range(100, 100 + len(made))]
    assert len(made) <= 217 - 100
    assert "a site worker (process " in str(raised.value)
    # No worker is left behind.
    assert multiprocessing.active_children() == []


@needs_fork
def test_the_map_in_workers_gives_every_value_in_order() -> None:
    indexes = list(range(1000, 0, -3))
    assert list(forked_map(lambda i: i * 2, indexes, workers=3)) == [i * 2 for i in indexes]
    assert multiprocessing.active_children() == []


@pytest.mark.parametrize("workers", [1, pytest.param(2, marks=needs_fork)])
def test_pages_are_made_with_the_collector_paced_and_its_thresholds_put_back(
    workers: int,
) -> None:
    before = gc.get_threshold()
    seen = list(forked_map(lambda i: gc.get_threshold(), list(range(8)), workers=workers))
    # Raised while each page is made, in this process or in a worker; put back after.
    assert (
        seen
        == [tuple(max(mine, ours) for mine, ours in zip(before, RUN_THRESHOLDS, strict=True))] * 8
    )
    assert gc.get_threshold() == before


@needs_fork
@pytest.mark.usefixtures("deadline")
def test_a_worker_killed_while_making_a_page_fails_the_build_and_keeps_the_site(
    rich: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    site = tmp_path / "site"
    build_site(rich, site, workers=1)
    before = _tree(site)
    make = workers_module._make

    def make_or_die(job: Job) -> Made:
        if job.path == "note-17.html":  # a crash in a C extension, or the OOM killer
            os.kill(os.getpid(), signal.SIGKILL)
        return make(job)

    # The workers are forked after this, so they inherit the replacement.
    monkeypatch.setattr(workers_module, "_make", make_or_die)
    with pytest.raises(SiteError, match=r"killed by SIGKILL.* while making note-17\.html"):
        build_site(rich, site, force=True, workers=2)
    assert _tree(site) == before
    assert [p.name for p in tmp_path.iterdir()] == ["site"]  # no staging folder left
    assert multiprocessing.active_children() == []
