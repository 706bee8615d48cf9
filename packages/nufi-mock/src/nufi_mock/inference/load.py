"""The server's load: its recent request rate as a utilisation, reported to the node's mock exporter.

The rate is the requests started in the last ``window`` seconds; at ``saturation_rps`` the devices are
fully busy. The reporter posts it for the server's devices every ``interval`` seconds with a time to
live of a few intervals, also while no request comes (0 %: the devices idle, the model still in
memory). A server that stops reporting (it ended, or hangs) expires at the exporter; on a clean stop
it withdraws its report at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections import deque
from collections.abc import Callable
from typing import Any

import httpx
import structlog

_log = structlog.get_logger("nufi_mock.inference")
_REPORT_TIMEOUT_SECONDS = 2.0
_TTL_INTERVALS = 3


class LoadMeter:
    def __init__(
        self, *, window_seconds: float, saturation_rps: float, clock: Callable[[], float] = time.monotonic
    ) -> None:
        if window_seconds <= 0 or saturation_rps <= 0:
            raise ValueError("window_seconds and saturation_rps must be positive")
        self.window = window_seconds
        self.saturation_rps = saturation_rps
        self.clock = clock
        self._starts: deque[float] = deque()

    def record(self) -> None:
        """One request started now."""
        self._starts.append(self.clock())

    def rate(self) -> float:
        """Requests per second over the window."""
        cutoff = self.clock() - self.window
        while self._starts and self._starts[0] <= cutoff:
            self._starts.popleft()
        return len(self._starts) / self.window

    def utilization(self) -> float:
        """Percent of the devices' capacity the recent requests use, at most 100."""
        return min(100.0, 100.0 * self.rate() / self.saturation_rps)


class LoadReporter:
    """Tells the exporter at ``exporter_url`` the load of ``devices``, until stopped."""

    def __init__(
        self,
        meter: LoadMeter,
        *,
        exporter_url: str,
        source: str,
        node: str | None,
        devices: tuple[str, ...],
        interval_seconds: float,
    ) -> None:
        self.meter = meter
        self.url = exporter_url.rstrip("/") + "/control/load"
        self.source = source
        self.node = node
        self.devices = devices
        self.interval = interval_seconds
        self._failing: str | None = "not reported yet"

    def report(self) -> dict[str, Any]:
        body: dict[str, Any] = {
            "source": self.source,
            "devices": list(self.devices),
            "utilization": round(self.meter.utilization(), 3),
            "ttl_seconds": max(_TTL_INTERVALS * self.interval, 1.0),
        }
        if self.node is not None:
            body["node"] = self.node
        return body

    async def run(self, stop: asyncio.Event) -> None:
        async with httpx.AsyncClient(timeout=_REPORT_TIMEOUT_SECONDS) as client:
            while not stop.is_set():
                await self._send(client)
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(stop.wait(), timeout=self.interval)
            await self._withdraw(client)

    async def _send(self, client: httpx.AsyncClient) -> None:
        problem: str | None
        try:
            response = await client.post(self.url, json=self.report())
            problem = None if response.is_success else f"HTTP {response.status_code}: {response.text[:300]}"
        except httpx.HTTPError as exc:
            problem = f"{type(exc).__name__}: {exc}"
        # One line when reporting starts failing and one when it works again, not one per interval.
        if problem != self._failing:
            if problem is None:
                _log.info("reporting load", exporter=self.url, devices=list(self.devices))
            else:
                _log.warning("cannot report load", exporter=self.url, problem=problem)
            self._failing = problem

    async def _withdraw(self, client: httpx.AsyncClient) -> None:
        with contextlib.suppress(httpx.HTTPError):
            await client.request("DELETE", self.url, json={"source": self.source})
