"""modelscape against Inspect AI: the same requests to the same OpenAI-compatible endpoint.

A fake chat-completions server (a minimal asyncio HTTP/1.1 endpoint, in its own process so that
client CPU is measured cleanly) sleeps ``--latency`` seconds and returns a fixed completion. Each
driver then runs in a fresh process of its own and sends ``--requests`` requests at
``--concurrency``:

- modelscape: Runner + OpenAICompatibleTarget, every output stored in a SQLite file;
- Inspect AI: ``eval`` of a task of that many samples (generate, then match), through its
  OpenAI provider pointed at the endpoint's base URL, ``max_connections`` = concurrency.

Printed: wall time, client CPU time per request and peak resident memory of each, their ratios,
and the ideal wall time N x latency / concurrency. ``--profile`` adds where modelscape's CPU
time goes, by package, from cProfile (which slows the run; its wall time is not comparable).

    python benchmarks/providers_vs_inspect.py [--requests 2000] [--concurrency 100]
    (needs: pip install inspect-ai openai)
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

from modelscape.results.results import run_of
from modelscape.targets.providers import HttpOptions

REPLY = json.dumps(
    {
        "id": "chatcmpl-bench",
        "object": "chat.completion",
        "created": 1700000000,
        "model": "fake-model",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": "yes"},
                "finish_reason": "stop",
            }
        ],
        "usage": {"prompt_tokens": 10, "completion_tokens": 1, "total_tokens": 11},
    }
).encode()


MODELS = json.dumps({"object": "list", "data": [{"id": "fake-model"}]}).encode()


class _Endpoint(asyncio.Protocol):
    """A minimal HTTP/1.1 keep-alive endpoint: each request is answered ``latency`` s later.

    Written on asyncio's protocol layer rather than a web framework, so that the server, which
    shares the machine's two cores with the client being measured, costs as little CPU as
    possible: what is left is the client's own cost.
    """

    def __init__(self, latency: float) -> None:
        self.latency = latency
        self.buffer = b""
        self.transport: asyncio.Transport | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]

    def data_received(self, data: bytes) -> None:
        self.buffer += data
        while (end := self.buffer.find(b"\r\n\r\n")) >= 0:
            head = self.buffer[:end].decode("latin-1")
            length = 0
            for line in head.split("\r\n")[1:]:
                name, _, value = line.partition(":")
                if name.strip().lower() == "content-length":
                    length = int(value)
            total = end + 4 + length
            if len(self.buffer) < total:
                return
            self.buffer = self.buffer[total:]
            body = MODELS if head.startswith("GET") else REPLY
            response = (
                b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                b"Content-Length: %d\r\n\r\n" % len(body)
            ) + body
            asyncio.get_running_loop().call_later(self.latency, self._send, response)

    def _send(self, response: bytes) -> None:
        if self.transport is not None and not self.transport.is_closing():
            self.transport.write(response)


def serve(port: int, latency: float) -> None:
    """The fake endpoint: every chat completion waits ``latency`` s, then says yes."""

    async def main() -> None:
        loop = asyncio.get_running_loop()
        server = await loop.create_server(
            lambda: _Endpoint(latency), "127.0.0.1", port, backlog=1024
        )
        async with server:
            await server.serve_forever()

    asyncio.run(main())


def _peak_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux reports KiB


def drive_modelscape(url: str, requests: int, concurrency: int, profile: bool) -> dict[str, Any]:
    """Run the requests through modelscape's runner; returns the measurements."""
    sys.path.insert(0, str(Path(__file__).parent))
    from runner_throughput import Item, move

    from modelscape import answers
    from modelscape.execution.config import ExecutionConfig
    from modelscape.execution.runner import Runner
    from modelscape.scenario import Scenario
    from modelscape.store.sqlite import SQLiteStore
    from modelscape.targets.providers.openai import OpenAICompatibleTarget
    from modelscape.task import Axis, TaskSpace

    levels, repetitions = 20, 5
    space = TaskSpace(
        {f"c{i}": Item(number=i, step=0) for i in range(max(1, requests // 100))},
        [Axis("level", list(range(levels)), move, scale="ordinal")],
    )
    scenario = Scenario(
        name="bench",
        version="1",
        description="",
        task_space=space,
        answer=answers.text_match(r"\b(yes|no)\b", ["yes", "no"]),
        repetitions=repetitions,
    )
    target = OpenAICompatibleTarget(
        "fake", base_url=url, http=HttpOptions(max_concurrency=concurrency)
    )
    config = ExecutionConfig(concurrency=concurrency, timeout=30)
    experiment = scenario.experiment([target], config)
    experiment.variant_table()  # building the variants is not the client's cost
    with tempfile.TemporaryDirectory() as folder:
        store = SQLiteStore(Path(folder) / "runs.db")
        runner = Runner(store=store)
        profiler = None
        if profile:
            import cProfile

            profiler = cProfile.Profile()
            profiler.enable()
        wall, cpu = time.perf_counter(), time.process_time()
        results = runner.run(experiment)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        if profiler is not None:
            profiler.disable()
        store.close()
    assert len(run_of(results).observations) == experiment.calls()
    assert not run_of(results).failed
    assert runner.last is not None
    measured = {
        "requests": experiment.calls(),
        "wall": wall,
        "cpu": cpu,
        "peak": _peak_mib(),
        # From the first call to the last output stored; the rest is measuring and loading.
        "calls": runner.last.elapsed,
    }
    if profiler is not None:
        measured["profile"] = _by_package(profiler)
    return measured


def _by_package(profiler: Any) -> dict[str, float]:
    """Own CPU time per package (tottime summed), from a cProfile profile."""
    import pstats

    groups: dict[str, float] = {}
    stats = pstats.Stats(profiler).stats  # type: ignore[attr-defined]
    for (filename, _, function), (_, _, tottime, _, _) in stats.items():
        if "site-packages/" in filename:
            group = filename.split("site-packages/")[1].split("/")[0]
        elif "/modelscape/" in filename:
            group = "modelscape." + filename.split("/modelscape/")[1].split("/")[0]
        elif filename == "~":
            group = f"builtin {function.split(' of ')[0].strip('<>').split('.')[-1]}"
        else:
            group = "stdlib " + Path(filename).stem
        groups[group] = groups.get(group, 0.0) + tottime
    return dict(sorted(groups.items(), key=lambda kv: -kv[1])[:14])


def drive_aiohttp(url: str, requests: int, concurrency: int) -> dict[str, Any]:
    """The floor: bare aiohttp requests under a semaphore, replies parsed, nothing stored."""
    import aiohttp

    body = json.dumps(
        {"model": "fake-model", "messages": [{"role": "user", "content": "yes or no?"}]}
    ).encode()

    async def run() -> None:
        gate = asyncio.Semaphore(concurrency)
        connector = aiohttp.TCPConnector(limit=0)
        async with aiohttp.ClientSession(connector=connector) as session:

            async def one() -> None:
                async with gate, session.post(f"{url}/chat/completions", data=body) as reply:
                    json.loads(await reply.read())

            await asyncio.gather(*(one() for _ in range(requests)))

    wall, cpu = time.perf_counter(), time.process_time()
    asyncio.run(run())
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    return {"requests": requests, "wall": wall, "cpu": cpu, "peak": _peak_mib()}


def drive_inspect(url: str, requests: int, concurrency: int) -> dict[str, Any]:
    """Run the requests as an Inspect AI eval; returns the measurements."""
    os.environ["OPENAI_API_KEY"] = "unused-by-the-fake-server"
    from inspect_ai import Task, eval
    from inspect_ai.dataset import Sample
    from inspect_ai.scorer import match
    from inspect_ai.solver import generate

    samples = [Sample(input=f"Question {i}: yes or no?", target="yes") for i in range(requests)]
    task = Task(dataset=samples, solver=generate(), scorer=match())
    with tempfile.TemporaryDirectory() as folder:
        wall, cpu = time.perf_counter(), time.process_time()
        (log,) = eval(
            task,
            model="openai/fake-model",
            model_base_url=url,
            model_args={"responses_api": False},
            max_connections=concurrency,
            log_dir=folder,
            display="none",
        )
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    assert log.status == "success", log.error
    assert log.results is not None
    assert log.results.completed_samples == requests
    return {"requests": requests, "wall": wall, "cpu": cpu, "peak": _peak_mib()}


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _child(driver: str, url: str, options: argparse.Namespace) -> dict[str, Any]:
    command = [
        sys.executable, __file__, "--driver", driver, "--url", url,
        "--requests", str(options.requests), "--concurrency", str(options.concurrency),
    ]  # fmt: skip
    if options.profile and driver == "modelscape":
        command.append("--profile")
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"{driver} failed:\n{done.stderr[-3000:]}")
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--requests", type=int, default=2000)
    parser.add_argument("--concurrency", type=int, default=100)
    parser.add_argument("--latency", type=float, default=0.05)
    parser.add_argument("--profile", action="store_true")
    parser.add_argument("--skip-inspect", action="store_true")
    parser.add_argument(
        "--driver", choices=["modelscape", "inspect", "aiohttp"], help=argparse.SUPPRESS
    )
    parser.add_argument("--url", help=argparse.SUPPRESS)
    parser.add_argument("--serve", type=int, help=argparse.SUPPRESS)
    options = parser.parse_args()
    if options.serve:
        serve(options.serve, options.latency)
        return
    if options.driver == "modelscape":
        print(json.dumps(drive_modelscape(options.url, options.requests, options.concurrency,
                                          options.profile)))  # fmt: skip
        return
    if options.driver == "aiohttp":
        print(json.dumps(drive_aiohttp(options.url, options.requests, options.concurrency)))
        return
    if options.driver == "inspect":
        print(json.dumps(drive_inspect(options.url, options.requests, options.concurrency)))
        return

    port = _free_port()
    command = [sys.executable, __file__, "--serve", str(port), "--latency", str(options.latency)]
    server = subprocess.Popen(command)
    url = f"http://127.0.0.1:{port}/v1"
    try:
        for _ in range(200):
            try:
                urllib.request.urlopen(f"{url}/models", timeout=1).close()
                break
            except OSError:
                time.sleep(0.05)
        floor = _child("aiohttp", url, options)
        ours = _child("modelscape", url, options)
        theirs = None if options.skip_inspect else _child("inspect", url, options)
    finally:
        server.terminate()
        server.wait()
    n = ours["requests"]
    ideal = n * options.latency / options.concurrency
    print(f"requests {n} at concurrency {options.concurrency}, server latency "
          f"{options.latency * 1000:.0f} ms; ideal wall time {ideal:.2f} s")  # fmt: skip
    rows = [("aiohttp", floor), ("modelscape", ours)]
    rows += [("inspect-ai", theirs)] if theirs else []
    print(f"{'':12}{'wall s':>9}{'/ ideal':>9}{'CPU ms/req':>12}{'peak MiB':>10}")
    for label, m in rows:
        print(f"{label:12}{m['wall']:9.2f}{m['wall'] / ideal:9.3f}"
              f"{m['cpu'] / m['requests'] * 1000:12.3f}{m['peak']:10.0f}")  # fmt: skip
    print("aiohttp: bare requests under a semaphore, nothing stored (the transport's floor)")
    print(f"modelscape: calls {ours['calls']:.2f} s ({ours['calls'] / ideal:.3f}x ideal), "
          f"then measures and loading results {ours['wall'] - ours['calls']:.2f} s")  # fmt: skip
    if theirs:
        print(f"inspect / modelscape: wall {theirs['wall'] / ours['wall']:.1f}x, CPU per request "
              f"{theirs['cpu'] / theirs['requests'] / (ours['cpu'] / n):.1f}x, "
              f"peak memory {theirs['peak'] / ours['peak']:.1f}x")  # fmt: skip
    if "profile" in ours:
        print("modelscape CPU by package (cProfile own time, s):")
        for group, seconds in ours["profile"].items():
            print(f"  {group:40}{seconds:8.3f}")


if __name__ == "__main__":
    main()
