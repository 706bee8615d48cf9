"""The pack format loads no gateway: reading a pack (the server or the `nufi` command) imports neither
the database, the cluster nor Prometheus, nor the libraries that speak to them."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

pytestmark = pytest.mark.unit

# The gateways, and the catalog that reads through them.
_HEAVY = ("nufi.db", "nufi.cluster", "nufi.prom", "nufi.auth", "nufi.devices.catalog")
_LIBRARIES = ("sqlalchemy", "kubernetes_asyncio", "httpx")


def _loaded_by(statement: str) -> list[str]:
    # A fresh interpreter: this process has long since imported everything.
    script = f"{statement}\nimport json, sys\nprint(json.dumps(sorted(sys.modules)))"
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    loaded: list[str] = json.loads(done.stdout)
    return loaded


@pytest.mark.parametrize("module", ["nufi.packs.text", "nufi.packs.model", "nufi.devices.spec"])
def test_reading_a_pack_loads_no_gateway_module(module: str) -> None:
    loaded = _loaded_by(f"import {module}")
    assert module in loaded
    assert [name for name in loaded if any(name == h or name.startswith(h + ".") for h in _HEAVY)] == []
    assert [name for name in _LIBRARIES if name in loaded] == []
