"""Builders to edit (a fresh one per test, written through its methods), and a browser page
that runs the widget's front end for one."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from modelscape.builder import Builder
from tests.support.browsertools import chromium

from .harness import harness_html


@pytest.fixture
def cities() -> Builder:
    """A small complete spec: a city with a property, and a JSON answer the prompt asks for."""
    builder = Builder("Is Paris the capital of France? Answer politely, in JSON.", name="capitals")
    builder.mark(0, 3, 8, "city")
    builder.rows(
        "city",
        [
            {"label": "Paris", "capital": "true"},
            {"label": "Lyon", "capital": "false"},
            {"label": "Nice", "capital": "false"},
        ],
    )
    builder.answer("capital", [True, False], {"city.capital": {True: True, False: False}})
    return builder


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with chromium() as launched:
        yield launched


@pytest.fixture
def open_builder(browser: Any, tmp_path: Path) -> Iterator[Any]:
    pages: list[Any] = []
    errors: list[str] = []

    def open_page(builder: Builder) -> Any:
        page = browser.new_page()
        page.on("pageerror", lambda error: errors.append(str(error)))
        # the page must work offline: refuse anything that is not a local file or blob
        page.route("http*://**", lambda route: route.abort())
        file = tmp_path / f"harness-{len(pages)}.html"
        file.write_text(harness_html(builder), encoding="utf-8")
        page.goto(file.as_uri())
        page.wait_for_function("window.ready || window.failure")
        assert page.evaluate("window.failure || null") is None
        pages.append(page)
        return page

    yield open_page
    for page in pages:
        page.close()
    assert errors == []
