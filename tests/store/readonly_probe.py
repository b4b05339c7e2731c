"""Opens a store the way `modelscape report` would, for the read-only file system test.

    python readonly_probe.py STORE

Run inside a mount namespace where the store's folder is mounted read-only. Prints the store's
mode, experiments and observations, then tries a write and prints the error it got.
"""

from __future__ import annotations

import sys

from modelscape.errors import StoreError
from modelscape.results.results import Results, run_of
from modelscape.store.sqlite import SQLiteStore


def main() -> None:
    store = SQLiteStore(sys.argv[1])
    print("read_only", store.read_only)
    for record in store.experiments():
        results = Results.load(store, record.id)
        print("experiment", record.id, len(run_of(results).observations))
    try:
        store.save_experiment(store.experiments()[0], [])
    except StoreError as error:
        print("write refused:", error)
    store.close()


if __name__ == "__main__":
    main()
