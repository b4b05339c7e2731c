"""The wheel of the running modelscape, written into a site repository for its workflows.

A site made by ``modelscape init`` is built on GitHub's runners, which install modelscape with
pip. Until a release is on a package index there is nothing to install by name, so ``init``
puts the wheel of the modelscape that wrote the site into the repository (:data:`FOLDER`) and
the workflows install that file: the site builds with the code that made it, on a fresh runner,
with no index serving modelscape (pip still fetches numpy and the other dependencies).

The wheel comes from what is running:

- modelscape installed from a wheel: the wheel is put together again from the files its
  ``RECORD`` lists, each checked against the hash recorded when it was installed, so an
  edited install is refused rather than passed on as the release;
- modelscape imported from a source tree (a checkout, an editable install): the tree's own
  build backend (hatchling, named in ``pyproject.toml``) builds it, offline, in a subprocess.

Both are reproducible: the same files give the same bytes, so running ``init`` again leaves
git nothing to commit.
"""

from __future__ import annotations

import base64
import hashlib
import importlib.util
import re
import subprocess
import sys
import tempfile
import tomllib
import zipfile
from collections.abc import Iterable
from importlib.metadata import Distribution, PackageNotFoundError, distribution
from pathlib import Path

import modelscape
from modelscape._version import DISTRIBUTION
from modelscape.site.config import SiteError

__all__ = ["FOLDER", "vendor_wheel", "with_extras"]

#: The folder of a site repository that holds the wheel its workflows install.
FOLDER = "vendor"

# Files an installer adds to a dist-info folder, which the wheel it came from did not hold.
_INSTALLER_FILES = {
    "INSTALLER",
    "REQUESTED",
    "direct_url.json",
    "RECORD",
    "RECORD.jws",
    "RECORD.p7s",
}
# A fixed date for every entry (the earliest a zip can hold), as hatchling does without
# SOURCE_DATE_EPOCH: the bytes depend on the files alone.
_EPOCH = (1980, 1, 1, 0, 0, 0)
# The name or path at the front of a pip requirement, before its extras, version or marker.
_FRONT = re.compile(r"[^\s\[=<>!~;@]+")
# A PEP 517 build in the source tree, by the backend its pyproject.toml names.
_BUILD = (
    "import importlib, sys; print(importlib.import_module(sys.argv[1]).build_wheel(sys.argv[2]))"
)


def with_extras(requirement: str, extras: Iterable[str]) -> str:
    """``requirement`` with ``extras`` added: ``x==1`` and search give ``x[search]==1``.

    A wheel's path takes extras the same way (``./vendor/x.whl[search]``).
    """
    wanted = sorted(set(extras))
    if not wanted:
        return requirement
    front = _FRONT.match(requirement)
    if front is None:
        raise SiteError(f"cannot add extras to the requirement {requirement!r}")
    return f"{front[0]}[{','.join(wanted)}]{requirement[front.end() :]}"


def vendor_wheel(folder: Path) -> Path:
    """Write the wheel of the running modelscape into ``folder`` and return its path.

    Raises :class:`~modelscape.site.config.SiteError` when there is no wheel to be had: an
    install whose files changed since, or a source tree whose build backend is not installed.
    """
    package = Path(modelscape.__file__).resolve().parent
    installed = _installed()
    if installed is not None and _holds(installed, package):
        return _rebuilt(installed, folder)
    source = package.parent
    if _is_source(source / "pyproject.toml"):
        return _built(source, folder)
    raise SiteError(
        f"modelscape runs from {package}, which is neither an installed wheel of "
        f"{DISTRIBUTION} nor a source tree: there is no wheel to put in the site; "
        "use --from-index to install a published release instead"
    )


def _installed() -> Distribution | None:
    try:
        return distribution(DISTRIBUTION)
    except PackageNotFoundError:
        return None


def _holds(installed: Distribution, package: Path) -> bool:
    """Whether the imported package is the one this distribution installed (not an editable
    install's source tree, nor a checkout that shadows an install)."""
    for file in installed.files or ():
        if file.as_posix() == "modelscape/__init__.py":
            return Path(str(installed.locate_file(file))).resolve() == package / "__init__.py"
    return False


