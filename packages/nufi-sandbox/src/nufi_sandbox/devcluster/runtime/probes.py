"""Container probes as the kubelet's prober runs them, against the container's local port."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import httpx

Obj = dict[str, Any]

PortResolver = Callable[[object], int | None]
"""A probe's `port` (number or name) → the local port that serves it, or None."""


@dataclass(frozen=True)
class ProbeSettings:
    initial_delay: float
    period: float
    timeout: float
    success_threshold: int
    failure_threshold: int

    @classmethod
    def of(cls, probe: Obj) -> ProbeSettings:
        # The defaults of core/v1 Probe.
        return cls(
            initial_delay=float(probe.get("initialDelaySeconds") or 0),
            period=float(probe.get("periodSeconds") or 10),
            timeout=float(probe.get("timeoutSeconds") or 1),
            success_threshold=int(probe.get("successThreshold") or 1),
            failure_threshold=int(probe.get("failureThreshold") or 3),
        )


def probe_kind(probe: Obj | None) -> str | None:
    """ "httpGet" or "tcpSocket" for a probe the dev cluster runs, "unsupported" for others."""
    if not probe:
        return None
    for kind in ("httpGet", "tcpSocket"):
        if probe.get(kind):
            return kind
    return "unsupported"


async def probe_once(probe: Obj, resolve: PortResolver, seconds: float) -> bool:
    kind = probe_kind(probe)
    action: Obj = probe.get(kind or "") or {}
    port = resolve(action.get("port"))
    if port is None:
        return False
    if kind == "tcpSocket":
        try:
            _, writer = await asyncio.wait_for(asyncio.open_connection("127.0.0.1", port), seconds)
        except (OSError, TimeoutError):
            return False
        writer.close()
        with contextlib.suppress(OSError):
            await writer.wait_closed()
        return True
    if str(action.get("scheme", "HTTP")).upper() != "HTTP":
        return False  # nothing local serves TLS
    path = str(action.get("path") or "/")
    if not path.startswith("/"):
        path = "/" + path
    headers = {str(h.get("name")): str(h.get("value", "")) for h in action.get("httpHeaders") or []}
    headers.setdefault("User-Agent", "kube-probe/1.31")
    try:
        async with httpx.AsyncClient(timeout=seconds) as client:
            response = await client.get(f"http://127.0.0.1:{port}{path}", headers=headers)
    except httpx.HTTPError:
        return False
    return 200 <= response.status_code < 400


class Prober:
    """Runs one probe until cancelled; `on_change(ok)` whenever the thresholded result flips.

    A readiness probe starts failed (it must pass before the container counts as ready), a liveness
    probe starts passed (it must fail `failureThreshold` times before the container is killed)."""

    def __init__(
        self, probe: Obj, resolve: PortResolver, on_change: Callable[[bool], None], *, initial: bool
    ) -> None:
        self.probe = probe
        self.settings = ProbeSettings.of(probe)
        self._resolve = resolve
        self._on_change = on_change
        self.result = initial

    async def run(self) -> None:
        settings = self.settings
        await asyncio.sleep(settings.initial_delay)
        successes = failures = 0
        while True:
            ok = await probe_once(self.probe, self._resolve, settings.timeout)
            if ok:
                successes, failures = successes + 1, 0
                if not self.result and successes >= settings.success_threshold:
                    self.result = True
                    self._on_change(True)
            else:
                successes, failures = 0, failures + 1
                if self.result and failures >= settings.failure_threshold:
                    self.result = False
                    self._on_change(False)
            await asyncio.sleep(settings.period)
