"""What a build tells its user about the content: a :class:`BuildWarning` names the file at
fault, the line when it is known, and what is wrong.

A warning is data, not a sentence to be taken apart: the command line prints it as
``path:line: message`` (the form editors and CI annotations jump to), ``--strict`` counts it,
and the manifest keeps the warnings of the pages it reuses so that a later build can repeat
them. The manifest is published with the site and the content folder may move, so it keeps a
warning's path relative to the content folder (or to the modelscape package, for its shipped
specs) and puts the folder back in front when it reads the warning again; the message itself
never holds the content folder's path (see :func:`quoted`).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import modelscape

__all__ = ["BuildWarning", "quoted", "restored", "stored", "warning_at"]


@dataclass(frozen=True)
class BuildWarning:
    """One problem a build met: ``path`` is the file or folder at fault as the user named it
    (a content file, or a path of the site for a broken link; empty when the warning is about
    no file), ``line`` its line when the problem has one (1-based), ``message`` what is wrong
    and, where it helps, what to do."""

    path: str
    line: int | None
    message: str

    def __str__(self) -> str:
        where = self.path if self.line is None else f"{self.path}:{self.line}"
        return f"{where}: {self.message}" if where else self.message


def warning_at(
    path: str | os.PathLike[str], message: str, *, line: int | None = None
) -> BuildWarning:
    """A warning about the file ``path``."""
    return BuildWarning(os.fspath(path), line, message)


def _bases(root: Path) -> list[tuple[str, str]]:
    """The folders a stored warning's path is relative to, by the name the manifest gives them."""
    package = Path(modelscape.__file__).parent
    pairs = []
    for name, base in (("content", root), ("modelscape", package)):
        for form in {os.fspath(base.absolute()), os.fspath(base), os.fspath(base.resolve())}:
            pairs.append((name, form.rstrip(os.sep) + os.sep))
    # The longest first: a content folder inside the package's tree is named as content.
    return sorted(pairs, key=lambda pair: -len(pair[1]))


def quoted(error: BaseException | str, root: Path) -> str:
    """The text of an error quoted in a warning's message, with any mention of the content
    folder's path written relative to it: a message is kept as it is made, so it must not hold
    where the content folder happened to be."""
    text = str(error)
    # Only absolute forms: a relative one ("./" for a content folder given as ".") would
    # also match inside other paths of the text.
    for _name, base in _bases(root):
        if os.path.isabs(base):
            text = text.replace(base, "")
    return text


def stored(warning: BuildWarning, root: Path) -> dict[str, Any]:
    """A warning as the manifest keeps it: its path relative to the folder it lies in."""
    entry: dict[str, Any] = {"message": warning.message}
    if warning.line is not None:
        entry["line"] = warning.line
    for name, base in _bases(root):
        if warning.path.startswith(base):
            entry["in"], entry["path"] = name, Path(warning.path[len(base) :]).as_posix()
            return entry
    entry["path"] = warning.path
    return entry


def restored(entry: object, root: Path) -> BuildWarning:
    """A warning the manifest kept, its path under the content folder as this build names it;
    ValueError if the entry is not one a build wrote."""
    if not isinstance(entry, dict):
        raise ValueError("a warning that is not an object")
    path, message, line = entry.get("path"), entry.get("message"), entry.get("line")
    if not isinstance(path, str) or not isinstance(message, str):
        raise ValueError("a warning without its path and message")
    if line is not None and (not isinstance(line, int) or isinstance(line, bool)):
        raise ValueError("a warning's line that is not a number")
    folder = entry.get("in")
    if folder == "content":
        path = os.fspath(root / path)
    elif folder == "modelscape":
        path = os.fspath(Path(modelscape.__file__).parent / path)
    elif folder is not None:
        raise ValueError(f"a warning relative to an unknown folder: {folder!r}")
    return BuildWarning(path, line, message)