def _is_source(pyproject: Path) -> bool:
    try:
        project = tomllib.loads(pyproject.read_text(encoding="utf-8")).get("project", {})
    except (OSError, tomllib.TOMLDecodeError):
        return False
    return bool(project.get("name") == DISTRIBUTION)


def _built(source: Path, folder: Path) -> Path:
    pyproject = tomllib.loads((source / "pyproject.toml").read_text(encoding="utf-8"))
    backend = str(pyproject.get("build-system", {}).get("build-backend", ""))
    needed = backend.split(".", 1)[0]
    if not needed or importlib.util.find_spec(needed) is None:
        raise SiteError(
            f"modelscape runs from the source tree {source}, whose wheel is built by "
            f"{backend or 'a build backend'}, which is not installed: pip install "
            f"{needed or 'hatchling'} and init again (the wheel is built offline), or use "
            "--from-index once a release is published"
        )
    folder.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as scratch:
        done = subprocess.run(
            [sys.executable, "-c", _BUILD, backend, scratch],
            cwd=source,
            capture_output=True,
            text=True,
            check=False,
        )
        if done.returncode != 0:
            raise SiteError(f"building the wheel of {source} failed: {done.stderr.strip()[-2000:]}")
        name = done.stdout.strip().splitlines()[-1]
        target = folder / name
        target.write_bytes((Path(scratch) / name).read_bytes())
    return target


def _digest(data: bytes, mode: str = "sha256") -> str:
    # The RECORD's hash form: urlsafe base64 without padding (PEP 376, PEP 427).
    return base64.urlsafe_b64encode(hashlib.new(mode, data).digest()).rstrip(b"=").decode()


def _rebuilt(installed: Distribution, folder: Path) -> Path:
    files = list(installed.files or ())
    metadata = next(
        f for f in files if f.name == "METADATA" and f.parent.name.endswith(".dist-info")
    )
    info = metadata.parent.as_posix()
    entries: dict[str, bytes] = {}
    for file in files:
        path = file.as_posix()
        top = path.split("/", 1)[0]
        if top == ".." or file.is_absolute() or "__pycache__" in file.parts:
            continue  # the command's script and byte code: made by pip on install
        if top == info and file.name in _INSTALLER_FILES:
            continue
        data = Path(str(installed.locate_file(file))).read_bytes()
        if file.hash is not None and _digest(data, file.hash.mode) != file.hash.value:
            raise SiteError(
                f"{installed.locate_file(file)} differs from the file {DISTRIBUTION}'s wheel "
                "installed, so the installed modelscape is no release: reinstall it "
                f"(pip install --force-reinstall {DISTRIBUTION}) before running init"
            )
        entries[path] = data
    wheel = (entries.get(f"{info}/WHEEL") or b"").decode()
    tags = [line.split(":", 1)[1].strip() for line in wheel.splitlines() if line.startswith("Tag:")]
    if not tags:
        raise SiteError(f"{info}/WHEEL names no tag: reinstall {DISTRIBUTION}")
    parts = [sorted({tag.split("-")[i] for tag in tags}) for i in range(3)]
    version = installed.version
    name = f"{DISTRIBUTION.replace('-', '_')}-{version}-{'-'.join('.'.join(p) for p in parts)}.whl"
    record = "".join(f"{p},sha256={_digest(d)},{len(d)}\n" for p, d in sorted(entries.items()))
    entries[f"{info}/RECORD"] = f"{record}{info}/RECORD,,\n".encode()
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / name
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as archive:
        # The dist-info last, RECORD at the very end, as PEP 427 recommends.
        for path in sorted(
            entries, key=lambda p: (p.startswith(f"{info}/"), p.endswith("/RECORD"), p)
        ):
            entry = zipfile.ZipInfo(path, date_time=_EPOCH)
            entry.external_attr = 0o644 << 16
            entry.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(entry, entries[path])
    return target
