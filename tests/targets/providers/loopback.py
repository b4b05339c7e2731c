"""Helpers of the provider tests that are not fixtures: free loopback ports, and skipping.

A module of its own (not conftest.py) so that tests import it by a name no other test folder
uses.
"""

from __future__ import annotations

import os
import socket

import pytest


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def require(condition: bool, reason: str) -> None:
    """Skip with ``reason`` unless ``condition`` holds; under CI=true fail instead, so that CI
    never passes by skipping what it must run."""
    if condition:
        return
    if os.environ.get("CI") == "true":
        pytest.fail(f"CI must run this test: {reason}")
    pytest.skip(reason)
