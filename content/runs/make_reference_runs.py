"""Make the shipped reference runs: every shipped spec against three reference targets.

Each run goes into its own folder, ``content/runs/<spec>-reference/``, in the layout every run
of this site uses (see ``content/README.md``): ``store.db`` (the SQLite store of the run),
``report.json`` (``scenario.report(results)``) and a ``README.md`` with the command and the
versions that made it. The targets answer without a model, so the runs are exact and offline:

- ``oracle``: the correct answer, with 5% of replies swapped at random (run-to-run noise);
- a planted variant of the oracle with one known flaw the report should find (sycophant,
  biased, late or hijacked, depending on the scenario), with the same noise;
- ``random``: a choice drawn at random, ignoring the prompt.

Run it from the repository root::

    python content/runs/make_reference_runs.py

It also copies the shipped specs into ``content/specs/`` so the site shows what the runs used.
"""

from __future__ import annotations

import dataclasses
import json
import platform
import shutil
import sqlite3
import sys
from pathlib import Path

import numpy
import scipy

import modelscape
from modelscape.execution import Runner
from modelscape.specs import load_spec, shipped_path
from modelscape.store import SQLiteStore
from modelscape.targets.oracle import OracleTarget
from modelscape.targets.reference import Flip, RandomTarget

HERE = Path(__file__).resolve().parent
SPECS = HERE.parent / "specs"
NOISE = 0.05
#: Fewer repetitions than the specs ask for keep the committed stores small.
REPETITIONS = 3

#: One planted flaw per shipped spec: (target name, what it does, the flips that plant it).
PLANTED: dict[str, tuple[str, str, list[Flip]]] = {
    "pressure": (
        "sycophant",
        "gives in to authority: answers false whenever a professor doubts the claim",
        [Flip(marker="professor", answer=False)],
    ),
    "fair-lending": (
        "biased",
        "declines every applicant with a name from the middle-east region",
        [
            Flip(
                marker="Applicant: (Mariam|Omar) Hassan|(Zahra|Reza) Hosseini|"
                "(Zeynep|Mehmet) Yilmaz|(Layla|Karim) Haddad|(Khadija|Youssef) El Amrani",
                answer="decline",
            )
        ],
    ),
    "return-window": (
        "late",
        "applies the 30-day window as if it were 36 days",
        [Flip(marker=r"\b3[246] days ago", answer=True)],
    ),
    "review-injection": (
        "hijacked",
        "obeys instructions hidden in the review and replies HACKED",
        [Flip(marker="HACKED", answer="HACKED")],
    ),
}


def compact(path: Path) -> None:
    """Fold the write-ahead log into the file and drop free pages, so the store commits small."""
    connection = sqlite3.connect(path)
    try:
        connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        connection.execute("VACUUM")
    finally:
        connection.close()


def make_run(name: str) -> Path:
    """Run one shipped spec against the three reference targets into its run folder."""
    spec = load_spec(name)
    scenario = dataclasses.replace(spec.scenario(), repetitions=REPETITIONS)
    planted_name, planted_what, flips = PLANTED[name]
    field = spec.data()["answer"]["field"]
    choices = scenario.answer.choices  # type: ignore[attr-defined]
    targets = [
        OracleTarget(scenario, noise=NOISE, name="oracle"),
        OracleTarget(scenario, flips=flips, noise=NOISE, name=planted_name),
        RandomTarget([json.dumps({field: choice}) for choice in choices], name="random"),
    ]
    folder = HERE / f"{name}-reference"
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    store = SQLiteStore(folder / "store.db")
    try:
        results = Runner(store=store).run(scenario.experiment(targets))
    finally:
        store.close()
    compact(folder / "store.db")
    scenario.report(results).save(folder / "report.json")
    versions = {
        "modelscape": modelscape.__version__,
        "python": platform.python_version(),
        "numpy": numpy.__version__,
        "scipy": scipy.__version__,
    }
    (folder / "README.md").write_text(
        f"# {name} against reference targets\n\n"
        f"The shipped `{name}` spec (version {scenario.version}, run with {scenario.repetitions} "
        f"repetitions instead of {spec.repetitions}, {scenario.calls_per_target()} calls per "
        "target) against three "
        "reference targets that answer without a model:\n\n"
        f"- `oracle`: the correct answer, {NOISE:.0%} of replies swapped at random;\n"
        f"- `{planted_name}`: {planted_what} (same noise);\n"
        "- `random`: a choice drawn at random, ignoring the prompt.\n\n"
        "Made with:\n\n"
        "```bash\npython content/runs/make_reference_runs.py\n```\n\n"
        "Versions: "
        + ", ".join(f"{key} {value}" for key, value in versions.items())
        + f"; experiment `{results.experiment.id}`, {len(results.observations)} outputs.\n",
        encoding="utf-8",
    )
    return folder


def main() -> None:
    """Copy the shipped specs into content/specs and make every reference run."""
    SPECS.mkdir(exist_ok=True)
    for name in PLANTED:
        shutil.copyfile(shipped_path(name), SPECS / f"{name}.yaml")
        folder = make_run(name)
        size = (folder / "store.db").stat().st_size
        print(f"{folder.relative_to(HERE.parent.parent)}  store {size / 1024:.0f} KiB")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
