"""The health control file: which devices the plugin reports Unhealthy.

```json
{"devices": {"lpu1": "Unhealthy"}}
```
Devices not listed are Healthy; a missing file means all are healthy. The plugin re-reads the file
while it runs, and ``nufi-mock set-health`` edits it atomically.
"""

from __future__ import annotations

import json
from pathlib import Path

from nufi_mock.atomic import write_atomically
from nufi_mock.inventory import device_index
from nufi_mock.kubelet_api import HEALTHY, UNHEALTHY


class HealthFileError(ValueError):
    """The health file cannot be used; the message names the file and the problem."""


def normalise_health(text: str) -> str:
    """``Healthy`` / ``Unhealthy`` from any capitalisation; anything else is an error."""
    for value in (HEALTHY, UNHEALTHY):
        if text.strip().lower() == value.lower():
            return value
    raise HealthFileError(f"health must be {HEALTHY} or {UNHEALTHY}, got {text!r}")


def parse_health(text: str, *, source: str = "health file") -> dict[str, str]:
    """Device id -> health from the file's text; an empty text means no overrides."""
    if not text.strip():
        return {}
    try:
        document = json.loads(text)
    except json.JSONDecodeError as exc:
        raise HealthFileError(f"{source}: not valid JSON ({exc.msg} at line {exc.lineno})") from None
    devices = document.get("devices") if isinstance(document, dict) else None
    if not isinstance(devices, dict):
        raise HealthFileError(f'{source}: expected an object like {{"devices": {{"lpu1": "Unhealthy"}}}}')
    parsed: dict[str, str] = {}
    for device_id, health in devices.items():
        if not isinstance(health, str):
            raise HealthFileError(f"{source}: health of {device_id!r} must be a string, got {health!r}")
        try:
            parsed[str(device_id)] = normalise_health(health)
        except HealthFileError as exc:
            raise HealthFileError(f"{source}: device {device_id!r}: {exc}") from None
    return parsed


def read_health(path: Path) -> dict[str, str]:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    except OSError as exc:
        raise HealthFileError(f"cannot read health file {path}: {exc.strerror}") from None
    return parse_health(text, source=str(path))


def render_health(health: dict[str, str]) -> str:
    # Healthy is the default, so only exceptions are written down; under "all" a Healthy entry is one.
    kept = {
        device_id: value for device_id, value in sorted(health.items()) if value != HEALTHY or "all" in health
    }
    return json.dumps({"devices": kept}, indent=2) + "\n"


def write_health(path: Path, health: dict[str, str]) -> None:
    write_atomically(path, render_health(health))


def set_device_health(path: Path, device_id: str, health: str) -> dict[str, str]:
    """Mark one device, or ``all`` of them, Healthy/Unhealthy in the file; returns what it now says."""
    value = normalise_health(health)
    if device_id == "all":
        current = {} if value == HEALTHY else {"all": UNHEALTHY}
    elif device_index(device_id) is None:
        raise HealthFileError(f"{device_id!r} is not a device id: use lpu0, lpu1, ... or 'all'")
    else:
        current = read_health(path)
        current[device_id] = value
    write_health(path, current)
    return parse_health(render_health(current))


def expand_all(wanted: dict[str, str], device_ids: list[str]) -> dict[str, str]:
    """The ``all`` key sets every device; explicit entries still win over it."""
    if "all" not in wanted:
        return wanted
    base = dict.fromkeys(device_ids, wanted["all"])
    return base | {device_id: value for device_id, value in wanted.items() if device_id != "all"}
