"""Building beside the output folder, then swapping: a failed build leaves the site as it was.

A build, strict or not, writes into a hidden folder next to the output folder
(``.site.building-XXXX`` for ``site``). That folder starts with the files of the current output
that the build keeps, made of hard links where the file system allows them, so an incremental
build still finds the pages it can reuse. Nothing else is carried over: a file the build did
not write, or one changed since it wrote it (see :mod:`modelscape.site.ownership`), is not
copied, and a link is never followed, so what the build does not keep goes with the old folder.
Only when the build succeeds is the old folder moved aside and the new one moved into its
place; otherwise the new folder is deleted and the output is untouched, byte for byte.

Because the copy shares its files with the old folder through hard links, every write into it
must replace a file rather than write into it (:meth:`OutputFolder.write` removes the old file
first); otherwise writing a page would change the published copy too.
"""

from __future__ import annotations

import os
import shutil
import stat
import tempfile
from collections.abc import Collection, Iterator
from contextlib import contextmanager
from pathlib import Path

from modelscape.site.config import SiteError
from modelscape.site.ownership import KEPT_AS_IS

__all__ = ["staged"]


def _link_or_copy(source: str, destination: str) -> None:
    """A hard link to ``source`` (no data copied), or a copy where links are not possible."""
    try:
        os.link(source, destination, follow_symlinks=False)
    except OSError:
        shutil.copy2(source, destination, follow_symlinks=False)


def _copy_of(folder: Path, stage: Path, keep: Collection[str]) -> None:
    """Fill ``stage`` with the files of ``folder`` named in ``keep`` (site paths), and its
    version control folder if it has one; no link is followed or copied."""
    made = {os.fspath(stage)}
    try:
        for path in sorted(keep):
            destination = os.path.join(stage, path)
            parent = os.path.dirname(destination)
            if parent not in made:
                os.makedirs(parent, exist_ok=True)
                made.add(parent)
            _link_or_copy(os.path.join(folder, path), destination)
        kept = folder / KEPT_AS_IS
        if kept.is_dir() and not kept.is_symlink():
            shutil.copytree(kept, stage / KEPT_AS_IS, symlinks=True, copy_function=_link_or_copy)
        elif kept.is_file() and not kept.is_symlink():  # a worktree's pointer to its repository
            _link_or_copy(os.fspath(kept), os.fspath(stage / KEPT_AS_IS))
    except (OSError, shutil.Error) as error:
        raise SiteError(
            f"cannot copy the output folder {folder} to build beside it: {error}"
        ) from None


def _mode_of(folder: Path) -> int:
    """The permissions the output folder has (or that a new folder gets under the umask)."""
    if folder.is_dir():
        return stat.S_IMODE(folder.stat().st_mode)
    mask = os.umask(0)
    os.umask(mask)
    return 0o777 & ~mask


@contextmanager
def staged(output: Path, keep: Collection[str]) -> Iterator[Path]:
    """A folder to build the site in, holding the files of ``output`` named in ``keep``,
    swapped into ``output`` when the block succeeds.

    If the block raises, the folder is removed and ``output`` is not touched; messages that
    name the staging folder name ``output`` instead, which is what a user knows. An output
    that is a link to a folder is replaced at the folder it points to, so the link stays.
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
    try:
        if place.is_dir():
            _copy_of(place, stage, keep)
        stage.chmod(_mode_of(place))
        yield stage
    except SiteError as error:
        shutil.rmtree(stage, ignore_errors=True)
        raise SiteError(str(error).replace(str(stage), str(output))) from None
    except BaseException:
        shutil.rmtree(stage, ignore_errors=True)
        raise
    _swap(stage, place)


def _swap(stage: Path, place: Path) -> None:
    """Put ``stage`` where ``place`` is; the old folder is moved aside, then deleted."""
    old = None
    if place.exists():
        old = Path(tempfile.mkdtemp(prefix=f".{place.name}.old-", dir=place.parent))
        os.replace(place, old / place.name)
    try:
        os.replace(stage, place)
    except OSError as error:
        if old is not None:  # put the old site back rather than leave no site at all
            os.replace(old / place.name, place)
            shutil.rmtree(old, ignore_errors=True)
        shutil.rmtree(stage, ignore_errors=True)
        raise SiteError(f"cannot move the new site into {place}: {error.strerror}") from None
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)
