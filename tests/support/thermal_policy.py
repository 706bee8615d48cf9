"""A temperature policy as the admin API takes it, for tests that replay or enforce one."""

from __future__ import annotations

from typing import Any


def thermal_policy(**changes: Any) -> dict[str, Any]:
    """Trip at 90 °C, resume at 80 °C, each held 3 s, per node, never cutting a type off entirely;
    `changes` replace any of these."""
    return {
        "enabled": True,
        "trip_celsius": 90,
        "resume_celsius": 80,
        "trip_hold_seconds": 3,
        "resume_hold_seconds": 3,
        "scope": "node",
        "allow_full_shutoff": False,
        "taint_node": False,
        "overrides_may_disable": False,
        "override_max_trip_celsius": None,
        **changes,
    }
