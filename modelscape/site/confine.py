"""The build's trust boundary: read only inside the content folder, write only inside the output.

A content folder may come from a contributor's pull request and be built by CI with secrets
in its environment, so nothing in it is taken at its word:

- :func:`content_files` lists the files under a folder of the content, following a symbolic
  link only when it stays inside the content folder; a link that leaves it (``env.txt ->
  /proc/self/environ``), and anything that is not a regular file (a FIFO would hang the
  build), is left out with a warning that names it.
- :class:`OutputFolder` writes and removes files by site path (``reports/x.html``) and refuses
  any path that would leave the output folder: absolute, with ``..``, or through a linked
  folder. It never writes through a symbolic link; it replaces the link.
"""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path

from modelscape.site.config import SiteError

__all__ = ["OutputFolder", "content_files", "is_inside", "site_path"]


def is_inside(path: Path, folder: Path) -> bool:
    """Whether ``path``, with every link resolved, is ``folder`` or lies under it."""
    try:
        return path.resolve().is_relative_to(folder.resolve())
    except (OSError, RuntimeError):  # a link loop
        return False


#: Characters a site path may not hold: control characters, backslashes and DEL.
_REFUSED = re.compile(r"[\x00-\x1f\\\x7f]")


def site_path(path: object) -> str | None:
    """``path`` as a clean relative POSIX path inside a site, or None if it could leave it.

    Refused: anything but text, absolute paths, ``..`` and ``.`` parts, empty parts,
    backslashes, drive letters and control characters.
    """
    if not isinstance(path, str) or not path or len(path) > 1024:
        return None
    if _REFUSED.search(path) or ":" in path.split("/")[0]:
        return None
    parts = path.split("/")
    if any(part in ("", ".", "..") for part in parts):
        return None
    # With no empty, "." or ".." part there is nothing left to normalise: the path is clean.
    return path


def content_files(
    folder: Path, root: Path, warnings: list[str], *, hidden: bool = False
) -> list[Path]:
    """Every regular file under ``folder`` (hidden ones left out, unless ``hidden``), sorted.

    Links are followed only where they resolve inside ``root``, the content folder; every
    other link, and every special file, is skipped with a warning naming it.
    """
    found: list[Path] = []
    if not folder.is_dir():
        return found
    base = root.resolve()
    visited: set[Path] = set()

    def visit(directory: Path) -> None:
        real = directory.resolve()
        if real in visited:  # a link back up the tree
            return
        visited.add(real)
        try:
            entries = sorted(os.scandir(directory), key=lambda e: e.name)
        except OSError as error:
            warnings.append(f"{directory}: cannot list the folder ({error.strerror}); skipped")
            return
        for entry in entries:
            if entry.name.startswith(".") and not hidden:
                continue
            path = directory / entry.name
            if entry.is_symlink() and not is_inside(path, base):
                warnings.append(
                    f"{path}: a link that leaves the content folder; skipped (links may "
                    "point only to files inside the content folder)"
                )
                continue
            try:
                mode = path.stat().st_mode  # of the link's target
            except OSError as error:
                warnings.append(f"{path}: cannot read it ({error.strerror}); skipped")
                continue
            if stat.S_ISDIR(mode):
                visit(path)
            elif stat.S_ISREG(mode):
                found.append(path)
            else:
                warnings.append(f"{path}: not a regular file (a pipe or device); skipped")

    visit(folder)
    return found


class OutputFolder:
    """The folder a site is written to: every write and removal confined to it."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def create(self) -> None:
        """Make the folder (and its parents) if missing; say clearly when that fails."""
        if self.folder.exists() and not self.folder.is_dir():
            raise SiteError(f"the output folder {self.folder} is a file; choose another -o")
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise SiteError(
                f"cannot create the output folder {self.folder}: {error.strerror}"
            ) from None

    def target(self, path: str) -> Path:
        """The file of a site path, refused if it would lie outside the output folder."""
        clean = site_path(path)
        if clean is None:
            raise SiteError(f"refusing to write {path!r}: not a path inside the output folder")
        target = self.folder / clean
        if not is_inside(target.parent, self.folder):
            raise SiteError(
                f"refusing to write {path!r}: a linked folder in {self.folder} leads outside it"
            )
        return target

    def write(self, path: str, data: str | bytes) -> None:
        """Write one file of the site; a link in its place is replaced, never followed."""
        target = self.target(path)
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            if not is_inside(target.parent, self.folder):  # made through a link just now
                raise SiteError(f"refusing to write {path!r}: its folder leads outside")
            # Replaced, never written into: a link is not followed, and a file may be a hard
            # link shared with the published site while a build is staged (see staging.py).
            if target.is_symlink() or target.is_file():
                target.unlink()
            if isinstance(data, str):
                data = data.encode("utf-8")
            target.write_bytes(data)
        except OSError as error:
            raise SiteError(f"cannot write {target}: {error.strerror}") from None

    def remove(self, path: str) -> bool:
        """Remove one file the build made before; False if the path is not one it could make."""
        clean = site_path(path)
        if clean is None:
            return False
        target = self.folder / clean
        if not is_inside(target.parent, self.folder):
            return False
        try:
            if target.is_symlink() or target.is_file():
                target.unlink()
        except OSError:
            return False
        return True

    def size(self, path: str) -> int | None:
        """The size of one file of the site, or None if it is not there."""
        clean = site_path(path)
        try:
            return (self.folder / clean).stat().st_size if clean is not None else None
        except OSError:
            return None
