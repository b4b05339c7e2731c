"""The site's time limit ends its blocks under a tracer (coverage's, a debugger's).

Taking back a pending exception with ``PyThreadState_SetAsyncExc(thread, NULL)`` left CPython
3.11's async-exception signal set, and a traced thread then stopped at the start of the next
function it called, for good: a site build under coverage never ended. The run is a child
process, so that a hang fails the test (by its timeout) instead of stopping the suite.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

TRACED = """
import sys
from modelscape.site import limits

def tracer(frame, event, argument):
    return tracer

def called():
    return 1

sys.settrace(tracer)
for _ in range(3):
    with limits.time_limit():
        called()
timed_out = False
try:
    with limits.time_limit(0.2):
        while True:
            pass
except limits.RenderTimeoutError:
    timed_out = True
called()
sys.settrace(None)
print("ended", timed_out)
"""


def test_traced_blocks_end_and_a_block_past_its_limit_still_times_out() -> None:
    try:
        done = subprocess.run(
            [sys.executable, "-c", TRACED],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=120,  # the blocks take milliseconds; a hang never ends
            check=False,
        )
    except subprocess.TimeoutExpired as error:
        raise AssertionError("a traced time_limit block did not end") from error
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["ended", "True"]
