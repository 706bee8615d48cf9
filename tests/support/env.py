"""Keeping the developer's own NuFi configuration out of a test."""

from __future__ import annotations

import os

import pytest

# Set inside a pod; it would make the server look for in-cluster credentials.
_IN_CLUSTER = "KUBERNETES_SERVICE_HOST"


def clear_nufi_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """Unset every NUFI_* variable (and the in-cluster marker) for the rest of the test."""
    for name in list(os.environ):
        if name.startswith("NUFI_"):
            monkeypatch.delenv(name)
    monkeypatch.delenv(_IN_CLUSTER, raising=False)


def env_without_nufi(**extra: str) -> dict[str, str]:
    """This process's environment without NUFI_* variables or the in-cluster marker, plus `extra`."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("NUFI_") and k != _IN_CLUSTER}
    env.update(extra)
    return env
