"""Strict mode: warnings fail the build; the shipped content builds cleanly in strict mode."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from modelscape.cli import main
from modelscape.site import SiteError, build_site
from tests.site.sitetools import CONTENT, RUN


def test_the_shipped_content_builds_in_strict_mode(tmp_path: Path) -> None:
    result = build_site(CONTENT, tmp_path / "site", strict=True)
    assert result.warnings == []
    reports = sorted(p.name for p in (tmp_path / "site" / "reports").iterdir())
    runs = sorted(f"{p.name}.html" for p in (CONTENT / "runs").iterdir() if p.is_dir())
    assert reports == runs  # every run folder (reference and real-model ones) has its page


def test_a_broken_link_fails_strict(content: Path, tmp_path: Path) -> None:
    (content / "pages" / "links.md").write_text("[gone](nowhere.md)\n", encoding="utf-8")
    assert build_site(content, tmp_path / "loose").warnings == [
        "links.html: broken link 'nowhere.html' (no nowhere.html)"
    ]
    with pytest.raises(SiteError, match="1 warning \\(--strict\\)"):
        build_site(content, tmp_path / "site", strict=True)


def test_a_report_without_its_store_fails_strict(content: Path, tmp_path: Path) -> None:
    (content / "runs" / RUN / "store.db").unlink()
    with pytest.raises(SiteError, match=r"no store \(store\.db\)"):
        build_site(content, tmp_path / "site", strict=True)
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
