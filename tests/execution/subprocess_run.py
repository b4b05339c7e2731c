"""Runs one experiment into a store, for the tests that kill or race whole processes.

    python -m tests.execution.subprocess_run STORE CALL_LOG [--name NAME] [--cases N]
        [--delay SECONDS] [--wait-for FILE]

Every call appends the request's seed hint to CALL_LOG before it answers. On stderr the
process says ``waiting`` when it waits for FILE and ``started`` once the run has stored its
first observation, so a test waits for these events rather than for a time.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import sys
import time

from modelscape.execution.runner import Progress, Runner
from modelscape.results.results import run_of
from modelscape.store.sqlite import SQLiteStore
from modelscape.targets._callable import CallableTarget
from modelscape.targets.protocol import TargetOutput, TargetRequest
from tests.support.mapping_space import experiment, planted


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("store")
    parser.add_argument("log")
    parser.add_argument("--name", default="slow")
    parser.add_argument("--cases", type=int, default=8)
    parser.add_argument("--repetitions", type=int, default=4)
    parser.add_argument("--delay", type=float, default=0.05)
    parser.add_argument("--wait-for", help="a file whose appearance starts the run")
    options = parser.parse_args()
    if options.wait_for:
        print("waiting", file=sys.stderr, flush=True)
    while options.wait_for and not os.path.exists(options.wait_for):
        time.sleep(0.005)
    rule = planted(options.name)
    log = os.open(options.log, os.O_WRONLY | os.O_CREAT | os.O_APPEND)

    async def slow(request: TargetRequest) -> TargetOutput:
        os.write(log, f"{request.seed}\n".encode())
        await asyncio.sleep(random.uniform(0.2, 1.8) * options.delay)
        return await rule(request)

    said: list[bool] = []

    def progress(update: Progress) -> None:
        if update.done and not said:
            said.append(True)
            print("started", file=sys.stderr, flush=True)

    run = experiment(
        [CallableTarget(slow, name=options.name)],
        repetitions=options.repetitions,
        cases=options.cases,
    )
    store = SQLiteStore(options.store)
    results = Runner(store=store, on_progress=progress).run(run)
    indexed = run_of(results)
    print(len(indexed.observations), len(indexed.failed))


if __name__ == "__main__":
    main()
