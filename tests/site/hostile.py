"""A sandbox for building hostile content: a content folder, an output folder, and around them
files that must survive (a victim, a secret) and an environment holding a secret.

Every hostile build goes through :meth:`Sandbox.build` or :meth:`Sandbox.refuses`, which check
what every case of the corpus must hold besides its own assertion: nothing outside the output
folder changed (every file hashed before and after, the content folder included), and no
secret (the environment's, or the secret file's) appears in any file of the output.
"""

from __future__ import annotations

import hashlib
import os
import secrets
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from modelscape.site import BuildResult, SiteError, build_site
from tests.site.sitetools import make_content

#: The name of the environment variable that holds the sandbox's secret.
SECRET_VARIABLE = "MODELSCAPE_HOSTILE_SECRET"


def snapshot(folder: Path, *, skip: Path) -> dict[str, str]:
    """Every file and link under ``folder`` (except under ``skip``), with what it holds."""
    found: dict[str, str] = {}
    skipped = skip.resolve()
    for directory, names, files in os.walk(folder):
        here = Path(directory)
        names[:] = [n for n in names if (here / n).absolute() != skipped]
        for name in [*files, *(n for n in names if (here / n).is_symlink())]:
            path = here / name
            relative = path.relative_to(folder).as_posix()
            if path.is_symlink():
                found[relative] = "link:" + os.readlink(path)
            elif path.is_file():
                found[relative] = hashlib.sha256(path.read_bytes()).hexdigest()
            else:
                found[relative] = "special"
    return found


def environ_entries() -> list[bytes]:
    """The first entries of this process's /proc/self/environ, as published they would read."""
    try:
        raw = Path("/proc/self/environ").read_bytes()
    except OSError:
        return []
    return [entry for entry in raw.split(b"\0") if len(entry) >= 8][:5]


@dataclass
class Sandbox:
    """A content folder, its output folder, and the files around them that a build must not
    touch or publish."""

    root: Path
    content: Path
    output: Path
    outside: Path
    secret: str

    @property
    def victim(self) -> Path:
        """A file beside the content folder that no build may change or remove."""
        return self.outside / "victim.txt"

    @property
    def secret_file(self) -> Path:
        """A file outside the content folder holding the secret."""
        return self.outside / "secret.txt"

    def build(self, **options: Any) -> BuildResult:
        """Build, checking that nothing outside the output changed and no secret leaked."""
        before = snapshot(self.root, skip=self.output)
        try:
            return build_site(self.content, self.output, **options)
        finally:
            self.check(before)

    def refuses(self, match: str, **options: Any) -> str:
        """Build, expecting a SiteError matching ``match``; its message is one line (a strict
        build lists its warnings, one line each)."""
        before = snapshot(self.root, skip=self.output)
        try:
            with pytest.raises(SiteError, match=match) as caught:
                build_site(self.content, self.output, **options)
        finally:
            self.check(before)
        message = str(caught.value)
        if not options.get("strict"):
            assert "\n" not in message, message
        return message

    def warns(self, match: str, **options: Any) -> str:
        """Build, expecting one warning matching ``match`` (returned); then the same content
        fails a strict build with that warning, and still leaks and changes nothing."""
        import re

        result = self.build(**options)
        found = [w for w in map(str, result.warnings) if re.search(match, w)]
        assert len(found) == 1, result.warnings
        assert "\n" not in found[0]
        self.refuses(r"warnings? \(--strict\)", strict=True, force=True, **options)
        return found[0]

    def check(self, before: dict[str, str]) -> None:
        """Nothing outside the output folder changed; nothing secret is in the output."""
        assert snapshot(self.root, skip=self.output) == before
        assert self.victim.read_text(encoding="utf-8") == "keep me\n"
        leaks = [bytes(self.secret, "utf-8"), *environ_entries()]
        if self.output.is_dir():
            for path in self.output.rglob("*"):
                if path.is_file() and not path.is_symlink():
                    data = path.read_bytes()
                    for leak in leaks:
                        assert leak not in data, f"{path} holds a secret"


def make_sandbox(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Sandbox:
    """A fresh sandbox: a small content folder (one of the tests' runs), the output beside it,
    and the outside."""
    secret = "sk-hostile-" + secrets.token_hex(16)
    monkeypatch.setenv(SECRET_VARIABLE, secret)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "victim.txt").write_text("keep me\n", encoding="utf-8")
    (outside / "secret.txt").write_text(f"API_KEY={secret}\n", encoding="utf-8")
    content = make_content(tmp_path / "content")
    return Sandbox(tmp_path, content, tmp_path / "site", outside, secret)
