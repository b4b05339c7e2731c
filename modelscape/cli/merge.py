"""The ``merge`` command: the stores of a run's shards (or of several runs) into one."""

from __future__ import annotations

from pathlib import Path

import click

from modelscape.errors import CommandError

__all__ = ["register"]


@click.command()
@click.argument("sources", nargs=-1, required=True)
@click.option(
    "-o",
    "--output",
    required=True,
    help="The store to merge into: a SQLite file (created if missing) or a store URL. "
    "Merging again adds nothing new.",
)
@click.option(
    "--mixed",
    is_flag=True,
    help="Allow stores of different experiments (by default a merge gathers the shards of "
    "one run and refuses anything else).",
)
def merge(sources: tuple[str, ...], output: str, mixed: bool) -> None:
    """Merge the stores SOURCES into one: the union of their records, by content id.

    Each SOURCE is a SQLite file or a store URL, such as the stores of the shards of one run
    (`modelscape run --shard I/N`). Afterwards, run the experiment once more on the merged
    store without --shard: it asks nothing and measures what spans shards; then report.
    """
    from modelscape.store import Store, open_store
    from modelscape.store.merge import merge_stores

    def same(a: str, b: str) -> bool:
        try:
            return Path(a).resolve() == Path(b).resolve()
        except (OSError, RuntimeError, ValueError):
            return False

    if any(same(s, output) for s in sources if "://" not in s):
        raise CommandError(f"{output} is both a source and the output; name another output")
    opened: list[tuple[str, Store]] = []
    outputs: list[Store] = []

    def output_store() -> Store:
        # Opened (and a new file made) only once every source was read and checked.
        outputs.append(open_store(output))
        return outputs[0]

    try:
        for name in sources:
            opened.append((name, open_store(name, read_only=True, create=False)))
        merged = merge_stores(opened, output_store, mixed=mixed)
    finally:
        for store in [*outputs, *(store for _, store in opened)]:
            store.close()
    if not merged:
        click.echo(f"the sources hold no experiment; {output} is unchanged")
    for m in merged:
        click.echo(
            f"experiment {m.experiment}: {m.read} observations read, {m.added} new, "
            f"{m.ok} ok in {output}"
        )


def register(main: click.Group) -> None:
    """Add the ``merge`` command to the ``modelscape`` command group."""
    main.add_command(merge)
