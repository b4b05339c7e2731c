"""A real model end to end: Gemma 3 270M served by llama.cpp on loopback, and run in-process.

The server is started once per session by the ``llama_server`` fixture. Replies of a 270M base
model are not checked for sense, only for what every real run must record: text, the model the
server reported, token usage, a finish reason and a latency, stored and reported.
"""

from __future__ import annotations

import asyncio
import importlib.util
import json
from pathlib import Path

from click.testing import CliRunner

from modelscape.results.results import run_of
from modelscape.targets.protocol import TargetRequest
from modelscape.targets.providers import Generation
from modelscape.targets.providers.openai import OpenAICompatibleTarget
from modelscape.task.prompt import Prompt
from tests.targets.providers.loopback import require
from tests.targets.providers.small_specs import VARIANTS, small_return_window

REQUEST = TargetRequest(prompt=Prompt.of("The capital of France is"), seed=7)


def test_one_call_records_what_the_server_reported(llama_server: str) -> None:
    target = OpenAICompatibleTarget(
        "gemma", base_url=llama_server, generation=Generation(max_tokens=8, temperature=0)
    )
    output = asyncio.run(target(REQUEST))
    assert output.error is None
    assert output.model
    assert "gemma" in output.model.lower()
    assert output.usage is not None
    assert output.usage.input_tokens > 0
    assert 0 < output.usage.output_tokens <= 8
    assert output.finish_reason in {"stop", "length"}
    assert output.latency is not None
    assert output.latency > 0


def test_the_same_seed_gives_the_same_reply(llama_server: str) -> None:
    target = OpenAICompatibleTarget(
        "gemma", base_url=llama_server, generation=Generation(max_tokens=8, temperature=1)
    )

    async def twice() -> tuple[str, str]:
        first = await target(REQUEST)
        second = await target(REQUEST)
        return first.text, second.text

    first, second = asyncio.run(twice())
    assert first == second


def test_the_cli_runs_stores_and_reports(llama_server: str, tmp_path: Path) -> None:
    from modelscape.cli import main

    store = tmp_path / "runs.db"
    targets = tmp_path / "targets.yaml"
    targets.write_text(
        f"- target: openai-compatible:gemma@{llama_server}\n  max_tokens: 4\n  temperature: 0.7\n"
    )
    spec = small_return_window(tmp_path)
    arguments = ["run", str(spec), "--targets", str(targets), "--store", str(store)]
    # Grouped: a variant's two repetitions back to back, so the server reads each prompt once.
    options = ["--repetitions", "2", "--concurrency", "2", "--order", "grouped"]
    result = CliRunner().invoke(main, [*arguments, *options])
    assert result.exit_code == 0, result.output
    asked = 2 * VARIANTS
    assert f"{asked} asked, 0 reused, 0 failed" in result.output
    report = tmp_path / "report.json"
    made = CliRunner().invoke(main, ["report", "--store", str(store), "-o", str(report)])
    assert made.exit_code == 0, made.output
    (provenance,) = json.loads(report.read_text())["provenance"]["targets"]
    assert provenance["parameters"]["max_tokens"] == 4
    assert provenance["parameters"]["base_url"] == llama_server
    assert provenance["observations"] == asked
    assert sum(provenance["models"].values()) == asked  # every output names the served model
    assert provenance["input_tokens"] > 0
    assert provenance["output_tokens"] > 0
    assert provenance["latency"] > 0


def test_a_gguf_file_runs_in_process(gemma_path: Path) -> None:
    require(importlib.util.find_spec("llama_cpp") is not None, "llama-cpp-python is missing")
    from modelscape.targets._resolve import resolve_target
    from modelscape.targets.providers.llama import LlamaCppTarget

    target = resolve_target(
        f"llama-cpp:{gemma_path}", max_tokens=6, temperature=0, context=512, threads=2
    )
    assert isinstance(target, LlamaCppTarget)
    assert target.name == gemma_path.stem
    assert target.parameters["model"] == gemma_path.name
    assert len(str(target.parameters["fingerprint"])) == 16

    async def two_at_once() -> list[str]:
        replies = await asyncio.gather(target(REQUEST), target(REQUEST))  # serialized inside
        return [r.text for r in replies]

    try:
        first, second = asyncio.run(two_at_once())
        output = asyncio.run(target(REQUEST))
    finally:
        target.close()
    assert first == second == output.text  # temperature 0: the same reply each time
    assert output.model is not None
    assert output.model.startswith(gemma_path.name)
    assert output.usage is not None
    assert 0 < output.usage.output_tokens <= 6
    assert output.finish_reason in {"stop", "length"}
    assert output.latency is not None


def test_a_run_frees_the_in_process_model_when_it_ends(gemma_path: Path) -> None:
    require(importlib.util.find_spec("llama_cpp") is not None, "llama-cpp-python is missing")
    from modelscape.execution.config import ExecutionConfig
    from modelscape.execution.runner import Runner
    from modelscape.store.memory import MemoryStore
    from modelscape.targets.providers.llama import LlamaCppTarget
    from tests.support.mapping_space import scenario

    target = LlamaCppTarget(
        gemma_path, context=512, threads=2, generation=Generation(max_tokens=2, temperature=0)
    )
    # Loading the model takes seconds: a timeout that leaves room for it.
    run = scenario(cases=1, repetitions=1).experiment([target], ExecutionConfig(timeout=300))
    results = Runner(store=MemoryStore()).run(run)
    indexed = run_of(results)
    assert len(indexed.observations) == run.calls()
    assert all(o.status == "ok" for o in indexed.observations)
    assert all(
        o.output.model and o.output.model.startswith(gemma_path.name) for o in indexed.observations
    )
    # The runner closed the target: the model and its thread are gone until the next call.
    assert target._model is None
    assert target._executor is None
