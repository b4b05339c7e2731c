"""Peak memory of large replies read at once: what a provider target holds per byte in flight.

A loopback chat-completions server (its own process, so that only the client is measured)
answers every request with one reply of ``--megabytes`` MB of text. A client process then
makes ``--concurrency`` calls at once through an ``OpenAICompatibleTarget`` and reports:

- the peak of Python's allocations during the calls (tracemalloc), and
- the growth of its peak resident memory (``ru_maxrss``) over what it held before,

each also as a multiple of the data in flight (concurrency x reply size). Reading a reply
should cost about twice its size (the bytes received, then the text they decode to) and
little more, however many are in flight.

    python benchmarks/reply_memory.py [--megabytes 10] [--concurrency 8] [--limit-megabytes 32]
    python benchmarks/reply_memory.py --run 10     # a whole run, stored and loaded back

Run with another checkout first on ``PYTHONPATH`` to compare two versions of the code.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request

SERVER = r"""
import asyncio, json, sys
from aiohttp import web

size = int(sys.argv[1])
text = ("0123456789abcdef" * (size // 16 + 1))[:size]
body = json.dumps({
    "id": "chatcmpl-big", "object": "chat.completion", "model": "big",
    "choices": [{"index": 0, "message": {"role": "assistant", "content": text},
                 "finish_reason": "stop"}],
    "usage": {"prompt_tokens": 3, "completion_tokens": 4},
}).encode()


async def answer(request):
    await request.read()
    return web.Response(body=body, content_type="application/json")


async def alive(request):
    return web.Response(text="ok")


app = web.Application(client_max_size=2**20)
app.router.add_post("/{tail:.*}", answer)
app.router.add_get("/alive", alive)
web.run_app(app, host="127.0.0.1", port=int(sys.argv[2]), print=None)
"""

CLIENT = r"""
import asyncio, json, resource, sys, tracemalloc
from modelscape.targets.providers import HttpOptions
from modelscape.targets.providers.openai import OpenAICompatibleTarget
from modelscape.targets.protocol import TargetRequest
from modelscape.task.space import Prompt

url, concurrency, limit = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])


async def main():
    target = OpenAICompatibleTarget(
        "big", base_url=url, http=HttpOptions(max_response_bytes=limit)
    )
    request = TargetRequest(prompt=Prompt.of("say a lot"), seed=1)
    async with target:
        await target(request)  # warm: the session, the imports, the first buffers
        before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        tracemalloc.start()
        outputs = await asyncio.gather(*(target(request) for _ in range(concurrency)))
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    sizes = sorted({len(o.text) for o in outputs})
    print(json.dumps({"peak": peak, "rss": (after - before) * 1024, "sizes": sizes}))


asyncio.run(main())
"""


RUN = r"""
import json, os, resource, sys, tempfile, tracemalloc
from modelscape.execution.config import ExecutionConfig
from modelscape.targets._resolve import resolve_target
from modelscape.execution.runner import Runner
from modelscape.specs import Spec
from modelscape.store import SQLiteStore

url, concurrency, calls = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
spec = Spec.parse(
    "name: big\nprompt: 'Say {n} a lot.'\nslots:\n  n: {start: 1, stop: %d, step: 1}\n"
    "vary:\n  n: ordinal\nanswer: {pattern: 'x', choices: [x]}\ncases: 1\nrepetitions: 1\n"
    % calls
)
target = resolve_target(f"openai-compatible:big@{url}")
experiment = spec.scenario().experiment([target], ExecutionConfig(concurrency=concurrency))
folder = tempfile.mkdtemp()
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
tracemalloc.start()
results = Runner(store=SQLiteStore(os.path.join(folder, "runs.db"))).run(experiment)
_, peak = tracemalloc.get_traced_memory()
tracemalloc.stop()
after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
sizes = sorted({len(o.output.text) for o in run_of(results).observations})
print(json.dumps({"peak": peak, "rss": (after - before) * 1024, "sizes": sizes,
                  "calls": experiment.calls()}))
"""


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


def _wait(port: int, server: subprocess.Popen[bytes]) -> None:
    """Until the server answers (it started in another process); its failure is raised."""
    for _ in range(600):
        if server.poll() is not None:
            raise SystemExit(f"the server stopped: exit status {server.returncode}")
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/alive", timeout=1):
                return
        except (urllib.error.URLError, OSError):
            time.sleep(0.05)  # a poll of another process, not a synchronisation of this one
    raise SystemExit("the server did not start")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--megabytes", type=float, default=10.0)
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--limit-megabytes", type=float, default=32.0)
    parser.add_argument(
        "--run",
        type=int,
        metavar="CALLS",
        help="Instead: a whole run of CALLS calls (Runner, SQLite store, results loaded back), "
        "against all the replies it holds.",
    )
    arguments = parser.parse_args()
    size = int(arguments.megabytes * 1_000_000)
    limit = int(arguments.limit_megabytes * 2**20)
    port = _free_port()
    server = subprocess.Popen([sys.executable, "-c", SERVER, str(size), str(port)])
    try:
        _wait(port, server)
        last = str(limit) if arguments.run is None else str(arguments.run)
        client = subprocess.run(
            [
                sys.executable,
                "-c",
                CLIENT if arguments.run is None else RUN,
                f"http://127.0.0.1:{port}/v1",
                str(arguments.concurrency),
                last,
            ],
            capture_output=True,
            text=True,
            check=False,
            env=os.environ,
        )
    finally:
        server.terminate()
        server.wait()
    if client.returncode != 0:
        raise SystemExit(client.stderr)
    found = json.loads(client.stdout.strip().splitlines()[-1])
    flight = size * arguments.concurrency
    if arguments.run is None:
        print(
            f"{arguments.concurrency} replies of {size / 1e6:g} MB in flight: {flight / 1e6:g} MB"
        )
    else:
        flight = size * found["calls"]
        print(
            f"a run of {found['calls']} replies of {size / 1e6:g} MB, {arguments.concurrency} at "
            f"a time, stored and loaded back: {flight / 1e6:g} MB (every reply is held)"
        )
    print(f"texts read: {found['sizes']} characters")
    print(
        f"tracemalloc peak {found['peak'] / 1e6:7.1f} MB  ({found['peak'] / flight:.2f} x that "
        "data)"
    )
    print(
        f"peak RSS growth  {found['rss'] / 1e6:7.1f} MB  ({found['rss'] / flight:.2f} x that data)"
    )


if __name__ == "__main__":
    main()
