"""Run a command with one folder mounted read-only, even as root.

Permission bits do not stop root, so a test that needs a folder nobody can write to mounts it
read-only inside a private mount namespace (``unshare``); the file system then refuses every
write with EROFS, whoever asks.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

__all__ = ["can_mount_read_only", "run_with_read_only"]


def can_mount_read_only() -> bool:
    """Whether this machine lets an unprivileged namespace mount a folder read-only."""
    if sys.platform != "linux" or shutil.which("unshare") is None:
        return False
    probe = subprocess.run(
        ["unshare", "--mount", "--map-root-user", "true"], capture_output=True, check=False
    )
    return probe.returncode == 0


def run_with_read_only(
    folder: Path, command: Sequence[str], *, timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    """Run ``command`` with ``folder`` mounted read-only for it alone."""
    quoted = shlex.quote(str(folder))
    script = (
        f"mount --bind {quoted} {quoted} && mount -o remount,bind,ro {quoted} && "
        f"exec {shlex.join(command)}"
    )
    return subprocess.run(
        ["unshare", "--mount", "--map-root-user", "sh", "-c", script],
        capture_output=True,
        text=True,
        check=False,
        timeout=timeout,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).parents[2])},
    )
