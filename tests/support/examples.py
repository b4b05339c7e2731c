"""How many examples a Hypothesis property tries, chosen once for the whole suite.

Three profiles, picked by the ``MODELSCAPE_HYPOTHESIS`` environment variable (``dev`` unless
``CI=true``, then ``ci``):

- ``dev``: a few examples per property, for the loop while working;
- ``ci``: the examples CI runs. Every property is seeded with :data:`SEED`, so two runs on the
  same code try the same examples and a red build is red again on a rerun; the example database
  stays on (``.hypothesis/``, git-ignored), so a failure found once is replayed first next time.
  (Hypothesis' own ``derandomize`` would switch the database off, which is why the seed is set
  per test instead.)
- ``thorough``: many fresh examples, for a nightly or a manual run before a release.

A property that needs more than the profile gives (a space too large for the default to reach)
asks for a multiple of it with :func:`more`, and one whose every example is a whole job (several
site builds) a fraction of it with :func:`fewer`, so either still scales with the profile; no
test names a fixed count.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings
from hypothesis.database import DirectoryBasedExampleDatabase

__all__ = ["PROFILES", "SEED", "active_profile", "fewer", "more", "register"]

#: The seed every property starts from under the ``ci`` profile.
SEED = 20_261_203

#: Examples per property in each profile.
PROFILES = {"dev": 10, "ci": 50, "thorough": 500}

_VARIABLE = "MODELSCAPE_HYPOTHESIS"


def active_profile() -> str:
    """The profile this process runs under, from the environment."""
    chosen = os.environ.get(_VARIABLE, "").strip()
    if not chosen:
        return "ci" if os.environ.get("CI", "").lower() == "true" else "dev"
    if chosen not in PROFILES:
        raise ValueError(
            f"{_VARIABLE}={chosen!r} names no Hypothesis profile; use one of {', '.join(PROFILES)}"
        )
    return chosen


def register(database_folder: str) -> str:
    """Register the three profiles, load the active one and return its name."""
    # A loaded machine is not a slow test: timing checks would make the suite flaky.
    common = settings(deadline=None, print_blob=True, suppress_health_check=[HealthCheck.too_slow])
    database = DirectoryBasedExampleDatabase(database_folder)
    for name, count in PROFILES.items():
        settings.register_profile(name, common, max_examples=count, database=database)
    name = active_profile()
    settings.load_profile(name)
    return name


def more(factor: int) -> int:
    """``factor`` times the active profile's examples, for a property that needs more."""
    if factor < 1:
        raise ValueError(f"more() takes a whole factor of at least 1, not {factor}")
    return factor * PROFILES[active_profile()]


def fewer(divisor: int) -> int:
    """The active profile's examples divided by ``divisor`` (at least one), for a property
    whose every example costs whole seconds."""
    if divisor < 1:
        raise ValueError(f"fewer() takes a whole divisor of at least 1, not {divisor}")
    return max(1, PROFILES[active_profile()] // divisor)
