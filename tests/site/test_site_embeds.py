"""Results embedded in markdown pages: the numbers are the runs', they open their outputs,
broken references warn (and fail --strict) with the page, line and nearest name, and no text
in an embed can break the build."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from modelscape.pages.evidence import Evidence
from modelscape.pages.report import ReportPage, load_outputs
from modelscape.report import Report
from modelscape.report.summary import interval
from modelscape.site import SiteError, build_site
from modelscape.site.embeds import Embeds, RunData
from modelscape.site.markdown import parse_markdown
from tests.site.sitetools import RUN
from tests.support.runs import copy_run, report_of, results_of

PAGE = f"""---
title: Findings
---
# Findings

Late is right in `ms:accuracy {RUN} late` of its answers, and misses
`ms:missed {RUN} late all` of the changes it should make.

```modelscape
scorecard: {RUN}
targets: [late]
```

```modelscape
profile: {RUN}
axis: days
```

```modelscape
sensitivity: {RUN}
```

```modelscape
divergence: {RUN}
targets: [random]
```
"""


def _evidence(page: str) -> dict[str, Any]:
    found = re.search(r'<script type="application/json" id="ms-evidence">(.*?)</script>', page)
    assert found is not None
    data: dict[str, Any] = json.loads(found.group(1))
    return data


def _members(runs: list[int]) -> list[int]:
    return [runs[i] + j for i in range(0, len(runs), 2) for j in range(runs[i + 1])]


@pytest.fixture(scope="module")
def report() -> Report:
    return report_of(RUN)


@pytest.fixture
def findings(content: Path, tmp_path: Path) -> Path:
    (content / "pages" / "findings.md").write_text(PAGE, encoding="utf-8")
    build_site(content, tmp_path / "site", strict=True)
    return tmp_path / "site" / "findings.html"


def test_an_embedded_number_is_the_runs_and_holds_its_outputs(
    findings: Path, report: Report, content: Path
) -> None:
    page = findings.read_text(encoding="utf-8")
    card = report.scorecard("late")
    shown = interval(card.accuracy, card.accuracy_low, card.accuracy_high)
    pattern = r'<button type="button" class="num" data-evidence="(\d+)"[^>]*>'
    button = re.search(pattern + re.escape(shown) + "</button>", page)
    assert button is not None
    evidence = _evidence(page)
    indices = _members(evidence["sets"][int(button.group(1))])
    ids = {evidence["observations"][i]["id"] for i in indices}
    results = load_outputs(content / "runs" / RUN / "store.db", report.experiment)
    assert ids == {o.id for o in results.trace(card.accuracy_ids).observations}
    # One run embedded: its targets once, and every observation's variant on the page.
    assert evidence["targets"] == list(report.targets)
    assert all(0 <= o["variant"] < len(evidence["variants"]) for o in evidence["observations"])


def test_blocks_become_tables_and_charts_linked_to_their_report(findings: Path) -> None:
    page = findings.read_text(encoding="utf-8")
    assert page.count('class="embed ') == 4
    assert page.count(f'href="reports/{RUN}.html"') >= 4
    figures = re.search(r'id="ms-figures">(.*?)</script>', page)
    assert figures is not None
    ids = [f["id"] for f in json.loads(figures.group(1))]
    assert ids == ["embed-3-profile-0", "embed-4-sensitivity"]
    assert all(f'id="{i}"' in page for i in ids)
    assert "random against oracle" in page
    assert "late against oracle" not in page
    assert "```modelscape" not in page
    assert "ms:accuracy" not in page


def test_numbers_of_two_runs_open_their_own_outputs(content: Path, tmp_path: Path) -> None:
    other = "pressure-fixture"
    copy_run(other, content)
    (content / "pages" / "two.md").write_text(
        f"A `ms:accuracy {RUN} oracle` and B `ms:accuracy {other} sycophant`.\n",
        encoding="utf-8",
    )
    build_site(content, tmp_path / "site", strict=True)
    page = (tmp_path / "site" / "two.html").read_text(encoding="utf-8")
    evidence = _evidence(page)
    buttons = [int(i) for i in re.findall(r'data-evidence="(\d+)"', page)]
    assert len(buttons) == 2
    seen = []
    for index in buttons:
        members = _members(evidence["sets"][index])
        targets = {evidence["targets"][evidence["observations"][i]["target"]] for i in members}
        seen.append(targets)
    assert seen == [{"oracle"}, {"sycophant"}]


def test_broken_references_warn_with_page_line_and_hint(content: Path, tmp_path: Path) -> None:
    source = content / "pages" / "broken.md"
    source.write_text(
        "---\ntitle: Broken\n---\n"
        f"`ms:acuracy {RUN} late` and `ms:accuracy {RUN} lat`\n"
        f"then `ms:accuracy {RUN} late everyone` and `ms:accuracy return-windw late`\n\n"
        f"```modelscape\nprofile: {RUN}\naxes: days\n```\n\n"
        f"```modelscape\nprofile: {RUN}\naxis: dayz\n```\n\n"
        f"```modelscape\nprofile: {RUN}\nscorecard: {RUN}\n```\n\n"
        "```modelscape\n[not, a, mapping\n```\n\n`ms:accuracy`\n",
        encoding="utf-8",
    )
    result = build_site(content, tmp_path / "loose")
    where = str(source)
    shown = [str(warning) for warning in result.warnings]
    assert shown == [
        f"{where}:4: no quantity 'acuracy'; did you mean 'accuracy'? known: accuracy, "
        "baseline, answered, spurious, missed, shifts, departures, failed",
        f"{where}:4: no target 'lat'; did you mean 'late'? known: oracle, late, random",
        f"{where}:5: no group 'everyone'; known: all",
        f"{where}:5: no run 'return-windw'; did you mean '{RUN}'? known: {RUN}",
        f"{where}:7: modelscape block: no key 'axes'; did you mean 'axis'? known: "
        "scorecard, profile, sensitivity, divergence, targets, groups, axis",
        f"{where}:12: no axis in run '{RUN}': 'dayz'; did you mean 'days'? known: days",
        f"{where}:17: a modelscape block names exactly one of scorecard, profile, "
        "sensitivity, divergence",
        f"{where}:22: modelscape block: " + shown[7].split("modelscape block: ")[1],
        f"{where}:26: `ms:accuracy`: write `ms:QUANTITY RUN TARGET [GROUP]`, such as "
        "`ms:accuracy pressure-local-models gemma-3-270m all`",
    ]
    assert "line 2" in shown[7]  # the YAML's own line inside the block
    page = (tmp_path / "loose" / "broken.html").read_text(encoding="utf-8")
    assert page.count('class="embed-broken"') == 9
    assert str(content) not in page  # the page shows what is wrong, not the local path
    with pytest.raises(SiteError, match=r"9 warnings \(--strict\), nothing written"):
        build_site(content, tmp_path / "strict", strict=True)
    assert not (tmp_path / "strict").exists()


def test_a_page_with_embeds_follows_its_runs(content: Path, tmp_path: Path) -> None:
    (content / "pages" / "findings.md").write_text(PAGE, encoding="utf-8")
    site = tmp_path / "site"
    build_site(content, site)
    file = content / "runs" / RUN / "report.json"
    report = Report.load(file)
    report.model_copy(update={"description": "Changed."}).save(file)
    rendered = build_site(content, site).rendered
    assert "findings.html" in rendered
    assert "about.html" not in rendered


# -- hostile text ---------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def run_data(report: Report, tmp_path_factory: pytest.TempPathFactory) -> Any:
    results = results_of(RUN, tmp_path_factory.mktemp("store"))

    def runs(name: str) -> RunData | None:
        if name != RUN:
            return None
        page = ReportPage(report, results)
        return RunData(report, page, Evidence(results), f"reports/{RUN}.html")

    return runs


_WORDS = st.sampled_from(
    [RUN, "late", "oracle", "all", "accuracy", "spurious", "days", "profile:", "scorecard:",
     "targets:", "[", "]", "{", "}", "&", "*a", "!!python/object", ":", "-", "\n", " ", "`"]
)  # fmt: skip
_TEXT = st.one_of(st.text(max_size=60), st.lists(_WORDS, max_size=12).map("".join))


@given(inline=_TEXT, block=_TEXT)
def test_no_embed_text_breaks_a_page(
    run_data: Any, tmp_path_factory: pytest.TempPathFactory, inline: str, block: str
) -> None:
    folder = tmp_path_factory.mktemp("hostile")
    source = folder / "page.md"
    inline_span = "`ms:" + inline.replace("`", "'").replace("\n", " ") + "`"
    fence = "```modelscape\n" + block.replace("```", "'''") + "\n```\n"
    source.write_text(f"# Page\n\nA {inline_span} here.\n\n{fence}", encoding="utf-8")
    embeds = Embeds(str(source), run_data, [RUN])
    document = parse_markdown(source, embed=embeds)
    items, evidence, _ = embeds.finish()
    assert len(items) == 2
    assert all(w.path == str(source) and w.line is not None for w in embeds.warnings)
    assert len(embeds.warnings) == sum(1 for item in items if item["kind"] == "broken")
    assert document.html.count("\0embed") == 2
    assert len(evidence["sets"]) == sum(len(r.evidence._sets) for r in embeds.used.values())


# -- in a browser -------------------------------------------------------------------------------
def test_a_number_in_prose_opens_its_outputs(
    browser: Any, findings: Path, report: Report, content: Path
) -> None:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    errors: list[str] = []
    try:
        page = context.new_page()
        page.set_default_timeout(15_000)
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto(findings.as_uri())
        page.wait_for_selector("html[data-charts='drawn']", state="attached")
        assert page.locator(".chart .main-svg").count() >= 2
        page.locator("article p button.num").first.click()
        assert page.locator("#outputs-dialog").evaluate("d => d.open")
        assert page.locator("#outputs-title").inner_text() == "late · all: accuracy"
        card = report.scorecard("late")
        results = load_outputs(content / "runs" / RUN / "store.db", report.experiment)
        count = len(results.trace(card.accuracy_ids).observations)
        assert page.locator("#outputs-count").inner_text().startswith(f"{count} output")
        assert errors == []
    finally:
        context.close()


def test_markup_in_a_reference_is_shown_as_text(content: Path, tmp_path: Path) -> None:
    (content / "pages" / "markup.md").write_text(
        f"`ms:accuracy {RUN} <img src=x>`\n\n"
        "```modelscape\nscorecard: <script>alert(1)</script>\n```\n",
        encoding="utf-8",
    )
    result = build_site(content, tmp_path / "site")
    assert len(result.warnings) == 2
    page = (tmp_path / "site" / "markup.html").read_text(encoding="utf-8")
    assert "<img src=x" not in page
    assert "<script>alert" not in page
    assert "no target &#39;&lt;img&#39;" in page
