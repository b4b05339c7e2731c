"""A plugin distribution installed into a folder, as pip would leave it, for entry point tests."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest


def install_plugin(
    folder: Path,
    monkeypatch: pytest.MonkeyPatch,
    *,
    module: str,
    source: str,
    group: str,
    entry_points: str,
) -> None:
    """Write ``module`` with ``source`` and a dist-info registering ``entry_points`` (lines of
    ``name = module:attribute``) under ``group``, and put the folder on the import path for the
    test (the module is imported afresh)."""
    (folder / f"{module}.py").write_text(source, encoding="utf-8")
    distribution = module.replace("_", "-")
    info = folder / f"{module}-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: {distribution}\nVersion: 0.1\n", encoding="utf-8"
    )
    (info / "entry_points.txt").write_text(f"[{group}]\n{entry_points}", encoding="utf-8")
    monkeypatch.syspath_prepend(str(folder))
    monkeypatch.delitem(sys.modules, module, raising=False)
