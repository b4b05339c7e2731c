"""Strict mode: warnings fail the build; the shipped content builds cleanly in strict mode.

The first test is the one test of the site that builds the repository's own content (its
published runs and pages); every other one builds a content folder of the tests' own runs."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner

from modelscape.cli import main
from modelscape.report import Report
from modelscape.site import BuildWarning, SiteError, build_site
from tests.site.sitetools import CONTENT, RUN
from tests.support.runs import report_of


def test_the_shipped_content_builds_in_strict_mode(tmp_path: Path) -> None:
    result = build_site(CONTENT, tmp_path / "site", strict=True)
    assert result.warnings == []
    reports = sorted(p.name for p in (tmp_path / "site" / "reports").iterdir())
    runs = sorted(
        f"{p.name}.html" for p in (CONTENT / "runs").iterdir() if p.is_dir() and p.name[0] != "."
    )
    assert reports == runs  # every run folder (reference and real-model ones) has its page


def test_a_broken_link_fails_strict(content: Path, tmp_path: Path) -> None:
    (content / "pages" / "links.md").write_text("[gone](nowhere.md)\n", encoding="utf-8")
    assert build_site(content, tmp_path / "loose").warnings == [
        BuildWarning("links.html", None, "broken link 'nowhere.html' (no nowhere.html)")
    ]
    with pytest.raises(SiteError, match="1 warning \\(--strict\\)"):
        build_site(content, tmp_path / "site", strict=True)


def test_a_report_without_its_store_fails_strict(content: Path, tmp_path: Path) -> None:
    (content / "runs" / RUN / "store.db").unlink()
    with pytest.raises(SiteError, match=r"no store \(store\.db\)"):
        build_site(content, tmp_path / "site", strict=True)
    assert not (tmp_path / "site").exists()  # a strict build that fails writes nothing
    build_site(content, tmp_path / "site")
    page = tmp_path / "site" / "reports" / f"{RUN}.html"
    assert "No outputs are attached" in page.read_text(encoding="utf-8")


def test_a_run_whose_spec_is_missing_fails_strict(content: Path, tmp_path: Path) -> None:
    report = (content / "runs" / RUN / "report.json").read_text(encoding="utf-8")
    (content / "runs" / RUN / "report.json").write_text(
        report.replace('"scenario": "return-window"', '"scenario": "unknown"', 1),
        encoding="utf-8",
    )
    with pytest.raises(SiteError, match="its spec 'unknown' is missing"):
        build_site(content, tmp_path / "site", strict=True)


def test_warnings_of_reused_pages_are_repeated(content: Path, tmp_path: Path) -> None:
    (content / "pages" / "links.md").write_text("[gone](nowhere.md)\n", encoding="utf-8")
    build_site(content, tmp_path / "site")
    with pytest.raises(SiteError, match="broken link"):
        build_site(content, tmp_path / "site", strict=True)


def test_the_cli_fails_strict_builds_with_every_warning(content: Path, tmp_path: Path) -> None:
    (content / "runs" / RUN / "store.db").unlink()
    (content / "pages" / "links.md").write_text("[gone](nowhere.md)\n", encoding="utf-8")
    output = tmp_path / "site"
    runner = CliRunner()
    loose = runner.invoke(main, ["build", str(content), "-o", str(output)])
    assert loose.exit_code == 0, loose.output
    assert "2 warnings" in loose.output
    strict = runner.invoke(main, ["build", str(content), "-o", str(output), "--strict"])
    assert strict.exit_code == 1
    assert "error: 2 warnings (--strict)" in strict.output
    assert "broken link 'nowhere.html'" in strict.output


def test_bad_settings_name_the_file_and_the_key(content: Path, tmp_path: Path) -> None:
    (content / "site.yaml").write_text("title: x\nnavigaton: []\n", encoding="utf-8")
    with pytest.raises(SiteError, match=r"site\.yaml: navigaton: Extra inputs"):
        build_site(content, tmp_path / "site")


def _copy_run(content: Path, name: str) -> Path:
    folder = content / "runs" / name
    shutil.copytree(content / "runs" / RUN, folder)
    return folder


def test_a_run_whose_report_and_store_disagree_is_skipped(content: Path, tmp_path: Path) -> None:
    # Another run's report beside this run's store: the store holds no such experiment.
    stray = _copy_run(content, "stray")
    other = report_of("pressure-fixture")
    other.model_copy(update={"scenario": "return-window"}).save(stray / "report.json")
    # A report naming measurements its store does not hold (the store lost records).
    thinned = _copy_run(content, "thinned")
    report = Report.load(thinned / "report.json")
    card = report.scorecards[0].model_copy(update={"accuracy_ids": ("not-stored",)})
    report.model_copy(update={"scorecards": (card, *report.scorecards[1:])}).save(
        thinned / "report.json"
    )
    result = build_site(content, tmp_path / "site")
    skipped = [
        w for w in map(str, result.warnings) if "skipped: its report and store disagree" in w
    ]
    assert len(skipped) == 2
    assert any("run 'stray' skipped" in w and "the store holds no experiment" in w for w in skipped)
    assert any(
        "run 'thinned' skipped" in w
        and "1 of the" in w
        and "measurements the report names are not in the store (such as not-stored)" in w
        for w in skipped
    )
    # The other runs are built as usual; the skipped ones leave no page and no row behind.
    site = tmp_path / "site"
    assert (site / "reports" / f"{RUN}.html").is_file()
    assert not (site / "reports" / "stray.html").exists()
    assert not (site / "reports" / "thinned.html").exists()
    index = (site / "index.html").read_text(encoding="utf-8")
    assert "stray" not in index
    assert "thinned" not in index
    assert not [w for w in map(str, result.warnings) if "broken link" in w]
    with pytest.raises(SiteError, match="run 'stray' skipped"):
        build_site(content, tmp_path / "strict", strict=True)
    # Fixed, the run is built again: the check is repeated when the report changes.
    shutil.copyfile(content / "runs" / RUN / "report.json", thinned / "report.json")
    shutil.rmtree(stray)
    again = build_site(content, site)
    assert not [w for w in map(str, again.warnings) if "disagree" in w]
    assert (site / "reports" / "thinned.html").is_file()


def test_a_run_whose_store_is_damaged_is_skipped_and_named(content: Path, tmp_path: Path) -> None:
    damaged = _copy_run(content, "damaged")
    store = damaged / "store.db"
    connection = sqlite3.connect(store)
    with connection:
        # The rows themselves are read once the snapshot is gone; one is no longer UTF-8.
        connection.execute("DELETE FROM snapshots")
        connection.execute(
            "UPDATE observations SET record = CAST(? AS TEXT) WHERE rowid = 4", (b"\xc3\x28",)
        )
    connection.close()
    before = store.read_bytes()
    site = tmp_path / "site"
    result = build_site(content, site)
    skipped = [
        w for w in map(str, result.warnings) if "run 'damaged' skipped: its store is damaged" in w
    ]
    assert len(skipped) == 1, result.warnings
    assert "observations row 4: text that is not UTF-8" in skipped[0]
    assert not [w for w in map(str, result.warnings) if "outputs not attached" in w]
    # The damaged run has no page and no row; the others are built; the store is untouched.
    assert not (site / "reports" / "damaged.html").exists()
    assert (site / "reports" / f"{RUN}.html").is_file()
    assert "damaged" not in (site / "index.html").read_text(encoding="utf-8")
    assert store.read_bytes() == before
    with pytest.raises(SiteError, match="run 'damaged' skipped: its store is damaged"):
        build_site(content, tmp_path / "strict", strict=True)
