"""The key that seals what a build leaves in its output folder, kept where the folder is not.

A build trusts its manifest (which outputs it made, from what, and the hash of each file) to
decide what it may keep. The output folder is not trusted (it may come from a CI cache, or be
written by anyone who can write it), so a seal anyone could recompute would protect nothing
against a person: they could change a page, then the manifest's hash of it, then the seal.
The seal is therefore an HMAC-SHA256 under a key that never enters the output folder: 32
random bytes in the user's cache directory (``$XDG_CACHE_HOME/modelscape/build.key``, else
``~/.cache/modelscape/build.key``), made on first use, readable by the user alone.

Without the key (a new machine, a CI runner, a cache directory that cannot be written) no
manifest can be trusted, so the build is simply cold: it makes every page again. What the key
does and does not protect is in ``docs/design/034-untrusted-output.md``.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import re
import secrets
from pathlib import Path

__all__ = [
    "KEY_BYTES",
    "available",
    "cache_folder",
    "key_file",
    "seal",
    "seal_of",
    "sealed_body",
    "signed",
]

#: The length of the key, in bytes.
KEY_BYTES = 32
#: The end of a sealed JSON document: ``,"seal":"<64 hex digits>"}``.
_SEAL = re.compile(rb',"seal":"([0-9a-f]{64})"}')
_SEAL_LENGTH = 75


def cache_folder() -> Path:
    """The user's cache directory for modelscape's builds, never inside an output folder."""
    cache = os.environ.get("XDG_CACHE_HOME")
    base = Path(cache) if cache and Path(cache).is_absolute() else Path.home() / ".cache"
    return base / "modelscape"


def key_file() -> Path:
    """Where the key lives."""
    return cache_folder() / "build.key"


def _read(path: Path) -> bytes | None:
    try:
        data = path.read_bytes()
    except OSError:
        return None
    return data if len(data) == KEY_BYTES else None


def _key() -> bytes | None:
    """The key, made if there is none yet; None if it can be neither read nor made."""
    path = key_file()
    found = _read(path)
    if found is not None:
        return found
    try:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        # Written whole beside its place, then linked into it: two builds starting at once
        # agree on one key, and neither reads a key half written.
        temporary = path.with_name(f"{path.name}.{os.getpid()}.{secrets.token_hex(4)}")
        descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(descriptor, "wb") as stream:
            stream.write(secrets.token_bytes(KEY_BYTES))
        try:
            os.link(temporary, path)
        except FileExistsError:
            pass
        finally:
            temporary.unlink()
    except OSError:
        return None
    return _read(path)


def seal(body: bytes) -> str | None:
    """The HMAC of ``body`` under the key (hex), or None when there is no key."""
    key = _key()
    return None if key is None else hmac.new(key, body, hashlib.sha256).hexdigest()


def signed(body: bytes) -> bytes:
    """A JSON object's text (without its closing brace) with its seal added last.

    Without a key the seal is all zeros, which no key gives: the document is written, for a
    reader to see, but never trusted.
    """
    return body + f',"seal":"{seal(body) or "0" * 64}"}}'.encode()


def sealed_body(text: bytes) -> bytes | None:
    """The text of a sealed JSON object with its seal taken off and its brace put back, or
    None if its seal is not the one the key gives (edited, cut short, another key's)."""
    body, end = text[:-_SEAL_LENGTH], text[-_SEAL_LENGTH:]
    found = _SEAL.fullmatch(end)
    if found is None:
        return None
    expected = seal(body)
    if expected is None or not hmac.compare_digest(expected, found.group(1).decode()):
        return None
    return body + b"}"


def seal_of(text: bytes) -> str:
    """The seal a sealed document ends with (checked or not), as text."""
    return text[-66:-2].decode("ascii", "replace")


def available() -> bool:
    """Whether there is a key (read, or made just now)."""
    return _key() is not None
