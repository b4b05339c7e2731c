"""The ``build``, ``serve`` and ``init`` commands: a content folder as a static site."""

from __future__ import annotations

from pathlib import Path

import click

__all__ = ["register"]

_CONTENT = click.argument(
    "content", default="content", type=click.Path(file_okay=False, path_type=Path)
)
_OUTPUT = click.option(
    "-o",
    "--output",
    default="site",
    show_default=True,
    type=click.Path(file_okay=False, path_type=Path),
    help="The folder the site is written to.",
)


@click.command()
@_CONTENT
@_OUTPUT
@click.option(
    "--base-url",
    help="The address the site is published at (https://USER.github.io/PROJECT/); "
    "the sitemap and the 404 page need it. Overrides site.yaml.",
)
@click.option("--strict", is_flag=True, help="Fail on any warning (broken link, missing store).")
@click.option(
    "--force",
    is_flag=True,
    help="Render every page, even the unchanged ones; and build into a folder a modelscape "
    "build did not make (what it holds is replaced by the site).",
)
@click.option(
    "--max-file-mb",
    type=click.FloatRange(min=0, min_open=True),
    help="Warn about any file of the site larger than this (default: max_file_mb in "
    "site.yaml, else 50; GitHub Pages refuses files over 100 MB).",
)
@click.option(
    "--workers",
    type=click.IntRange(min=1),
    help="Processes that render pages (default: one per core when many pages change, else 1); "
    "the site is the same whatever the number.",
)
def build(
    content: Path,
    output: Path,
    base_url: str | None,
    strict: bool,
    force: bool,
    max_file_mb: float | None,
    workers: int | None,
) -> None:
    """Build the static site of CONTENT (default: ./content) into --output.

    CONTENT holds site.yaml, pages/*.md, specs/*.yaml and runs/NAME/ folders (report.json,
    store.db, README.md). Only pages whose inputs changed since the last build are rendered.
    Nothing outside CONTENT is read (links leaving it, and links into hidden files such as
    .git/ or .env, are skipped with a warning) and nothing outside --output is written.
    --output must be empty, new, or made by an earlier build; it then holds only the site
    (files the build did not write are removed, and pages changed since are made again).
    """
    from modelscape.site import build_site

    result = build_site(
        content,
        output,
        base_url=base_url,
        strict=strict,
        force=force,
        max_file_mb=max_file_mb,
        workers=workers,
    )
    for warning in result.warnings:
        click.echo(f"warning: {warning}", err=True)
    for note in result.notes:
        click.echo(f"note: {note}", err=True)
    click.echo(result.summary())
    click.echo(f"open {(output / 'index.html').resolve().as_uri()}")


@click.command()
@_CONTENT
@_OUTPUT
@click.option("--port", default=8000, show_default=True, type=click.IntRange(0, 65535))
def serve(content: Path, output: Path, port: int) -> None:
    """Preview the site of CONTENT on 127.0.0.1, rebuilt and reloaded on every change."""
    from modelscape.scaffold import serve_site
    from modelscape.site import BuildResult

    def report(outcome: BuildResult | Exception) -> None:
        if isinstance(outcome, Exception):
            click.echo(f"error: {outcome}", err=True)
            return
        for warning in outcome.warnings:
            click.echo(f"warning: {warning}", err=True)
        click.echo(outcome.summary())

    def started(url: str) -> None:
        click.echo(f"serving {output} at {url} (Ctrl-C stops)")

    serve_site(content, output, port=port, on_build=report, on_start=started)


@click.command()
@click.argument("folder", type=click.Path(file_okay=False, path_type=Path))
@click.option("--title", help="The site's title (default: the folder's name).")
@click.option(
    "--shards",
    type=click.IntRange(min=1),
    help="Also write .github/workflows/runs.yml: a matrix of one job per target and shard, "
    "then a job that merges the stores, reports and publishes.",
)
@click.option(
    "--target",
    "targets",
    multiple=True,
    help="A target for the runs workflow, as for `modelscape run` (repeatable; with --shards).",
)
@click.option(
    "--from-index",
    is_flag=True,
    help="Make the workflows install this version of modelscape-map from the package index, "
    "once it is published there, instead of the wheel written to FOLDER/vendor/.",
)
def init(
    folder: Path,
    title: str | None,
    shards: int | None,
    targets: tuple[str, ...],
    from_index: bool,
) -> None:
    """Create a site project in FOLDER: settings, a page, a spec, and a Pages workflow.

    The workflows install modelscape from vendor/, where init writes the wheel of the
    modelscape that runs it, so pushing to GitHub builds and deploys the site with no release
    published anywhere; --from-index installs the release by name instead.
    """
    from modelscape.scaffold import init_site

    if shards is not None and not targets:
        raise click.UsageError("--shards runs targets: name them with --target")
    made = init_site(folder, title=title, shards=shards, targets=targets, from_index=from_index)
    for path in made:
        click.echo(f"wrote {path}")
    click.echo(f"next: modelscape build {folder} -o site")  # as the README shows


def register(main: click.Group) -> None:
    """Add the ``build``, ``serve`` and ``init`` commands to the ``modelscape`` group."""
    main.add_command(build)
    main.add_command(serve)
    main.add_command(init)
