"""The site's time limit ends its blocks under a tracer once scripts/mutation_plugin.py has
patched it, as it does while the coverage map is recorded.

Taking back a pending exception with ``PyThreadState_SetAsyncExc(thread, NULL)`` leaves
CPython 3.11's async-exception signal set, and a traced thread then stops at the start of the
next function it calls, for good: the site tests could not be recorded at all. The run is a
child process, so that a hang fails the test (by its timeout) instead of stopping the suite.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

TRACED = """
import sys
sys.path.insert(0, {scripts!r})
from modelscape.site import limits
import mutation_plugin

def tracer(frame, event, argument):
    return tracer

mutation_plugin._clear_without_hanging(limits)
sys.settrace(tracer)
for _ in range(3):
    with limits.time_limit():
        pass
timed_out = False
try:
    with limits.time_limit(0.2):
        while True:
            pass
except limits.RenderTimeoutError:
    timed_out = True
sys.settrace(None)
print("ended", timed_out)
"""


def test_traced_blocks_end_and_a_block_past_its_limit_still_times_out() -> None:
    done = subprocess.run(
        [sys.executable, "-c", TRACED.format(scripts=str(ROOT / "scripts"))],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,  # the untraced blocks take milliseconds; a hang never ends
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["ended", "True"]
