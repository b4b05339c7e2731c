"""Limits the command line shows in its help, kept apart from the modules that enforce them.

``modelscape run --help`` prints the default of ``--max-calls``; reading it from
:mod:`modelscape.execution.config` would import pydantic and, through the package, the runner,
the statistics and numpy, for a help text. Here it costs nothing to import.
"""

from __future__ import annotations

__all__ = ["MAX_CALLS"]

#: The most calls one run makes unless its ExecutionConfig says otherwise.
MAX_CALLS = 5_000_000
