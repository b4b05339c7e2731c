"""Model pages: the model's numbers open the outputs behind them, as on a report page; the page
embeds only that model's outputs, and a model whose outputs would take more bytes than the
page may embed keeps its numbers as links to the report pages."""

from __future__ import annotations

import html
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from modelscape.results.results import run_of
from modelscape.site import build_site
from modelscape.site import model_numbers as numbers_module
from tests.site.sitetools import RUN, make_content
from tests.support.runs import results_of

MODELS = ("late", "oracle", "random", "sycophant")
LOCAL = ("file:", "data:", "blob:")


def _evidence(page: str) -> dict[str, Any] | None:
    found = re.search(
        r'<script type="application/json" id="ms-evidence">(.*?)</script>', page, re.S
    )
    return None if found is None else dict(json.loads(found.group(1)))


def _members(runs: list[int]) -> list[int]:
    return [runs[i] + j for i in range(0, len(runs), 2) for j in range(runs[i + 1])]


def _buttons(page: str) -> list[tuple[int, str]]:
    return [
        (int(index), html.unescape(label))
        for index, label in re.findall(r'data-evidence="(\d+)" data-label="([^"]*)"', page)
    ]


@pytest.mark.parametrize("model", MODELS)
def test_a_model_page_embeds_only_its_models_outputs(
    built: Path, model: str, tmp_path: Path
) -> None:
    page = (built / "models" / f"{model}.html").read_text(encoding="utf-8")
    evidence = _evidence(page)
    assert evidence is not None
    assert 'id="outputs-dialog"' in page
    observations = evidence["observations"]
    assert observations
    assert {evidence["targets"][o["target"]] for o in observations} == {model}
    # every observation is embedded once, and each is one of the model's stored outputs
    ids = [o["id"] for o in observations]
    assert len(ids) == len(set(ids))
    stored = set()
    for name in (RUN, "pressure-fixture"):
        (tmp_path / name).mkdir()
        results = results_of(name, tmp_path / name)
        stored |= {o.id for o in run_of(results).observations if o.target == model}
    assert set(ids) == stored  # both runs, every output of this model (an accuracy's set)
    buttons = _buttons(page)
    assert buttons
    for index, label in buttons:
        assert 0 <= index < len(evidence["sets"])
        assert label.startswith(f"{model} · all: ")
        members = _members(evidence["sets"][index])
        assert members
        assert all(0 <= m < len(observations) for m in members)
    assert len(evidence["steps"]) == len(evidence["pairs"]) == len(evidence["sets"])


def test_a_model_over_the_limit_keeps_links_to_its_reports(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(numbers_module, "MODEL_EVIDENCE_BYTES", 1_000)
    content = make_content(tmp_path / "content")
    build_site(content, tmp_path / "site", strict=True)
    page = (tmp_path / "site" / "models" / "late.html").read_text(encoding="utf-8")
    assert _evidence(page) is None
    assert "data-evidence=" not in page
    assert 'id="outputs-dialog"' not in page
    assert f'href="../reports/{RUN}.html"' in page
    assert "Each number opens its report." in page


# -- in a browser --------------------------------------------------------------------------------
@pytest.fixture
def open_page(browser: Any) -> Iterator[Any]:
    contexts: list[Any] = []

    def opener(path: Path) -> tuple[Any, list[str], list[str]]:
        context = browser.new_context(viewport={"width": 1280, "height": 800})
        contexts.append(context)
        page = context.new_page()
        page.set_default_timeout(10_000)
        errors: list[str] = []
        requests: list[str] = []
        page.on(
            "console", lambda m: errors.append(m.text) if m.type in ("error", "warning") else None
        )
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.on("request", lambda request: requests.append(request.url))
        page.goto(path.resolve().as_uri())
        return page, errors, requests

    yield opener
    for context in contexts:
        context.close()


def test_a_number_on_a_model_page_opens_its_outputs_offline(open_page: Any, built: Path) -> None:
    path = built / "models" / "sycophant.html"
    evidence = _evidence(path.read_text(encoding="utf-8"))
    assert evidence is not None
    page, errors, requests = open_page(path)
    button = page.locator("table.comparison tr.this-model button.num").first
    index = int(str(button.get_attribute("data-evidence")))
    label = str(button.get_attribute("data-label"))
    button.click()
    page.wait_for_selector("dialog[open]")
    assert page.text_content("#outputs-title") == label
    assert page.locator("#outputs-list").is_visible()  # not a step: the list alone
    shown = page.eval_on_selector_all(
        "#outputs-list > li", "rows => rows.map(r => r.dataset.observation)"
    )
    members = _members(evidence["sets"][index])
    assert shown == [evidence["observations"][m]["id"] for m in members][:200]
    # the address reopens it, with its filters, in a fresh page
    page.select_option("#outputs-verdict", "wrong")
    address = str(page.evaluate("location.href"))
    assert "verdict=wrong" in address
    other, other_errors, other_requests = open_page(path)
    other.goto("about:blank")
    other.goto(address)
    other.wait_for_selector("dialog[open]")
    assert other.input_value("#outputs-verdict") == "wrong"
    assert other.text_content("#outputs-shown") == page.text_content("#outputs-shown")
    page.keyboard.press("Escape")
    assert errors == other_errors == []
    assert [u for u in requests + other_requests if not u.startswith(LOCAL)] == []
