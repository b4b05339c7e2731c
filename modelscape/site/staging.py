"""Building beside the output folder, then swapping: a failed build leaves the site as it was.

A build, strict or not, writes into a hidden folder next to the output folder
(``.site.building-XXXX`` for ``site``). That folder starts as a copy of the current output,
made of hard links where the file system allows them, so an incremental build still finds the
pages it can reuse, and files the build did not make (a ``CNAME`` left in the folder) are kept.
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
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from modelscape.site.config import SiteError

__all__ = ["staged"]


def _link_or_copy(source: str, destination: str) -> None:
    """A hard link to ``source`` (no data copied), or a copy where links are not possible."""
    try:
        os.link(source, destination, follow_symlinks=False)
    except OSError:
        shutil.copy2(source, destination, follow_symlinks=False)


def _copy_of(folder: Path, stage: Path) -> None:
    """Fill ``stage`` with the files of ``folder``; links stay links and are never followed."""
    try:
        shutil.copytree(
            folder, stage, symlinks=True, copy_function=_link_or_copy, dirs_exist_ok=True
        )
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
def staged(output: Path) -> Iterator[Path]:
    """A folder to build the site in, swapped into ``output`` when the block succeeds.

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
            _copy_of(place, stage)
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
