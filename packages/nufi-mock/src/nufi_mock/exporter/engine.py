"""The exporter's moving parts: simulated devices, pod attribution, overrides and absences, advanced in
steps."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import functools
import time
from collections.abc import Callable

import grpc
import structlog

from .absence import AbsenceBook
from .attribution import PodResourcesClient, owners
from .config import ExporterConfig
from .fleet import Fleet
from .load import LoadBook
from .overrides import OverrideBook
from .profiles import Profile
from .readings import PodRef, Quantity, Reading

_log = structlog.get_logger("nufi_mock.exporter")


class ExporterEngine:
    def __init__(
        self, config: ExporterConfig, profile: Profile, *, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.config = config
        self.profile = profile
        self.clock = clock
        hardware = profile.hardware
        if config.memory_bytes is not None:
            hardware = dataclasses.replace(hardware, memory_total_bytes=config.memory_bytes)
        self.fleet = Fleet(
            config.nodes,
            devices_per_node=config.devices_per_node,
            numa_nodes=config.numa_nodes,
            hardware=hardware,
            thermal=config.thermal,
            seed=config.seed,
            device_label=profile.device_label,
        )
        self.overrides = OverrideBook()
        self.absences = AbsenceBook()
        self.loads = LoadBook()
        self.resource_patterns = config.resource_patterns or profile.resource_patterns
        self._clients = {
            node: PodResourcesClient(path, profile.pod_resources_api)
            for node, path in config.pod_resources.items()
        }
        self._owners: dict[str, dict[int, PodRef]] = {node: {} for node in self.fleet.nodes}
        self._attribution_errors: dict[str, str | None] = {}

    def owners_of(self, node: str) -> dict[int, PodRef]:
        return dict(self._owners.get(node, {}))

    async def refresh_attribution(self) -> None:
        """Ask every node's kubelet which pod holds which device. A node whose kubelet does not answer
        loses its pod labels until it answers again (real exporters behave the same)."""
        for node, client in self._clients.items():
            try:
                entries = await client.list()
            except grpc.aio.AioRpcError as exc:
                self._owners[node] = {}
                self._report(node, f"{exc.code().name}: {exc.details()}")
                continue
            self._owners[node] = owners(
                entries, self.resource_patterns, functools.partial(self.fleet.resolve, node)
            )
            self._report(node, None)

    def _report(self, node: str, problem: str | None) -> None:
        if self._attribution_errors.get(node, "unset") == problem:
            return
        self._attribution_errors[node] = problem
        socket = str(self._clients[node].socket)
        if problem is None:
            _log.info("pod resources available", node=node, socket=socket)
        else:
            _log.warning(
                "pod resources unavailable; no pod labels", node=node, socket=socket, problem=problem
            )

    def step(self, dt: float) -> None:
        self.fleet.step(dt, self.loads.levels(self.clock()))

    def readings(self) -> list[Reading]:
        now = self.clock()
        result: list[Reading] = []
        for key, identity in self.fleet.devices.items():
            node, index = key
            if self.absences.is_absent(node, index, now):
                continue
            state = self.fleet.dynamics[key]

            def value(quantity: Quantity, modelled: float, node: str = node, index: int = index) -> float:
                forced = self.overrides.value_for(node, index, quantity, now)
                return modelled if forced is None else forced

            utilization = value(Quantity.UTILIZATION, state.utilization)
            forced_utilization = utilization != state.utilization
            result.append(
                Reading(
                    device=identity,
                    utilization=utilization,
                    core_utilization=tuple(
                        utilization if forced_utilization else core for core in state.core_utilization
                    ),
                    memory_used=value(Quantity.MEMORY_USED, state.memory_used),
                    memory_total=value(Quantity.MEMORY_TOTAL, float(state.hardware.memory_total_bytes)),
                    temperature=value(Quantity.TEMPERATURE, state.temperature),
                    power=value(Quantity.POWER, state.power),
                    healthy=value(Quantity.HEALTH, 1.0) == 1.0,
                    owner=self._owners.get(node, {}).get(index),
                    pod_attribution=node in self._clients,
                )
            )
        return result

    async def run(self, stop: asyncio.Event) -> None:
        """Refresh attribution and step the devices every ``interval`` seconds until ``stop``."""
        interval = self.config.interval
        loop = asyncio.get_running_loop()
        next_tick = loop.time()
        while not stop.is_set():
            await self.refresh_attribution()
            self.step(interval)
            next_tick += interval
            # After a stall, carry on from now instead of racing through the missed steps.
            next_tick = max(next_tick, loop.time())
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), timeout=next_tick - loop.time())

    async def close(self) -> None:
        for client in self._clients.values():
            await client.close()
