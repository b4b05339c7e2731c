"""Runs one experiment into a store, for the tests that kill or race whole processes.

    python subprocess_run.py STORE CALL_LOG [--name NAME] [--cases N] [--delay SECONDS]
        [--wait-for FILE] [--ready FILE]

Every call appends the request's seed hint to CALL_LOG before it answers; the file
``STORE.started`` appears once the run has begun asking.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from mapping_space import experiment, planted

from modelscape.execution.callable import CallableTarget
from modelscape.execution.runner import Progress, Runner
from modelscape.store.sqlite import SQLiteStore
from modelscape.target import TargetOutput, TargetRequest


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("store")
    parser.add_argument("log")
    parser.add_argument("--name", default="slow")
    parser.add_argument("--cases", type=int, default=8)
    parser.add_argument("--repetitions", type=int, default=4)
    parser.add_argument("--delay", type=float, default=0.05)
    parser.add_argument("--wait-for", help="a file whose appearance starts the run")
    parser.add_argument("--ready", help="a file made once the process waits at the line")
    options = parser.parse_args()
    if options.ready:
        Path(options.ready).touch()
    while options.wait_for and not os.path.exists(options.wait_for):
        time.sleep(0.005)
    rule = planted(options.name)
    log = os.open(options.log, os.O_WRONLY | os.O_CREAT | os.O_APPEND)

    async def slow(request: TargetRequest) -> TargetOutput:
        os.write(log, f"{request.seed}\n".encode())
        await asyncio.sleep(random.uniform(0.2, 1.8) * options.delay)
        return await rule(request)

    started = Path(options.store + ".started")

    def progress(update: Progress) -> None:
        started.touch()

    run = experiment(
        [CallableTarget(slow, name=options.name)],
        repetitions=options.repetitions,
        cases=options.cases,
    )
    store = SQLiteStore(options.store)
    results = Runner(store=store, on_progress=progress).run(run)
    print(len(results.observations), len(results.failed))


if __name__ == "__main__":
    main()
