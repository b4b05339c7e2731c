"""YAML reading with YAML 1.2 booleans: only true and false are booleans.

PyYAML follows YAML 1.1, where yes, no, on, off, y and n are booleans too, so a spec's
``choices: [yes, no]`` would silently become ``[true, false]``. Specs and lexicons are read with
this loader instead, so those words stay text.
"""

from __future__ import annotations

import re
from typing import Any

import yaml

__all__ = ["SpecLoader", "load_yaml"]


class SpecLoader(yaml.SafeLoader):
    """A safe loader whose booleans are exactly true and false (any case)."""


SpecLoader.yaml_implicit_resolvers = {
    first: [(tag, regex) for tag, regex in resolvers if tag != "tag:yaml.org,2002:bool"]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}
SpecLoader.add_implicit_resolver(
    "tag:yaml.org,2002:bool",
    re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"),
    list("tTfF"),
)


def load_yaml(text: str) -> Any:
    """Parse one YAML document with YAML 1.2 booleans."""
    return yaml.load(text, Loader=SpecLoader)  # SpecLoader is a SafeLoader: no arbitrary tags
