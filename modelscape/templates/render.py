"""Template text: finding slots in it, filling them, and naming the cases drawn from it."""

from __future__ import annotations

import string
from collections.abc import Mapping, Sequence

from modelscape._identity import AxisValue
from modelscape.errors import TemplateError

__all__ = ["case_ids", "fill", "placeholders"]


def placeholders(text: str, where: str) -> list[str]:
    """The slot names in ``text``; literal braces are doubled, as in str.format."""
    names: list[str] = []
    try:
        parsed = list(string.Formatter().parse(text))
    except ValueError as error:
        raise TemplateError(f"{where}: {error}; write literal braces as {{{{ and }}}}") from None
    for _, field, spec, conversion in parsed:
        if field is None:
            continue
        if not field.isidentifier() or spec or conversion:
            raise TemplateError(
                f"{where}: {{{field}{'!' + conversion if conversion else ''}"
                f"{':' + spec if spec else ''}}} is not a slot; a slot is a name in braces, "
                "such as {name}, and literal braces are doubled"
            )
        names.append(field)
    return names


def case_ids(combos: Sequence[Mapping[str, AxisValue]], varying: Sequence[str]) -> list[str]:
    """Readable case ids from the labels that vary between seeds, or numbers when too long."""
    if not varying:
        return ["case"] if len(combos) == 1 else [f"case-{i + 1}" for i in range(len(combos))]
    ids = [" / ".join(str(combo[name]) for name in varying) for combo in combos]
    if len(set(ids)) == len(ids) and all(0 < len(i) <= 64 for i in ids):
        return ids
    width = len(str(len(combos)))
    return [f"case-{i + 1:0{width}d}" for i in range(len(combos))]


def fill(text: str, texts: Mapping[str, str]) -> str:
    """Substitute slots line by line, dropping lines that only held slots and render empty."""
    lines: list[str] = []
    for line in text.split("\n"):
        parsed = list(string.Formatter().parse(line)) if ("{" in line or "}" in line) else None
        if parsed is None:
            lines.append(line)
            continue
        literal = "".join(part for part, _, _, _ in parsed)
        rendered = "".join(
            part + (texts[field] if field is not None else "") for part, field, _, _ in parsed
        )
        has_slot = any(field is not None for _, field, _, _ in parsed)
        if has_slot and not literal.strip() and not rendered.strip():
            continue
        lines.append(rendered)
    result = "\n".join(lines)
    while "\n\n\n" in result:
        result = result.replace("\n\n\n", "\n\n")
    return result.strip("\n")
