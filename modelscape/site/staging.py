"""Building beside the output folder: a failed build leaves the site as it was.

A build, strict or not, writes every file it makes into a hidden folder next to the output
folder (``.site.building-XXXX`` for ``site``), and only notes what it removes. The files it
keeps are not copied there: they are read where they are, through :class:`StagedFolder`, so
the work of a build that changed one page is in proportion to what it changed, not to the
site. Only when the build succeeds is the output folder changed (:func:`staged`): what the
build did not keep goes (files it did not write, outputs changed since it wrote them, see
:mod:`modelscape.site.ownership`; a link is removed, never followed), the outputs it removed
go, each file it made is moved into its place, and the manifest, its pages file and the
marker come last. Otherwise the hidden folder is deleted and the output is untouched, byte
for byte.

Each file is replaced by a rename, so a reader (a server) that opened a page keeps the page it
opened. The change as a whole is not one rename: a build stopped in the middle of moving the
files in (the machine going down) leaves some new files beside the old manifest, and the next
build finds them not to be the files that manifest describes, and makes them again, with a
warning (see :mod:`modelscape.site.ownership`).
"""

from __future__ import annotations

import os
import shutil
import stat
import tempfile
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

from modelscape.site.config import SiteError
from modelscape.site.confine import OutputFolder, is_inside, site_path
from modelscape.site.manifest import MANIFEST, PAGES, SUMMARIES
from modelscape.site.ownership import MARKER, OutputState, Signature

__all__ = ["StagedFolder", "staged"]

#: The build's own files, moved into the output folder after every page, in this order: the
#: summaries and pages files, then the manifest that holds their hashes, then the marker
#: bound to the manifest.
_LAST = (SUMMARIES, PAGES, MANIFEST, MARKER)


class StagedFolder(OutputFolder):
    """The output folder as a staged build sees it: what it writes goes to the stage, what it
    keeps (``kept``: intact outputs) is read where it is, and what it removes is noted."""

    def __init__(self, stage: Path, place: Path, kept: Mapping[str, Signature]) -> None:
        super().__init__(stage)
        self.place = OutputFolder(place)
        self.kept = set(kept)
        #: The kept files' signatures as the output folder's inspection found them.
        self.found = kept
        #: Outputs of the output folder the build removed (gone when the build succeeds).
        self.removed: set[str] = set()

    def target(self, path: str) -> Path:
        """Where the file of a site path is now: in the output folder while it is kept."""
        if path in self.kept:
            return self.place.target(path)
        return super().target(path)

    def write(self, path: str, data: str | bytes) -> None:
        self.kept.discard(path)
        self.removed.discard(path)
        super().write(path, data)

    def remove(self, path: str) -> bool:
        if site_path(path) is None:
            return False
        if path in self.written:
            del self.written[path]
            super().remove(path)
        self.kept.discard(path)
        self.removed.add(path)
        return True

    def size(self, path: str) -> int | None:
        if path in self.removed:
            return None
        if path in self.kept:  # inspected at the start of this build: no need to look again
            return self.found[path][0]
        try:
            return self.target(path).stat().st_size
        except (OSError, SiteError):
            return None


@contextmanager
def staged(output: Path, state: OutputState) -> Iterator[StagedFolder]:
    """The output folder staged for one build (its intact outputs kept, as ``state``
    found them), changed into what the build made when the block succeeds.

    If the block raises, the stage is removed and ``output`` is not touched; messages that
    name the stage name ``output`` instead, which is what a user knows. An output that is a
    link to a folder is changed at the folder it points to, so the link stays.
    """
    if output.exists() and not output.is_dir():
        raise SiteError(f"the output folder {output} is a file; choose another -o")
    place = output.resolve() if output.is_symlink() else output.absolute()
    try:
        if not place.parent.exists():
            place.parent.mkdir(parents=True)
        stage = Path(tempfile.mkdtemp(prefix=f".{place.name}.building-", dir=place.parent))
    except OSError as error:
        raise SiteError(f"cannot create the output folder {output}: {error.strerror}") from None
    folder = StagedFolder(stage, place, state.intact)
    try:
        yield folder
        _commit(folder, state)
    except SiteError as error:
        raise SiteError(str(error).replace(str(stage), str(output))) from None
    finally:
        shutil.rmtree(stage, ignore_errors=True)


def _commit(folder: StagedFolder, state: OutputState) -> None:
    """Change the output folder into the site the build made in ``folder``."""
    place, stage = folder.place.folder, folder.folder
    try:
        place.mkdir(exist_ok=True)
        gone = [*state.foreign, *state.changed, *sorted(folder.removed)]
        for path in gone:
            _discard(place, path.rstrip("/"))
        for path in sorted(folder.written):
            _move(stage, place, path)
        for name in _LAST:
            if (stage / name).is_file():
                os.replace(stage / name, place / name)
        for path in gone:
            _prune(place, path.rstrip("/"))
    except OSError as error:
        raise SiteError(f"cannot change the output folder {place}: {error}") from None


def _discard(place: Path, path: str) -> None:
    """Remove an entry of the output folder: a file or a link (never followed), or a folder
    with all it holds; nothing if it is not there."""
    target = place / path
    if not is_inside(target.parent, place):
        return
    try:
        info = target.lstat()
    except FileNotFoundError:
        return
    if stat.S_ISDIR(info.st_mode):
        shutil.rmtree(target)
    else:
        target.unlink()


def _move(stage: Path, place: Path, path: str) -> None:
    """Move one file the build made from the stage into its place."""
    target = place / path
    target.parent.mkdir(parents=True, exist_ok=True)
    if not is_inside(target.parent, place):
        raise SiteError(f"refusing to write {path!r}: its folder leads outside {place}")
    if target.is_dir() and not target.is_symlink():
        shutil.rmtree(target)
    os.replace(stage / path, target)


def _prune(place: Path, path: str) -> None:
    """Remove the folders a removal left empty, up to the output folder."""
    parent = (place / path).parent
    while parent != place and is_inside(parent, place):
        try:
            parent.rmdir()
        except OSError:  # not empty, or not there
            return
        parent = parent.parent
