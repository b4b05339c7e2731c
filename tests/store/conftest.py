"""Fixtures for the store tests: the shared task space lives with the execution tests."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parents[1] / "execution"))
