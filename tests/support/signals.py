"""Child processes that a test interrupts with SIGINT, as Ctrl-C would."""

from __future__ import annotations

import signal


def default_sigint() -> None:
    """Run in a child before it starts: SIGINT back to its default action.

    A shell starts a background job with SIGINT ignored, and children inherit that; Python
    started with SIGINT ignored installs no KeyboardInterrupt handler, so a suite run in the
    background (``pytest ... &``, a CI step under nohup) saw its Ctrl-C tests' runs finish
    untouched. Pass this as ``preexec_fn`` so the child meets SIGINT as a terminal would.
    """
    signal.signal(signal.SIGINT, signal.SIG_DFL)
