"""CDI devices, as a container runtime applies them: each fully qualified id ``<vendor>/<class>=<name>``
is looked up in the specs of the node's CDI directory, and its container edits' ``env`` (the spec's own
first, then the device's) join the container's environment. Only env is simulated: device nodes, mounts
and hooks have nothing to act on for a local process."""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any


class CdiError(Exception):
    """An id names no device of any spec in the directory, or a spec cannot be read."""


def _specs(cdi_dir: Path) -> list[dict[str, Any]]:
    specs = []
    for path in sorted(cdi_dir.glob("*.json")) if cdi_dir.is_dir() else []:
        try:
            specs.append(json.loads(path.read_text(encoding="utf-8")))
        except (OSError, json.JSONDecodeError) as exc:
            raise CdiError(f"CDI spec {path} unreadable: {exc}") from None
    return specs


def _env_pairs(edits: dict[str, Any] | None) -> list[tuple[str, str]]:
    pairs = []
    for item in (edits or {}).get("env") or []:
        name, _, value = str(item).partition("=")
        pairs.append((name, value))
    return pairs


def cdi_env(cdi_dir: Path, device_ids: Iterable[str]) -> dict[str, str]:
    """The environment the CDI devices ``device_ids`` give a container; a later device's variable wins
    over an earlier one of the same name, as in the runtime's merge."""
    wanted = list(dict.fromkeys(device_ids))
    if not wanted:
        return {}
    specs = _specs(cdi_dir)
    env: dict[str, str] = {}
    for device_id in wanted:
        kind, _, name = device_id.partition("=")
        found = [
            (spec, device)
            for spec in specs
            if spec.get("kind") == kind
            for device in spec.get("devices") or []
            if device.get("name") == name
        ]
        if not found:
            raise CdiError(f"unresolvable CDI devices {device_id}")
        spec, device = found[0]
        env.update(_env_pairs(spec.get("containerEdits")))
        env.update(_env_pairs(device.get("containerEdits")))
    return env
