"""What several store tests share: records written directly (without a run), a small stored
run, a way to damage a file, and the read-only probe script."""

from __future__ import annotations

from pathlib import Path

from modelscape.execution.runner import Runner
from modelscape.results.records import Observation
from modelscape.store.sqlite import SQLiteStore
from modelscape.target import TargetOutput
from tests.support.mapping_space import experiment, planted

#: Opens a store as ``modelscape report`` would; run inside a read-only mount.
PROBE = Path(__file__).parent / "readonly_probe.py"


def observation(oid: str, status: str = "ok", text: str = "yes", run: str = "e1") -> Observation:
    """An observation of experiment ``run`` with output ``text``."""
    return Observation(
        id=oid,
        experiment_id=run,
        target="t",
        target_id="tid",
        variant_id="v",
        case="c",
        coordinate={"level": 0},
        repetition=0,
        seed=1,
        status=status,  # type: ignore[arg-type]
        output=TargetOutput(text=text, error=None if status == "ok" else "boom"),
    )


def stored_run(path: Path) -> str:
    """Run the shared experiment into a new store at ``path``; the experiment's id."""
    store = SQLiteStore(path)
    run = experiment([planted()])
    Runner(store=store).run(run)
    store.close()
    return run.id


def damage(path: Path) -> None:
    """Overwrite most pages after the first with garbage, as a failing disk might."""
    data = bytearray(path.read_bytes())
    page = 4096
    for start in range(page, len(data), page * 2):
        data[start + 100 : start + 1000] = b"\xff" * 900
    path.write_bytes(bytes(data))
