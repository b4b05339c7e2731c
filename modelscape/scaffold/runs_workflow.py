"""A GitHub Actions workflow that runs a site's scenarios in shards, then merges and publishes.

``modelscape init --shards N --target T ...`` writes it as ``.github/workflows/runs.yml``. Its
matrix runs one job per scenario, target and shard (``modelscape run --shard I/N``); each job
uploads its store as an artifact. A last job downloads them all, merges each scenario's stores
(``modelscape merge --mixed``: a job of one target is an experiment of its own), runs each
scenario once more with every target on the merged store (every output is reused, so nothing
is asked unless a shard lost some; what spans shards and targets is measured), writes the
reports, commits the ``runs/`` folder back, and builds and deploys the site.

Actions is the scheduler: modelscape only makes each shard a deterministic, resumable part.

Every value given to ``init`` reaches the commands through an ``env:`` block, never pasted into
a ``run:`` line, as GitHub's security hardening guide asks: Actions expands ``${{ }}`` in a
``run:`` line before the shell reads it, so no quoting protects text written there. A target
is data in the matrix and in the environment, and the shell reads it as ``"$TARGET"``; one with
quotes, ``$`` or backticks in it runs nothing. A target holding ``${{`` is refused outright:
Actions would evaluate it wherever it is written (the matrix, an ``env:`` value), so the target
run would not be the one named, and a secret it names would become part of a target's name,
stored and published. Keys come from the repository's secrets through the workflow's own
``env:``. Scenario names are plain words (:data:`_SCENARIO`) and shards a number.

Each job installs modelscape with the extras its targets' kinds name (``providers`` for an
``openai:`` target, say), and the last job with ``search`` too, for the site's Pagefind index.
"""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Sequence

from modelscape._version import DISTRIBUTION
from modelscape.scaffold.vendored import FOLDER, with_extras
from modelscape.site.config import SiteError

__all__ = ["install_comment", "runs_workflow"]

_SCENARIO = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,99}")
# Artifact names may not hold ':', '/', '"', '<', '>', '|', '*', '?' or '\': a target's
# artifact is named by a slug of its spec and its position.
_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]+")
#: Jobs GitHub runs for one workflow's matrix at most.
MATRIX_LIMIT = 256


def _slug(index: int, target: str) -> str:
    return f"{index + 1}-{_UNSAFE.sub('-', target).strip('-')[:40] or 'target'}"


def install_comment(install: str, *, indent: int) -> str:
    """The comment above a workflow's install step: where modelscape comes from, and how to
    install a published release instead when it comes from the wheel in ``vendor/``."""
    if not install.endswith(".whl"):
        return ""
    pad = " " * indent
    return (
        f"{pad}# modelscape from {FOLDER}/, the wheel `modelscape init` wrote. Once the release\n"
        f"{pad}# is on the package index, install it by name instead\n"
        f"{pad}# ('{DISTRIBUTION}[...]==VERSION', or run `modelscape init --from-index`)\n"
        f"{pad}# and delete {FOLDER}/.\n"
    )


def _target_extras(targets: Sequence[str]) -> list[str]:
    """The extras of this distribution that the targets' kinds need (``providers``, ...)."""
    # Imported here: the registry reads entry points, which writing a workflow rarely needs.
    from modelscape.errors import ExecutionError
    from modelscape.targets.registry import find_provider

    extras = set()
    for target in targets:
        kind = target.split(":", 1)[0]
        try:
            provider = find_provider(kind)
        except ExecutionError:  # a kind this install cannot load: its extra is unknown here
            provider = None
        extra = provider.extra if provider is not None else None
        if extra is not None and extra.startswith(f"{DISTRIBUTION}["):
            extras.update(extra.removeprefix(f"{DISTRIBUTION}[").rstrip("]").split(","))
    return sorted(extras)


def _checked(scenarios: Sequence[str], targets: Sequence[str], shards: int) -> None:
    if not scenarios:
        raise SiteError("the runs workflow needs at least one scenario (a spec under specs/)")
    if not targets:
        raise SiteError("the runs workflow needs at least one target: name them with --target")
    for scenario in scenarios:
        if not _SCENARIO.fullmatch(scenario):
            raise SiteError(
                f"scenario {scenario!r}: a spec's name for the workflow is letters, digits, "
                "'_', '.' and '-' (the file specs/NAME.yaml)"
            )
    for target in targets:
        if not target.strip() or not target.isprintable():
            raise SiteError(f"target {target!r} must be one line of printable text")
        if "${{" in target:
            raise SiteError(
                f"target {target!r} holds '${{{{', which GitHub Actions would evaluate as an "
                "expression wherever the workflow holds it (and a secret named there would "
                "become part of the target's name, stored and published): name the target "
                "plainly; keys reach the runs from the repository's secrets (OPENAI_API_KEY, "
                "ANTHROPIC_API_KEY in the workflow's env)"
            )
    if len(set(targets)) != len(targets):
        raise SiteError("a target is named twice; each target runs once per shard")
    jobs = len(scenarios) * len(targets) * shards
    if shards < 1 or jobs > MATRIX_LIMIT:
        raise SiteError(
            f"{len(scenarios)} scenarios x {len(targets)} targets x {shards} shards make {jobs} "
            f"jobs; GitHub runs at most {MATRIX_LIMIT} per matrix and at least one shard is needed"
        )


