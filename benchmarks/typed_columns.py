"""Typed columns: one SQLite table with a column per field, or Parquet parts beside the file?

Issue 29 asks that a run's observations be stored as typed columns, so that a load is one
columnar read. Two ways were measured side by side, in one process each, at the same size:

- ``sqlite``: a STRICT SQLite table with one column per field of an observation, read with one
  query, a block of rows at a time, into numpy arrays and categorical codes (what the store's
  load does: :func:`modelscape.store.typed.observation_columns`).
- ``parquet``: the same columns written as one Parquet file with pyarrow (dictionary-encoded
  text), read back with ``pyarrow.parquet.read_table`` into numpy arrays and codes.

Each is written once (not timed against the other: writes happen as outputs arrive), then read
in a fresh child process, so that the peak memory is the read's own. The rows look like the
scale benchmark's (two targets, ten levels, five repetitions, short answers).

    python benchmarks/typed_columns.py [--size 1000000] [--kinds sqlite,parquet]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from modelscape.store.migrations import apply

_COLUMNS = (
    "id", "experiment_id", "target", "target_id", "variant_id", "case_id", "coordinate",
    "repetition", "seed", "status", "attempts", "started", "duration", "text", "data", "model",
    "usage", "input_tokens", "output_tokens", "cost", "finish_reason", "latency", "error",
)  # fmt: skip


def rows(size: int) -> list[tuple[Any, ...]]:
    """``size`` observation rows, as the typed table holds them."""
    made = []
    for number in range(size):
        case, rest = divmod(number, 100)
        target, rest = divmod(rest, 50)
        level, repetition = divmod(rest, 5)
        made.append((
            f"{number:016x}", "e" * 16, f"t{target}", f"{target:016x}", f"v{case}-{level}",
            f"c{case}", json.dumps({"level": level}), repetition, 7, "ok", 1,
            1.7e9 + number * 1e-3, 0.001 * (number % 97), "no" if number % 3 else "yes",
            None, None, 0, 0, 0, None, None, None, None,
        ))  # fmt: skip
    return made


def write_sqlite(path: Path, made: list[tuple[Any, ...]]) -> None:
    connection = sqlite3.connect(path, isolation_level=None)
    connection.execute("BEGIN")
    apply(connection, 0)
    connection.executemany(
        f"INSERT INTO observations ({', '.join(_COLUMNS)}) "
        f"VALUES ({', '.join('?' * len(_COLUMNS))})",
        made,
    )
    connection.executemany(
        "INSERT INTO experiment_observations (experiment_id, observation_id) VALUES (?, ?)",
        [("e" * 16, row[0]) for row in made],
    )
    connection.execute("COMMIT")
    connection.close()


def write_parquet(path: Path, made: list[tuple[Any, ...]]) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    columns = list(zip(*made, strict=True))
    table = pa.table({name: list(values) for name, values in zip(_COLUMNS, columns, strict=True)})
    pq.write_table(table, path, use_dictionary=True)


def read_sqlite(path: Path) -> int:
    from modelscape.store.typed import observation_columns

    connection = sqlite3.connect(path)
    read = observation_columns(
        connection,
        "SELECT {columns} FROM experiment_observations AS e JOIN observations AS o "
        "ON o.id = e.observation_id WHERE e.experiment_id = ?",
        ("e" * 16,),
        "e" * 16,
    )
    return len(read)


def read_parquet(path: Path) -> int:
    import pyarrow.parquet as pq

    table = pq.read_table(path, read_dictionary=[n for n in _COLUMNS if n != "id"])
    held: dict[str, Any] = {}
    for name in _COLUMNS:
        column = table.column(name).combine_chunks()
        if name == "id":
            held[name] = column.to_pylist()
        elif hasattr(column, "indices"):
            held[name] = (column.indices.to_numpy(), column.dictionary.to_pylist())
        else:
            held[name] = column.to_numpy(zero_copy_only=False)
    return len(held["id"])


def child(kind: str, path: Path) -> dict[str, float]:
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    done = subprocess.run(
        [sys.executable, __file__, "--read", kind, "--path", str(path)],
        check=True,
        capture_output=True,
        text=True,
        env=env,
    )
    figures: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--size", type=int, default=1_000_000)
    parser.add_argument("--kinds", default="sqlite,parquet")
    parser.add_argument("--read", help=argparse.SUPPRESS)
    parser.add_argument("--path", type=Path, help=argparse.SUPPRESS)
    options = parser.parse_args()
    if options.read:
        started, cpu = time.perf_counter(), time.process_time()
        count = (read_sqlite if options.read == "sqlite" else read_parquet)(options.path)
        figures = {
            "rows": count,
            "seconds": time.perf_counter() - started,
            "cpu": time.process_time() - cpu,
            "peak_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        }
        print(json.dumps(figures))
        return
    kinds = options.kinds.split(",")
    made = rows(options.size)
    measured: dict[str, dict[str, float]] = {}
    print(f"load average {os.getloadavg()[0]:.2f}; {options.size} observations")
    print(f"{'kind':>8} {'bytes':>12} {'wall s':>8} {'cpu s':>8} {'peak MiB':>9}")
    with tempfile.TemporaryDirectory() as folder:
        for kind in kinds:
            path = Path(folder) / f"store.{kind}"
            (write_sqlite if kind == "sqlite" else write_parquet)(path, made)
            figures = measured[kind] = child(kind, path)
            assert figures["rows"] == options.size
            print(
                f"{kind:>8} {path.stat().st_size:>12} {figures['seconds']:>8.2f} "
                f"{figures['cpu']:>8.2f} {figures['peak_mib']:>9.0f}",
                flush=True,
            )
    if "sqlite" in measured and "parquet" in measured:
        a, b = measured["sqlite"], measured["parquet"]
        print(
            f"sqlite / parquet: time {a['seconds'] / b['seconds']:.2f}x, "
            f"peak memory {a['peak_mib'] / b['peak_mib']:.2f}x"
        )


if __name__ == "__main__":
    main()
