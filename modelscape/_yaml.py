"""YAML reading for every file modelscape reads: YAML 1.2 booleans, and limits.

PyYAML follows YAML 1.1, where yes, no, on, off, y and n are booleans too, so a spec's
``choices: [yes, no]`` would silently become ``[true, false]``. Every YAML input is read with
:class:`SpecLoader` instead, so those words stay text.

YAML files come from contributors (a spec or a page in a pull request), and a few hundred
bytes of YAML can describe gigabytes: aliases (``*name``) repeat a whole node, so nine nested
lists of nine aliases expand to 9⁹ values. The loader keeps every document within
:class:`YamlLimits` and fails, in milliseconds and with the line at fault, on

- a file larger than ``size`` bytes, or one that is not UTF-8 (read_yaml_text);
- nesting deeper than ``depth``, counted as the document expands (an alias nests what it
  repeats) and checked while composing, before Python's recursion limit is near;
- more than ``aliases`` aliases, or a list or mapping of more than ``items`` entries;
- a document that expands, aliases repeated, to more than ``expanded`` units (one per node
  and one per character of text), or an alias that contains itself.

Limits are counted on the composed node graph, where an alias is one shared node, so
checking them costs time in the size of the file, never of its expansion.

Every problem is a :class:`yaml.YAMLError`, so callers that already catch YAML errors catch
these too; :func:`describe` turns any of them into one line with its place.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from os import PathLike
from pathlib import Path
from typing import Any

import yaml
from yaml.events import AliasEvent
from yaml.nodes import Node, ScalarNode, SequenceNode

__all__ = [
    "LIMITS",
    "SpecLoader",
    "YamlLimitError",
    "YamlLimits",
    "describe",
    "load_yaml",
    "read_yaml",
    "read_yaml_text",
]


@dataclass(frozen=True)
class YamlLimits:
    """How large a YAML document may be, read and expanded.

    The defaults are far above any spec, lexicon or settings file a person writes (the
    largest lexicon a slot takes has 10,000 entries) and far below what would strain a build.
    """

    size: int = 2 * 2**20
    depth: int = 64
    aliases: int = 1_000
    items: int = 10_000
    expanded: int = 4 * 2**20


#: The limits every YAML input is read with.
LIMITS = YamlLimits()


class YamlLimitError(yaml.MarkedYAMLError):
    """A YAML input over one of its limits, not UTF-8, or referring to itself."""

    def __init__(self, problem: str, mark: Any) -> None:
        super().__init__(problem=problem, problem_mark=mark)


class SpecLoader(yaml.SafeLoader):
    """A safe loader whose booleans are exactly true and false (any case), within limits."""

    limits: YamlLimits = LIMITS

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self._depth = 0
        self._aliases = 0

    def compose_node(self, parent: Node | None, index: Any) -> Node:
        """A node, checked for depth, aliases and the size of its parent, as it is composed."""
        event = self.peek_event()  # type: ignore[no-untyped-call]
        limits = self.limits
        if parent is not None and len(parent.value) >= limits.items:
            kind = "list" if isinstance(parent, SequenceNode) else "mapping"
            raise YamlLimitError(
                f"a {kind} of more than {limits.items:,} entries (it starts at line "
                f"{parent.start_mark.line + 1}); split it or shorten it",
                event.start_mark,
            )
        if isinstance(event, AliasEvent):
            self._aliases += 1
            if self._aliases > limits.aliases:
                raise YamlLimitError(
                    f"more than {limits.aliases:,} aliases (*name); write the values out",
                    event.start_mark,
                )
        self._depth += 1
        try:
            if self._depth > limits.depth:
                raise YamlLimitError(
                    f"nested more than {limits.depth} levels deep", event.start_mark
                )
            node: Node | None = super().compose_node(parent, index)
        finally:
            self._depth -= 1
        assert node is not None  # PyYAML composes a node for every event it is called on
        return node


SpecLoader.yaml_implicit_resolvers = {
    first: [(tag, regex) for tag, regex in resolvers if tag != "tag:yaml.org,2002:bool"]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}
SpecLoader.add_implicit_resolver(
    "tag:yaml.org,2002:bool",
    re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"),
    list("tTfF"),
)


def _check_expansion(root: Node, limits: YamlLimits) -> None:
    """Refuse a node graph whose expansion is too large or too deep, or that contains itself.

    Each node is measured once (aliases share nodes), so this is linear in the file.
    """
    measured: dict[int, tuple[int, int]] = {}  # node id -> (expanded units, expanded depth)
    open_nodes: set[int] = set()

    def measure(node: Node, level: int) -> tuple[int, int]:
        known = measured.get(id(node))
        if known is not None:
            if level + known[1] - 1 > limits.depth:
                raise YamlLimitError(
                    f"nested more than {limits.depth} levels deep once its aliases are expanded",
                    node.start_mark,
                )
            return known
        if id(node) in open_nodes:
            raise YamlLimitError("an alias refers to a node that contains it", node.start_mark)
        if level > limits.depth:
            raise YamlLimitError(
                f"nested more than {limits.depth} levels deep once its aliases are expanded",
                node.start_mark,
            )
        if isinstance(node, ScalarNode):
            result = (1 + len(node.value), 1)
        else:
            open_nodes.add(id(node))
            children: list[Node] = (
                list(node.value)
                if isinstance(node, SequenceNode)
                else [part for pair in node.value for part in pair]
            )
            units, depth = 1, 0
            for child in children:
                child_units, child_depth = measure(child, level + 1)
                units += child_units
                depth = max(depth, child_depth)
                if units > limits.expanded:
                    raise YamlLimitError(
                        f"expands to more than {limits.expanded:,} characters and values "
                        "through its aliases (*name); write the values out or use fewer",
                        node.start_mark,
                    )
            open_nodes.discard(id(node))
            result = (units, depth + 1)
        measured[id(node)] = result
        return result

    measure(root, 1)


def load_yaml(text: str, *, limits: YamlLimits = LIMITS) -> Any:
    """Parse one YAML document with YAML 1.2 booleans, within ``limits``."""
    if len(text) > limits.size:
        raise YamlLimitError(
            f"larger than {limits.size:,} characters, the most a YAML document may hold", None
        )
    loader: SpecLoader | None = None
    try:
        loader = SpecLoader(text)
        loader.limits = limits
        node = loader.get_single_node()
        if node is None:
            return None
        _check_expansion(node, limits)
        return loader.construct_document(node)
    except yaml.reader.ReaderError as error:
        # A character YAML does not allow (a NUL byte, say): say where, on one line.
        before = text[: error.position]
        line = before.count("\n")
        column = error.position - (before.rfind("\n") + 1)
        raise YamlLimitError(
            f"character #x{error.character:04x} is not allowed in YAML",
            yaml.Mark("", error.position, line, column, None, 0),
        ) from None
    except ValueError as error:  # an integer of more digits than Python converts, say
        raise YamlLimitError(f"a value that cannot be read: {error}", None) from None
    finally:
        if loader is not None:
            loader.dispose()


def read_yaml_text(path: str | PathLike[str], *, limits: YamlLimits = LIMITS) -> str:
    """The text of a YAML file, refused if larger than ``limits.size`` or not UTF-8.

    Raises :class:`OSError` when the file cannot be read, and :class:`YamlLimitError` for the
    rest; at most ``limits.size + 1`` bytes are read, whatever the file claims to be.
    """
    file = Path(path)
    with file.open("rb") as stream:
        data = stream.read(limits.size + 1)
    if len(data) > limits.size:
        raise YamlLimitError(
            f"larger than {limits.size:,} bytes, the most a YAML file may hold", None
        )
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data[: error.start].count(b"\n")
        column = error.start - (data.rfind(b"\n", 0, error.start) + 1)
        raise YamlLimitError(
            f"not UTF-8 (byte 0x{data[error.start]:02x}); save the file as UTF-8",
            yaml.Mark(str(file), error.start, line, column, None, 0),
        ) from None


def read_yaml(path: str | PathLike[str], *, limits: YamlLimits = LIMITS) -> Any:
    """Read and parse a YAML file within ``limits`` (see :func:`read_yaml_text`)."""
    return load_yaml(read_yaml_text(path, limits=limits), limits=limits)


def describe(error: yaml.YAMLError) -> str:
    """A YAML error as one line: ``line 3, column 7: not valid YAML: problem``.

    A limit names itself (``line 7, column 4: nested more than 64 levels deep``).
    """
    if isinstance(error, yaml.MarkedYAMLError):
        problem = " ".join(str(error.problem or error.context or "").split())
        if not isinstance(error, YamlLimitError):
            problem = f"not valid YAML: {problem}" if problem else "not valid YAML"
        mark = error.problem_mark or error.context_mark
        if mark is not None:
            return f"line {mark.line + 1}, column {mark.column + 1}: {problem}"
        return problem
    return "not valid YAML: " + " ".join(str(error).split())