def runs_workflow(
    *, install: str, scenarios: Sequence[str], targets: Sequence[str], shards: int
) -> str:
    """The workflow's YAML text for these scenarios (specs/NAME.yaml), targets and shards.

    ``install`` is the pip requirement of modelscape without extras (a wheel's path, or
    ``modelscape-map==X``); each job adds the extras it needs. Raises
    :class:`~modelscape.site.config.SiteError` naming what is wrong with the arguments.
    """
    _checked(scenarios, targets, shards)
    extras = _target_extras(targets)
    shard_install = shlex.quote(with_extras(install, extras))
    merge_install = shlex.quote(with_extras(install, [*extras, "search"]))
    comment = install_comment(install, indent=6)
    # JSON strings and lists are YAML flow scalars and sequences, quoted whatever they hold.
    matrix_targets = "\n".join(
        f"          - {{slug: {json.dumps(_slug(i, t))}, spec: {json.dumps(t)}}}"
        for i, t in enumerate(targets)
    )
    # Scenarios get keys s1, s2...: a glob by name would take "a-b"'s stores for "a"'s.
    matrix_scenarios = "\n".join(
        f"          - {{key: s{i + 1}, name: {json.dumps(n)}}}" for i, n in enumerate(scenarios)
    )
    # For the merge job, which has no matrix: data in its env, never text in its run: lines.
    pairs = json.dumps(" ".join(f"s{i + 1}:{n}" for i, n in enumerate(scenarios)))
    every_target = json.dumps("\n".join(targets))
    artifact = "store-${{ matrix.scenario.key }}-${{ matrix.target.slug }}-${{ matrix.shard }}"
    return f"""# Run every scenario against every target in {shards} shards, then merge, report and
# publish. Written by `modelscape init --shards`; edit the matrix to add scenarios or targets.
# Keys of hosted models come from the repository's secrets (Settings > Secrets > Actions).
name: runs

on:
  workflow_dispatch:

permissions:
  contents: read

env:
  OPENAI_API_KEY: ${{{{ secrets.OPENAI_API_KEY }}}}
  ANTHROPIC_API_KEY: ${{{{ secrets.ANTHROPIC_API_KEY }}}}

jobs:
  shard:
    runs-on: ubuntu-latest
    timeout-minutes: 360
    strategy:
      fail-fast: false
      matrix:
        scenario:
{matrix_scenarios}
        shard: {json.dumps(list(range(1, shards + 1)))}
        target:
{matrix_targets}
    steps:
      - uses: actions/checkout@v5
      - uses: actions/setup-python@v6
        with:
          python-version: "3.11"
{comment}      - name: install
        run: python -m pip install {shard_install}
      - name: run one shard
        env:
          SCENARIO: ${{{{ matrix.scenario.name }}}}
          TARGET: ${{{{ matrix.target.spec }}}}
          SHARD: ${{{{ matrix.shard }}}}/{shards}
        run: >-
          modelscape run "specs/$SCENARIO.yaml" --target "$TARGET" --store store.db
          --shard "$SHARD" --max-failures 100%
      - uses: actions/upload-artifact@v6
        with:
          name: {artifact}
          path: store.db
          retention-days: 7

  merge:
    needs: shard
    runs-on: ubuntu-latest
    timeout-minutes: 120
    permissions:
      contents: write
      pages: write
      id-token: write
    environment:
      name: github-pages
      url: ${{{{ steps.deployment.outputs.page_url }}}}
    steps:
      - uses: actions/checkout@v5
      - uses: actions/setup-python@v6
        with:
          python-version: "3.11"
{comment}      - name: install
        run: python -m pip install {merge_install}
      - uses: actions/download-artifact@v7
        with:
          pattern: store-*
          path: stores
      - name: merge, measure and report each scenario
        env:
          SCENARIOS: {pairs}
          TARGETS: {every_target}
        run: |
          set -euo pipefail
          targets=()
          while IFS= read -r target; do
            targets+=(--target "$target")
          done <<< "$TARGETS"
          for pair in $SCENARIOS; do
            key="${{pair%%:*}}" scenario="${{pair#*:}}"
            mkdir -p "runs/$scenario"
            modelscape merge --mixed stores/store-"$key"-*/store.db -o "runs/$scenario/store.db"
            modelscape run "specs/$scenario.yaml" "${{targets[@]}}" \\
              --store "runs/$scenario/store.db" --report "runs/$scenario/report.json"
          done
      - name: commit the runs
        run: |
          git config user.name "modelscape runs"
          git config user.email "runs@users.noreply.github.com"
          git add runs
          git commit -m "Runs of $GITHUB_SHA, merged from {shards} shards" || echo "no change"
          git push
      - id: pages
        uses: actions/configure-pages@v6
      - name: build the site
        env:
          BASE_URL: ${{{{ steps.pages.outputs.base_url }}}}
        run: >-
          modelscape build . -o site --strict
          --base-url "$BASE_URL/"
      - uses: actions/upload-pages-artifact@v4
        with:
          path: site
      - id: deployment
        uses: actions/deploy-pages@v5
"""
