"""Page size and render time: how a report page grows with its run, against the 2.1 MB budget.

Runs every shipped spec against two reference targets (one planted with noise, one random),
builds the report, renders the report page and the scenario page, and prints per page: bytes,
the share taken by the compressed plotting bundle, the share by embedded outputs, the number
of embedded outputs against the run's, and render seconds. Ratios are measured in this run.

    python benchmarks/pages_size.py [--repetitions N]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from modelscape.execution import Runner
from modelscape.pages import ReportPage, ScenarioPage
from modelscape.pages.page import json_script, plotly_bundle
from modelscape.results.results import run_of
from modelscape.specs import available, load_spec
from modelscape.store import SQLiteStore
from modelscape.targets._reference import RandomTarget, ScriptedTarget

BUDGET = 2_100_000


def _noisy(field: str, choices: list[str]) -> ScriptedTarget:
    """A target whose answer follows the prompt's length, so answers move with the wording."""

    def reply(text: str) -> dict[str, object]:
        return {field: choices[len(text) % len(choices)]}

    return ScriptedTarget(reply, name="scripted")


def main() -> None:
    """Measure every shipped spec and print one row per page."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repetitions", type=int, default=5)
    parser.parse_args()
    bundle = len(plotly_bundle())
    print(f"plotting bundle, compressed and base64-encoded: {bundle / 1e3:.0f} kB")
    print(
        f"{'spec':<18} {'page':<9} {'bytes':>10} {'budget':>7} {'bundle':>7} "
        f"{'outputs':>8} {'embedded':>9} {'seconds':>8}"
    )
    with tempfile.TemporaryDirectory() as folder:
        for name in available():
            spec = load_spec(name)
            scenario = spec.scenario()
            started = time.perf_counter()
            html = ScenarioPage(scenario).html()
            seconds = time.perf_counter() - started
            size = len(html.encode())
            print(
                f"{name:<18} {'scenario':<9} {size:>10,} {size / BUDGET:>7.1%} {'—':>7} "
                f"{'—':>8} {'—':>9} {seconds:>8.2f}"
            )
            identity = scenario.answer.identity.parameters
            field = str(identity.get("field", "answer"))
            listed = identity.get("choices")
            choices = (
                [str(c).lower() for c in listed] if isinstance(listed, list) else ["yes", "no"]
            )
            store = SQLiteStore(Path(folder) / f"{name}.db")
            try:
                experiment = scenario.experiment(
                    [
                        _noisy(field, choices),
                        RandomTarget([f'{{"{field}": "{c}"}}' for c in choices]),
                    ]
                )
                results = Runner(store=store).run(experiment)
            finally:
                store.close()
            report = scenario.report(results)
            started = time.perf_counter()
            page = ReportPage(report, results)
            html = page.html()
            seconds = time.perf_counter() - started
            size = len(html.encode())
            evidence = page.context()["evidence"]
            data = len(str(json_script(evidence)).encode())
            print(
                f"{name:<18} {'report':<9} {size:>10,} {size / BUDGET:>7.1%} "
                f"{bundle / size:>7.1%} {len(run_of(results).observations):>8} "
                f"{len(evidence['observations']):>9} {seconds:>8.2f}   (outputs data "
                f"{data / size:.1%})"
            )


if __name__ == "__main__":
    main()
