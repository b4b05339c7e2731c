"""The build's trust boundary: read only inside the content folder, write only inside the output.

A content folder may come from a contributor's pull request and be built by CI with secrets
in its environment, so nothing in it is taken at its word:

- :func:`content_files` lists the files under a folder of the content, following a symbolic
  link only to a regular file inside the content folder and outside its hidden files and
  folders; a link that leaves it (``env.txt -> /proc/self/environ``), one into ``.git/`` or
  to ``.env``, one to a folder, a hard link with a name outside the content's files, and
  anything that is not a regular file (a FIFO would hang the build), is left out with a
  warning that names it.
- :class:`OutputFolder` writes and removes files by site path (``reports/x.html``) and refuses
  any path that would leave the output folder: absolute, with ``..``, or through a linked
  folder. It never writes through a symbolic link; it replaces the link.
"""

from __future__ import annotations

import hashlib
import os
import re
import stat
from pathlib import Path

from modelscape._surrogates import first_surrogate
from modelscape.errors import SiteError
from modelscape.site.warning import BuildWarning, warning_at

__all__ = [
    "HardLinks",
    "OutputFolder",
    "content_files",
    "hidden_inside",
    "is_inside",
    "lone_surrogate",
    "replace_file",
    "site_path",
]


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


def hidden_inside(real: str, base: str) -> str | None:
    """The first hidden part (``.git``, ``.env``) of ``real``, a real path inside the real
    folder ``base``, or None."""
    relative = real[len(base) :].lstrip(os.sep)
    return next((part for part in relative.split(os.sep) if part.startswith(".")), None)


class HardLinks:
    """The files found that have more than one name, to tell those with a name elsewhere.

    A hard link cannot be told from the file it names: ``pages/key.txt`` made with ``ln
    ~/.netrc`` is a regular file inside the content folder. It does say how many names it
    has, though (``st_nlink``): a file with more names than the build found for it has one
    somewhere else, which may be anything, so it is not read.
    """

    def __init__(self) -> None:
        self._names: dict[tuple[int, int], tuple[int, set[str], list[Path]]] = {}

    def add(self, path: Path, info: os.stat_result) -> None:
        """Note a file found (``info``: its ``stat``, links followed)."""
        if info.st_nlink > 1:
            _, names, paths = self._names.setdefault(
                (info.st_dev, info.st_ino), (info.st_nlink, set(), [])
            )
            names.add(os.path.realpath(path))
            paths.append(path)

    def elsewhere(self, warnings: list[BuildWarning]) -> set[Path]:
        """The files with a name that was not found, each warned about."""
        found: set[Path] = set()
        for count, names, paths in self._names.values():
            if len(names) < count:
                for path in paths:
                    warnings.append(
                        warning_at(
                            path,
                            f"a hard link with {count} names, {count - len(names)} of them "
                            "outside the content's files; skipped (a hard link can bring any file "
                            "into the content folder: copy the file instead)",
                        )
                    )
                found.update(paths)
        return found


def content_files(
    folder: Path, root: Path, warnings: list[BuildWarning], *, hidden: bool = False
) -> list[Path]:
    """Every regular file under ``folder`` (hidden ones left out, unless ``hidden``), sorted.

    A link is followed only to a regular file inside ``root``, the content folder, and
    never to one in a hidden folder or a hidden file (``pages/config.txt -> ../.git/config``
    when the content folder is a repository's root); every other link (to a folder too), a
    hard link with a name outside these files, and every special file, is skipped with a
    warning naming it.
    """
    found: list[Path] = []
    if not folder.is_dir():
        return found
    base = os.fspath(root.resolve())
    links = HardLinks()

    def visit(directory: Path) -> None:
        try:
            entries = sorted(os.scandir(directory), key=lambda e: e.name)
        except OSError as error:
            warnings.append(
                warning_at(directory, f"cannot list the folder ({error.strerror}); skipped")
            )
            return
        for entry in entries:
            if entry.name.startswith(".") and not hidden:
                continue
            path = directory / entry.name
            if entry.is_symlink() and not _followed(path, base, warnings):
                continue
            try:
                info = path.stat()  # of the link's target
            except OSError as error:
                warnings.append(warning_at(path, f"cannot read it ({error.strerror}); skipped"))
                continue
            if stat.S_ISDIR(info.st_mode) and not entry.is_symlink():
                visit(path)
            elif stat.S_ISDIR(info.st_mode):
                warnings.append(
                    warning_at(
                        path,
                        "a link to a folder; skipped (links may point only to files "
                        "inside the content folder)",
                    )
                )
            elif stat.S_ISREG(info.st_mode):
                found.append(path)
                links.add(path, info)
            else:
                warnings.append(warning_at(path, "not a regular file (a pipe or device); skipped"))

    visit(folder)
    elsewhere = links.elsewhere(warnings)
    return [path for path in found if path not in elsewhere]


def _followed(path: Path, base: str, warnings: list[BuildWarning]) -> bool:
    """Whether a link may be followed: to a place inside the content folder (``base``, its
    real path), and not through a hidden part; if not, warn that it is skipped."""
    try:
        real = os.fspath(path.resolve())
    except (OSError, RuntimeError):  # a link loop
        real = ""
    if not (real == base or real.startswith(base.rstrip(os.sep) + os.sep)):
        warnings.append(
            warning_at(
                path,
                "a link that leaves the content folder; skipped (links may point only "
                "to files inside the content folder)",
            )
        )
        return False
    secret = hidden_inside(real, base)
    if secret is not None:
        warnings.append(
            warning_at(
                path,
                f"a link into {secret}, a hidden file or folder (such as .git or .env), "
                "which a build never reads; skipped",
            )
        )
        return False
    return True


def _encoded(path: str, text: str) -> bytes:
    """``text`` as UTF-8; a lone surrogate, which UTF-8 has no form for, is a SiteError that
    names the file and the place rather than a traceback."""
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError as error:
        line = text.count("\n", 0, error.start) + 1
        raise SiteError(
            f"{path}: line {line}: a lone surrogate (U+{ord(text[error.start]):04X}), which "
            "UTF-8 cannot hold, reached the page from one of its inputs; remove the escape "
            "(such as \\ud800) that made it"
        ) from None


class OutputFolder:
    """The folder a site is written to: every write and removal confined to it."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        #: The size and sha256 of every file written, by site path.
        self.written: dict[str, tuple[int, str]] = {}

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
                data = _encoded(path, data)
            target.write_bytes(data)
        except OSError as error:
            raise SiteError(f"cannot write {target}: {error.strerror}") from None
        self.written[path] = (len(data), hashlib.sha256(data).hexdigest())

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


def replace_file(path: Path, data: bytes) -> bytes:
    """Write ``data`` to ``path`` through a temporary file moved into its place (a crash
    leaves the old file or the new one); return ``data``."""
    temporary = path.with_name(path.name + ".tmp")
    # Never write through a link (or a file hard-linked with the published site) left in
    # the output folder: start from no file at all.
    if temporary.is_symlink() or temporary.exists():
        temporary.unlink()
    temporary.write_bytes(data)
    os.replace(temporary, path)
    return data


def lone_surrogate(value: object, place: str = "") -> str | None:
    """Where in ``value`` (YAML or JSON data) a text holds a lone surrogate, or None.

    Any page showing one would fail to be written; the answer names the place as a path into
    the data and the code point: ``slots.item[2]: a lone surrogate (U+D800)``.
    """
    return first_surrogate(value, place)
