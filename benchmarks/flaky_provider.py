"""A run against a flaky provider: does it finish in one invocation, and at what cost?

A loopback chat-completions server (tests/targets/providers/flaky_server.py) fails a share of its
requests at random, seeded: HTTP 429 with a short Retry-After, HTTP 500, a hang past the
client's timeout, or a body cut off mid-way, each a quarter of the faults. The run asks it
``--observations`` observations (20,000 by default) into a SQLite file in a temporary folder
and prints the ok share, the retries, the timeouts (and the false ones: timeouts beyond the
hangs the server really made), the wall time and the peak RSS of the process (the server runs
in a thread of the same process, so its memory is included).

    python benchmarks/flaky_provider.py [--observations N] [--faults 0.25] [--timeout 0.25]

Measured once (nice -n 10, 2 shared cores, defaults): 20,000 observations, ok share 0.9993
(14 failed), not stopped, 6,658 retries, 1,649 timeouts against 1,639 hangs (10 beyond them),
150 s wall time, peak RSS 223 MiB. Before the breaker told flaky from dead, such a run stopped
after "10 identical failures in a row: timed out" with nearly every observation not asked.
"""

from __future__ import annotations

import argparse
import asyncio
import resource
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from modelscape.results.results import run_of

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from modelscape.execution.config import ExecutionConfig, RetryPolicy
from modelscape.execution.runner import Progress, Runner
from modelscape.store.sqlite import SQLiteStore
from modelscape.targets.protocol import TargetOutput, TargetRequest
from modelscape.targets.providers import HttpOptions, OpenAICompatibleTarget
from tests.support.mapping_space import scenario
from tests.targets.providers.flaky_server import FlakyServer


class Counted(OpenAICompatibleTarget):
    """The provider target, counting the calls cut off by their timeout."""

    timeouts = 0

    async def __call__(self, request: TargetRequest) -> TargetOutput:
        try:
            return await super().__call__(request)
        except asyncio.CancelledError:  # nothing else cancels a call in this benchmark
            Counted.timeouts += 1
            raise


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--observations", type=int, default=20_000)
    parser.add_argument("--faults", type=float, default=0.25)
    parser.add_argument("--timeout", type=float, default=0.25)
    parser.add_argument("--hang", type=float, default=0.5)
    parser.add_argument("--concurrency", type=int, default=64)
    options = parser.parse_args()
    # The mapping space has 5 variants per case; 10 repetitions of each.
    cases = max(1, options.observations // (5 * 10))
    server = FlakyServer(faults=options.faults, hang=options.hang, seed=1).start()
    last: list[Progress] = []
    try:
        target = Counted(
            "m", base_url=server.url, http=HttpOptions(max_concurrency=options.concurrency)
        )
        config = ExecutionConfig(
            concurrency=options.concurrency,
            timeout=options.timeout,
            retry=RetryPolicy(attempts=6, initial_delay=0.05, max_delay=0.5),
        )
        run: Any = scenario(cases, 10).experiment([target], config)
        with tempfile.TemporaryDirectory() as folder:
            store = SQLiteStore(Path(folder) / "runs.db")
            runner = Runner(store=store, on_progress=last.append)
            started = time.perf_counter()
            results = runner.run(run)
            wall = time.perf_counter() - started
            store.close()
    finally:
        server.stop()
    total = len(run_of(results).observations)
    ok = total - len(run_of(results).failed)
    hangs = server.answers["hang"]
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"observations   {total} (of {run.calls()} planned)")
    print(f"ok share       {ok / total:.4f} ({ok} ok, {len(run_of(results).failed)} failed)")
    print(f"stopped        {runner.health['m'].stopped}")
    print(f"retries        {last[-1].retries}")
    print(f"server answers {dict(server.answers)}")
    print(f"timeouts       {Counted.timeouts} ({Counted.timeouts - hangs} beyond the hangs)")
    print(f"wall time      {wall:.1f} s")
    print(f"peak RSS       {peak:.0f} MiB")


if __name__ == "__main__":
    main()
