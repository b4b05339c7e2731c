"""Prices: a targets.yaml's ``price:`` makes every call's usage record its cost, which the
report's provenance adds up; an unpriced report is written exactly as before."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from modelscape.errors import ExecutionError
from modelscape.execution.runner import Runner
from modelscape.report.provenance import Provenance, TargetProvenance
from modelscape.results.results import run_of
from modelscape.store.sqlite import SQLiteStore
from modelscape.targets._resolve import load_targets, resolve_target
from modelscape.targets.protocol import Usage
from modelscape.targets.providers._settings import Price
from tests.support.mapping_space import experiment
from tests.targets.providers.wire import WireServer, chat_reply


@pytest.fixture
def server() -> Iterator[WireServer]:
    running = WireServer(lambda seen: chat_reply()).start()  # 12 tokens in, 5 out
    yield running
    running.stop()


def test_cost_is_tokens_times_the_price_per_million() -> None:
    price = Price(input=0.15, output=0.6)
    charged = price.charge(Usage(input_tokens=1_000_000, output_tokens=500_000))
    assert charged.cost == pytest.approx(0.15 + 0.3)
    assert (charged.input_tokens, charged.output_tokens) == (1_000_000, 500_000)
    assert Price(input=0, output=0).charge(Usage(input_tokens=5)).cost == 0


def test_a_targets_file_prices_a_target_without_changing_its_identity(
    server: WireServer, tmp_path: Path
) -> None:
    listing = tmp_path / "targets.yaml"
    listing.write_text(
        f"- target: openai-compatible:m@{server.url}/v1\n"
        "  name: priced\n"
        "  price: {input: 2.5, output: 10}\n"
        f"- target: openai-compatible:m@{server.url}/v1\n"
        "  name: priced\n",
        encoding="utf-8",
    )
    priced, plain = load_targets(listing)
    assert priced.price == Price(input=2.5, output=10)  # type: ignore[attr-defined]
    assert priced.identity == plain.identity  # a price changes no reply


def test_a_run_records_each_calls_cost_and_the_provenance_adds_them(
    server: WireServer, tmp_path: Path
) -> None:
    priced = resolve_target(
        f"openai-compatible:m@{server.url}/v1", name="priced", price={"input": 3, "output": 15}
    )
    plain = resolve_target(f"openai-compatible:m@{server.url}/v1", name="plain")
    run = experiment([priced, plain], repetitions=2, cases=1)
    store = SQLiteStore(tmp_path / "runs.db")
    try:
        results = Runner(store=store).run(run)
    finally:
        store.close()
    per_call = (12 * 3 + 5 * 15) / 1e6
    for observation in run_of(results).observations:
        usage = observation.output.usage
        assert usage is not None
        assert usage.cost == (pytest.approx(per_call) if observation.target == "priced" else None)
    provenance = {t.name: t for t in Provenance.of(results).targets}
    calls = run.calls() // 2
    assert provenance["priced"].cost == pytest.approx(per_call * calls)
    assert provenance["plain"].cost is None
    written = {
        t["name"]: t for t in json.loads(Provenance.of(results).model_dump_json())["targets"]
    }
    assert written["priced"]["cost"] == pytest.approx(per_call * calls)
    assert "cost" not in written["plain"]  # as reports were written before prices existed


def test_a_cost_survives_the_report_file() -> None:
    target = TargetProvenance(name="t", id="x", version="1", cost=0.25)
    assert TargetProvenance.model_validate_json(target.model_dump_json()) == target
    unpriced = TargetProvenance(name="t", id="x", version="1")
    assert "cost" not in unpriced.model_dump()
    assert TargetProvenance.model_validate(unpriced.model_dump()) == unpriced


@pytest.mark.parametrize(
    "price",
    [
        {"input": -1, "output": 2},
        {"input": 1},
        {"input": 1, "output": 2, "cached": 0.5},
        {"input": "cheap", "output": 2},
        {"input": float("inf"), "output": 2},
        "0.15/0.60",
    ],
)
def test_a_wrong_price_is_named(price: object) -> None:
    with pytest.raises(ExecutionError, match="price"):
        resolve_target("openai-compatible:m@http://127.0.0.1:9/v1", price=price)


def test_a_price_is_refused_where_nothing_is_billed(tmp_path: Path) -> None:
    with pytest.raises(ExecutionError, match="price"):
        resolve_target(f"llama-cpp:{tmp_path / 'model.gguf'}", price={"input": 1, "output": 1})


def test_absurd_token_counts_cost_nothing_rather_than_overflow(server: WireServer) -> None:
    import asyncio

    from modelscape.targets.protocol import TargetRequest
    from modelscape.task.prompt import Prompt

    reply = chat_reply()
    reply["usage"] = {"prompt_tokens": 10**400, "completion_tokens": -5}
    server.then(body=reply)
    target = resolve_target(f"openai-compatible:m@{server.url}/v1", price={"input": 1, "output": 1})
    output = asyncio.run(target(TargetRequest(prompt=Prompt.of("hi"), seed=1)))
    assert output.usage == Usage(input_tokens=0, output_tokens=0, cost=0.0)


def test_the_report_page_shows_a_cost_column_only_for_priced_runs(
    server: WireServer, tmp_path: Path
) -> None:
    from modelscape.pages import ReportPage
    from modelscape.report.report import build_report

    pages = {}
    for label, options in (("priced", {"price": {"input": 3, "output": 15}}), ("plain", {})):
        target = resolve_target(f"openai-compatible:m@{server.url}/v1", name=label, **options)
        store = SQLiteStore(tmp_path / f"{label}.db")
        try:
            results = Runner(store=store).run(experiment([target], repetitions=2, cases=1))
        finally:
            store.close()
        pages[label] = ReportPage(build_report(results), results).html()
    cost = (12 * 3 + 5 * 15) / 1e6 * (experiment([target], repetitions=2, cases=1).calls())
    assert '<th scope="col">Cost</th>' in pages["priced"]
    assert f"<td>{cost:.6g}</td>" in pages["priced"]
    assert '<th scope="col">Cost</th>' not in pages["plain"]
