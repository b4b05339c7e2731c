"""Large replies cost about their own size, not several copies of it.

A chat server in a process of its own (so that only this process's allocations are traced)
answers every call with a reply of several megabytes. A run of ten such calls, eight at a
time, stored in SQLite and loaded back, once held each reply's bytes, the pieces joined from
them, the text they decode to and the JSON made to store it, and its load parsed the run's
rows joined into one more copy: its peak was over three times the data. Now the bytes are
read into one buffer, dropped once decoded, written a few megabytes of JSON at a time and
read back row by row, so the peak stays near the data itself.
"""

from __future__ import annotations

import subprocess
import sys
import tracemalloc
from collections.abc import Iterator
from pathlib import Path

import pytest

from modelscape.execution.config import ExecutionConfig
from modelscape.execution.runner import Runner
from modelscape.results.results import run_of
from modelscape.store import SQLiteStore
from modelscape.targets._resolve import resolve_target
from tests.support.mapping_space import scenario

pytestmark = pytest.mark.slow  # starts a server in a process of its own

#: The size of every reply's text.
SIZE = 4_000_000

SERVER = r"""
import json, socket, sys
from aiohttp import web

size = int(sys.argv[1])
text = ("0123456789abcdef" * (size // 16 + 1))[:size]
body = json.dumps({
    "id": "c", "object": "chat.completion", "model": "big",
    "choices": [{"index": 0, "message": {"role": "assistant", "content": text},
                 "finish_reason": "stop"}],
}).encode()


async def answer(request):
    await request.read()
    return web.Response(body=body, content_type="application/json")


app = web.Application()
app.router.add_post("/{tail:.*}", answer)
listening = socket.socket()
listening.bind(("127.0.0.1", 0))
print(listening.getsockname()[1], flush=True)  # the port: the test reads it, then calls
web.run_app(app, sock=listening, print=None)
"""


@pytest.fixture
def big_replies() -> Iterator[str]:
    """The root of a server whose every reply holds ``SIZE`` characters of text."""
    server = subprocess.Popen(
        [sys.executable, "-c", SERVER, str(SIZE)], stdout=subprocess.PIPE, text=True
    )
    assert server.stdout is not None
    port = int(server.stdout.readline())  # written once the socket is bound and listening
    yield f"http://127.0.0.1:{port}/v1"
    server.terminate()
    server.wait(30)
    server.stdout.close()


def test_a_run_of_large_replies_peaks_near_the_data_it_holds(
    big_replies: str, tmp_path: Path
) -> None:
    target = resolve_target(f"openai-compatible:big@{big_replies}")
    experiment = scenario(cases=1, repetitions=2).experiment([target], ExecutionConfig())
    data = experiment.calls() * SIZE
    store = SQLiteStore(tmp_path / "runs.db")
    tracemalloc.start()
    try:
        results = Runner(store=store).run(experiment)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
        store.close()
    assert [len(o.output.text) for o in run_of(results).observations] == [SIZE] * experiment.calls()
    # Loose on purpose: it holds every reply once (the results keep them all), and a few in
    # flight are read, decoded or written at any moment; over three times the data is copies.
    assert peak < 2 * data, f"peak {peak / 1e6:.0f} MB for {data / 1e6:.0f} MB of replies"
