"""How the build makes the leaderboard's files: rebuilt with what they show, kept otherwise,
their names reserved, and model pages rebuilt when another target of their scenarios moves."""

from __future__ import annotations

from pathlib import Path

from modelscape.report import Report
from modelscape.site import build_site
from tests.site.hostile import Sandbox
from tests.site.sitetools import RUN
from tests.support.runs import copy_run


def test_the_downloads_follow_the_reports_they_hold(content: Path, tmp_path: Path) -> None:
    site = tmp_path / "site"
    first = build_site(content, site, strict=True)
    assert {"leaderboard.csv", "leaderboard.json"} <= set(first.rendered)
    about = content / "pages" / "about.md"
    about.write_text(about.read_text(encoding="utf-8") + "\nMore.\n", encoding="utf-8")
    assert {"leaderboard.csv", "leaderboard.json"} <= set(build_site(content, site).reused)
    file = content / "runs" / RUN / "report.json"
    report = Report.load(file)
    card = report.scorecards[0]
    changed = card.model_copy(update={"accuracy": 0.125})
    report.model_copy(update={"scorecards": (changed, *report.scorecards[1:])}).save(file)
    again = build_site(content, site)
    assert {"leaderboard.csv", "leaderboard.json"} <= set(again.rendered)
    assert (
        f"{card.target},reference,all,return-window,".encode()
        in (site / "leaderboard.csv").read_bytes()
    )
    assert ",0.125," in (site / "leaderboard.csv").read_text(encoding="utf-8")


def test_a_model_page_follows_the_other_runs_of_its_scenarios(
    content: Path, tmp_path: Path
) -> None:
    # Two runs of return-window: the local models' page compares them with the references.
    copy_run("return-window-models-fixture", content, as_name="local")
    site = tmp_path / "site"
    build_site(content, site, strict=True)
    page = (site / "models" / "gemma-3-270m.html").read_text(encoding="utf-8")
    assert '<a href="../models/late.html">late</a>' in page
    file = content / "runs" / RUN / "report.json"
    report = Report.load(file)
    report.model_copy(update={"description": "Changed."}).save(file)
    rendered = set(build_site(content, site).rendered)
    assert "models/gemma-3-270m.html" in rendered  # not in the changed run, but compared to it


def test_a_page_cannot_take_the_names_of_the_downloads(sandbox: Sandbox) -> None:
    for name in ("leaderboard.csv", "leaderboard.json"):
        (sandbox.content / "pages" / name).write_text("model\n=cmd\n", encoding="utf-8")
        sandbox.warns(rf"would replace {name}, but {name} is made by the build")
        assert "=cmd" not in (sandbox.output / name).read_text(encoding="utf-8")
        (sandbox.content / "pages" / name).unlink()
