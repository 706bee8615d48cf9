"""When a lab was last used, as its own server says: code-server's heartbeat, or Jupyter's status and
kernels, read into one typed value (no I/O here; `activity_reader` fetches them).

This is the signal idle culling reads, so its meanings are strict: `last_active` is None only when the
server says it has had no use since it started (code-server's `lastHeartbeat: 0`) or when it could not
be read (`state == "unreachable"`); an answer NuFi cannot make sense of is unreachable, never "never".
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, Literal

ActivitySource = Literal["code-server", "jupyter"]
# alive: used within ACTIVE_WINDOW; idle: not since; busy: a kernel is running code now;
# unreachable: the lab did not answer, or not as its server does.
ActivityState = Literal["alive", "idle", "busy", "unreachable"]

# code-server counts itself alive for a minute after its last heartbeat (its `Heart`); Jupyter's
# status is held to the same window, so both kinds of lab mean the same by "alive".
ACTIVE_WINDOW = timedelta(seconds=60)


@dataclass(frozen=True)
class Activity:
    source: ActivitySource
    state: ActivityState
    last_active: datetime | None
    read_at: datetime


class Unreadable(ValueError):
    """An answer that is not what the lab's server sends."""


def unreachable(source: ActivitySource, read_at: datetime) -> Activity:
    return Activity(source, "unreachable", None, read_at)


def from_code_server(body: object, read_at: datetime) -> Activity:
    """code-server's `GET /healthz`: `{"status": "alive"|"expired", "lastHeartbeat": <ms since epoch>}`,
    0 until its first heartbeat."""
    if not isinstance(body, dict) or body.get("status") not in ("alive", "expired"):
        raise Unreadable("not code-server's /healthz")
    beat = body.get("lastHeartbeat")
    if isinstance(beat, bool) or not isinstance(beat, int | float) or beat < 0:
        raise Unreadable("lastHeartbeat is not a time")
    try:
        last = datetime.fromtimestamp(beat / 1000, UTC) if beat else None
    except (OverflowError, OSError, ValueError):
        raise Unreadable("lastHeartbeat is out of range") from None
    return Activity("code-server", "alive" if body["status"] == "alive" else "idle", last, read_at)


def from_jupyter(status: object, kernels: object, read_at: datetime) -> Activity:
    """Jupyter Server's `GET <prefix>/api/status` (`last_activity`) and `GET <prefix>/api/kernels`
    (each kernel's `execution_state` and `last_activity`): a busy kernel is in use now."""
    if not isinstance(status, dict) or not isinstance(kernels, list):
        raise Unreadable("not Jupyter's status and kernels")
    times = [_instant(status.get("last_activity"))]
    busy = False
    for kernel in kernels:
        if not isinstance(kernel, dict):
            raise Unreadable("a kernel is not an object")
        busy = busy or kernel.get("execution_state") == "busy"
        if kernel.get("last_activity") is not None:
            times.append(_instant(kernel["last_activity"]))
    if busy:
        return Activity("jupyter", "busy", read_at, read_at)
    last = max(times)
    return Activity("jupyter", "alive" if read_at - last < ACTIVE_WINDOW else "idle", last, read_at)


def _instant(value: Any) -> datetime:
    if not isinstance(value, str):
        raise Unreadable("a time is not text")
    try:
        at = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        raise Unreadable("a time is not ISO 8601") from None
    # Jupyter writes UTC; a time without its zone is taken as UTC rather than as NuFi's local time.
    return at if at.tzinfo is not None else at.replace(tzinfo=UTC)
