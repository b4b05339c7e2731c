"""Specs: scenarios written as YAML, and the shipped ones loadable by name."""

from __future__ import annotations

import difflib
from importlib.resources import files
from os import PathLike
from pathlib import Path

from modelscape.errors import SpecError
from modelscape.specs.model import AnswerSpec, Range, Varied
from modelscape.specs.spec import Spec

__all__ = ["AnswerSpec", "Range", "Spec", "Varied", "available", "load_spec", "shipped_path"]


def available() -> tuple[str, ...]:
    """The names of the specs that ship with modelscape."""
    folder = files("modelscape.specs") / "shipped"
    return tuple(
        sorted(p.name[: -len(".yaml")] for p in folder.iterdir() if p.name.endswith(".yaml"))
    )


def shipped_path(name: str) -> Path:
    """The file of a shipped spec."""
    if name not in available():
        hint = difflib.get_close_matches(name, available(), n=1)
        extra = f" (did you mean {hint[0]!r}?)" if hint else ""
        raise SpecError(f"no shipped spec {name!r}{extra}; shipped: {', '.join(available())}")
    return Path(str(files("modelscape.specs") / "shipped" / f"{name}.yaml"))


def load_spec(name_or_path: str | PathLike[str]) -> Spec:
    """A spec from a YAML file, or a shipped spec by name (such as ``pressure``)."""
    path = Path(name_or_path)
    if path.suffix in (".yaml", ".yml") or path.exists():
        if not path.exists():
            raise SpecError(f"{path}: no such file")
        return Spec.load(path)
    return Spec.load(shipped_path(str(name_or_path)))
