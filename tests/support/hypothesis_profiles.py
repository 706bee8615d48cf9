"""Hypothesis profiles for the suite: none lets wall-clock time fail a test.

The suite runs on two workers of a shared two-core machine, where an example that takes 10 ms alone
can take 300 ms; Hypothesis' default 200 ms deadline then fails a property that holds. `ci` (chosen
when `CI` is set, as `.ci/run` runs) and `dev` keep the default number of examples; `thorough` runs
ten times as many, for a long local run (`HYPOTHESIS_PROFILE=thorough make unit`). Every profile
prints the blob that reproduces a failure, so a failure on CI can be replayed locally.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

PROFILES = ("ci", "dev", "thorough")
_BASE = settings(deadline=None, print_blob=True, suppress_health_check=[HealthCheck.too_slow])


def register_profiles() -> str:
    """Register the profiles and load the one the environment asks for; returns its name."""
    settings.register_profile("ci", _BASE)
    settings.register_profile("dev", _BASE)
    settings.register_profile("thorough", _BASE, max_examples=1000)
    name = os.environ.get("HYPOTHESIS_PROFILE") or ("ci" if os.environ.get("CI") else "dev")
    if name not in PROFILES:
        raise ValueError(f"HYPOTHESIS_PROFILE={name!r}: expected one of {', '.join(PROFILES)}")
    settings.load_profile(name)
    return name
