"""The output folder: whose it is, and whether each file in it is still the one the build wrote.

A build writes only into a folder that is empty (or missing) or that a build made: one holding
the marker ``.modelscape-build``. Any other folder (a user's own files, ``-o ~`` by mistake) is
refused with a list of what it holds, unless the build is forced; then the folder becomes the
site's and keeps only what the build writes.

In a folder it owns, the build keeps nothing it did not write. :func:`inspect` walks the folder
without following a link and sorts every entry:

- **intact**: an output of the (sealed) manifest whose file is the one written. The user's
  cache keeps, for each output, the file's size, modification and change times and inode as
  the build left them (:func:`write_signatures`); a file with the same four is the same file
  (a change time cannot be set back), and any other is read again and compared with the size
  and sha256 the manifest keeps;
- **changed**: an output whose file is not the one written (edited, or a link or a folder in
  its place): made again;
- **foreign**: anything else (a link, a file, a folder the build never wrote): not kept.

Nothing is deleted here: the build copies only the intact files into the folder it builds in
(see :mod:`modelscape.site.staging`), so what is not kept goes when the old folder does, and a
link is removed as a link, never followed. A ``.git`` folder at the top (a checkout of a
``gh-pages`` branch) is the user's version control, not part of the site: it is never read,
listed or removed.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import stat
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from modelscape.site.config import SiteError
from modelscape.site.confine import replace_file
from modelscape.site.manifest import MANIFEST, PAGES, SUMMARIES, OutputRecord
from modelscape.site.seal import cache_folder

__all__ = [
    "KEPT_AS_IS",
    "MARKER",
    "OWN_FILES",
    "OutputState",
    "claim",
    "inspect",
    "listing",
    "owned",
    "read_signatures",
    "signatures",
    "write_marker",
    "write_signatures",
]

#: The file whose presence says that a modelscape build made the folder.
MARKER = ".modelscape-build"
#: The files the build keeps for itself at the top of the folder.
OWN_FILES = frozenset({MANIFEST, PAGES, SUMMARIES, MARKER})
#: A top-level entry that is the user's, not the site's: never read, listed or removed.
KEPT_AS_IS = ".git"
#: The most entries a message lists before "and N more".
LISTED = 20
#: A file as the build left it: size, modification time, change time, inode.
Signature = list[int]


def listing(paths: list[str], limit: int = LISTED) -> str:
    """Paths as a message lists them: the first ``limit``, then how many more."""
    shown = ", ".join(paths[:limit])
    more = len(paths) - limit
    return f"{shown} and {more} more" if more > 0 else shown


def _regular(path: Path) -> bool:
    try:
        return stat.S_ISREG(os.lstat(path).st_mode)
    except OSError:
        return False


def owned(folder: Path) -> bool:
    """Whether a build made ``folder``: it holds the marker (or, left by a build of an older
    version, only the manifest), as a file and not a link."""
    return _regular(folder / MARKER) or _regular(folder / MANIFEST)


#: The most entries of a folder that is not a build's the refusal counts (``-o ~`` by
#: mistake must not walk a whole home folder).
COUNTED = 10_000


def _everything(folder: Path) -> list[str]:
    """Every file, link and empty folder under ``folder`` (links not followed), sorted, at
    most :data:`COUNTED` of them."""
    found: list[str] = []
    for directory, names, files in os.walk(folder):
        relative = os.path.relpath(directory, folder)
        prefix = "" if relative == "." else relative.replace(os.sep, "/") + "/"
        names[:] = sorted(n for n in names if prefix or n != KEPT_AS_IS)
        files = sorted(n for n in files if prefix or n != KEPT_AS_IS)
        # os.walk lists a link to a folder among the folders and does not enter it.
        links = [n for n in names if os.path.islink(os.path.join(directory, n))]
        found.extend(prefix + name for name in [*files, *links])
        if not names and not files and prefix:
            found.append(prefix)
        if len(found) >= COUNTED:
            break
    return sorted(found)[:COUNTED]


def claim(folder: Path, *, force: bool) -> list[str]:
    """Check that the build may write into ``folder``; return what a forced build removes.

    A missing or empty folder, or one a build made, is the build's. Any other is refused
    with a :class:`SiteError` listing what it holds, unless ``force``: then its entries are
    returned, and the build replaces them with the site.
    """
    try:
        names = [n for n in os.listdir(folder) if n != KEPT_AS_IS]
    except (FileNotFoundError, NotADirectoryError):
        return []  # made by the build (a file in its place is refused when it stages)
    except OSError as error:
        raise SiteError(f"cannot list the output folder {folder}: {error.strerror}") from None
    if not names or owned(folder):
        return []
    found = _everything(folder)
    if force:
        return found
    count = f"{len(found):,}" + ("+" if len(found) >= COUNTED else "")
    raise SiteError(
        f"the output folder {folder} was not made by a modelscape build (it has no {MARKER}) "
        f"and holds {count} file{'s' if len(found) != 1 else ''}: {listing(found)}; "
        "build into an empty or new folder (-o), or pass --force to replace what it holds "
        "with the site"
    )


@dataclass
class OutputState:
    """The entries of an output folder, sorted by whether the build may keep them."""

    #: Outputs whose file is the one written, with the signature each has now.
    intact: dict[str, Signature] = field(default_factory=dict)
    #: Outputs whose file is not the one written.
    changed: list[str] = field(default_factory=list)
    #: Entries the build did not write (a folder ends with "/").
    foreign: list[str] = field(default_factory=list)
    #: Intact outputs whose signature was not the marker's (their bytes were read again).
    rechecked: int = 0

    def keeps(self, paths: list[str]) -> bool:
        """Whether every path is an intact output and nothing else is in the folder."""
        intact = self.intact
        return not self.changed and not self.foreign and all(p in intact for p in paths)


def _sha256(path: str) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as stream:
        for block in iter(lambda: stream.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def inspect(
    folder: Path, outputs: Mapping[str, OutputRecord], table: Mapping[str, Signature]
) -> OutputState:
    """Sort every entry of ``folder`` (see the module's docstring) against the manifest's
    ``outputs`` and the marker's ``table`` of signatures."""
    state = OutputState()
    folders = {""}
    for path in outputs:
        parent = path.rpartition("/")[0]
        while parent not in folders:
            folders.add(parent)
            parent = parent.rpartition("/")[0]

    def visit(relative: str) -> None:
        try:
            entries = list(os.scandir(os.path.join(folder, relative)))
        except OSError:
            return
        for entry in sorted(entries, key=lambda e: e.name):
            path = f"{relative}/{entry.name}" if relative else entry.name
            try:
                info = entry.stat(follow_symlinks=False)
            except OSError:  # gone while we looked
                continue
            if not relative and entry.name == KEPT_AS_IS and not stat.S_ISLNK(info.st_mode):
                continue
            regular = stat.S_ISREG(info.st_mode)
            if not relative and entry.name in OWN_FILES and regular:
                continue
            if stat.S_ISDIR(info.st_mode):
                if path in folders:
                    visit(path)
                else:
                    state.foreign.append(path + "/")
            elif path not in outputs:
                state.foreign.append(path)
            elif regular and _kept(entry.path, info, outputs[path], table.get(path), state):
                state.intact[path] = _signature(info)
            else:
                state.changed.append(path)

    visit("")
    return state


def _signature(info: os.stat_result) -> Signature:
    return [info.st_size, info.st_mtime_ns, info.st_ctime_ns, info.st_ino]


def _kept(
    path: str,
    info: os.stat_result,
    record: OutputRecord,
    known: Signature | None,
    state: OutputState,
) -> bool:
    """Whether a regular file is the output ``record`` describes."""
    if record.sha256 is None or info.st_size != record.size:
        return False
    if known == _signature(info):
        return True
    state.rechecked += 1
    try:
        return _sha256(path) == record.sha256
    except OSError:
        return False


#: What the marker says to whoever opens it. Always the same, so that two builds of the same
#: content make the same folder, byte for byte.
MARKER_TEXT = (
    "This folder is a site made by `modelscape build`, which keeps nothing else in it: files\n"
    "it did not write are removed, and pages changed since it wrote them are made again.\n"
)


def write_marker(folder: Path) -> None:
    """Write the marker into ``folder``: the folder is a build's from now on."""
    replace_file(folder / MARKER, MARKER_TEXT.encode())


def _table(folder: Path) -> Path:
    """Where the signatures of an output folder's files are kept: in the user's cache, by
    the folder's real path (the output folder itself is not trusted)."""
    where = hashlib.sha256(os.fsencode(os.path.realpath(folder))).hexdigest()[:32]
    return cache_folder() / "outputs" / f"{where}.json"


def read_signatures(folder: Path, seal: str | None) -> dict[str, Signature]:
    """The signatures the last build on this machine left for ``folder``'s files, if that
    build wrote the manifest whose seal is ``seal``; else none (every output is then read
    again)."""
    if seal is None:
        return {}
    try:
        data = json.loads(_table(folder).read_bytes())
    except (OSError, ValueError, RecursionError):
        return {}
    if not isinstance(data, dict) or data.get("manifest") != seal:
        return {}
    files = data.get("files")
    if not isinstance(files, dict):
        return {}
    return {
        path: known
        for path, known in files.items()
        if isinstance(known, list) and len(known) == 4 and all(type(n) is int for n in known)
    }


def write_signatures(folder: Path, seal: str | None, table: Mapping[str, Signature]) -> None:
    """Keep the signatures of ``folder``'s files, as the build leaves them (bound to the
    manifest whose seal is ``seal``). A cache: a folder without it is only slower to check."""
    data = {"folder": os.path.realpath(folder), "manifest": seal, "files": dict(table)}
    path = _table(folder)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        replace_file(path, json.dumps(data, separators=(",", ":")).encode())
        _prune(path.parent)
    except OSError:
        pass


#: The most output folders whose signatures the cache keeps (the least recently built go).
KEPT_FOLDERS = 256


def _prune(tables: Path) -> None:
    """Keep the signatures of the :data:`KEPT_FOLDERS` folders built most recently."""
    with os.scandir(tables) as entries:
        found = [(entry.stat().st_mtime_ns, entry.path) for entry in entries if entry.is_file()]
    for _, path in sorted(found, reverse=True)[KEPT_FOLDERS:]:
        with contextlib.suppress(OSError):
            os.unlink(path)


def signatures(folder: Path, paths: list[str]) -> dict[str, Signature]:
    """The signature of each of ``paths`` (site paths of files the build just wrote)."""
    found: dict[str, Signature] = {}
    for path in paths:
        try:
            info = os.lstat(os.path.join(folder, path))
        except OSError:
            continue
        if stat.S_ISREG(info.st_mode):
            found[path] = _signature(info)
    return found
