"""Output files of the commands, checked before any work is done.

A command that analyses a run for a minute and then cannot write its file has wasted the
minute and ends in a traceback; each command checks where it will write first, and says in
one line what is wrong.
"""

from __future__ import annotations

import os
from pathlib import Path

from modelscape.errors import CommandError

__all__ = ["check_output", "write_output"]


def check_output(path: Path, option: str) -> Path:
    """``path`` if a file can be written there: its folder exists and is writable, and it is
    not itself a folder. ``option`` names the option in the message (``-o``, ``--junit``)."""
    folder = path.parent
    if path.is_dir():
        raise CommandError(f"{option} {path}: is a folder; name a file")
    if not folder.is_dir():
        raise CommandError(f"{option} {path}: the folder {folder} does not exist; create it first")
    if not os.access(folder, os.W_OK | os.X_OK) or (path.exists() and not os.access(path, os.W_OK)):
        raise CommandError(f"{option} {path}: not writable")
    return path


def write_output(path: Path, text: str, option: str) -> None:
    """Write ``text`` (UTF-8) to ``path``, or fail with one line naming the option."""
    try:
        with open(path, "w", encoding="utf-8", newline="") as file:
            file.write(text)
    except OSError as error:
        raise CommandError(f"{option} {path}: cannot write it: {error.strerror}") from None
