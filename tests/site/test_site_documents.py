"""What pages publish of their sources: internal notes stay out (files named *.internal.*,
comments that start a line), and the scenario page names the repetitions each run used."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from modelscape.report import Report
from modelscape.site import SiteError, build_site
from modelscape.site.markdown import hide_comments
from tests.site.sitetools import RUN


def test_internal_files_and_comments_are_not_published(content: Path, tmp_path: Path) -> None:
    pages = content / "pages"
    (pages / "plan.internal.md").write_text("# Plan\n\nUNSHOWN-PLAN\n", encoding="utf-8")
    (pages / "numbers.internal.csv").write_text("UNSHOWN-CSV\n", encoding="utf-8")
    (pages / "open.md").write_text(
        "# Open\n\nShown.\n\n<!-- UNSHOWN-ONE -->\n\n<!--\nUNSHOWN-TWO\n-->\nAlso shown.\n\n"
        "```markdown\n<!-- kept: an example inside code -->\n```\n",
        encoding="utf-8",
    )
    notes = content / "runs" / RUN / "README.md"
    notes.write_text(
        notes.read_text(encoding="utf-8") + "\n<!-- UNSHOWN-RUN: rerun on the big box -->\n",
        encoding="utf-8",
    )
    site = tmp_path / "site"
    result = build_site(content, site, strict=True)
    assert result.warnings == []
    published = {p.relative_to(site).as_posix(): p for p in site.rglob("*") if p.is_file()}
    assert not [p for p in published if "internal" in p]
    text = "\n".join(p.read_text(encoding="utf-8", errors="replace") for p in published.values())
    assert "UNSHOWN" not in text
    page = published["open.html"].read_text(encoding="utf-8")
    assert "Shown." in page
    assert "Also shown." in page
    assert "&lt;!-- kept: an example inside code --&gt;" in page


def test_an_unclosed_comment_names_its_line(content: Path, tmp_path: Path) -> None:
    (content / "pages" / "open.md").write_text("# Open\n\ntext\n<!-- never closed\nmore\n")
    with pytest.raises(SiteError, match=r"open\.md: line 4: a comment \(<!--\) that is never"):
        build_site(content, tmp_path / "site")


@given(st.lists(st.sampled_from(["<!-- a -->", "<!--", "-->", "```", "~~~", "text", ""])))
def test_hiding_comments_keeps_every_line_number(lines: list[str]) -> None:
    text = "\n".join(lines)
    message = ""
    try:
        hidden = hide_comments(text, where="page.md")
    except SiteError as error:
        message = str(error)
        hidden = text
    if message:
        assert message.startswith("page.md: line ")
        return
    assert hidden.count("\n") == text.count("\n")
    assert all(a in ("", b) for a, b in zip(hidden.split("\n"), text.split("\n"), strict=True))


def test_the_scenario_page_names_each_runs_repetitions(content: Path, tmp_path: Path) -> None:
    other = content / "runs" / "second"
    other.mkdir()
    report = Report.load(content / "runs" / RUN / "report.json")
    (other / "store.db").write_bytes((content / "runs" / RUN / "store.db").read_bytes())
    # The same run, said to be made with another number of repetitions: the page must show
    # each run's own number, not the spec's.
    report.model_copy(update={"repetitions": 7}).save(other / "report.json")
    build_site(content, tmp_path / "site", strict=True)
    page = (tmp_path / "site" / "scenarios" / "return-window.html").read_text(encoding="utf-8")
    assert "<dt>Repetitions in its runs</dt>" in page
    assert f'{report.repetitions} in <a href="../reports/{RUN}.html">{RUN}</a>' in page
    assert '7 in <a href="../reports/second.html">second</a>' in page
    assert "per variant (the spec&#39;s; a run may differ)" in page
