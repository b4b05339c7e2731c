"""What several store tests share: records written directly (without a run), a small stored
run, a way to damage a file, and the read-only probe script."""

from __future__ import annotations

import sys
from pathlib import Path

from modelscape.execution.runner import Runner
from modelscape.records.stored import Observation
from modelscape.store.sqlite import SQLiteStore
from modelscape.targets.protocol import TargetOutput
from tests.support.mapping_space import experiment, planted
from tests.support.readonly import run_with_read_only

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


def check_read_only_store(mount: Path, path: Path) -> None:
    """Store a run at ``path``, mount ``mount`` (the file or its folder) read-only, and check in
    that mount that the store opens read-only, reads the run and refuses to write."""
    run = stored_run(path)
    done = run_with_read_only(mount, [sys.executable, str(PROBE), str(path)])
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "read_only True"
    assert lines[1] == f"experiment {run} 20"
    assert lines[2].startswith("write refused:")
    assert "open read-only" in lines[2]
