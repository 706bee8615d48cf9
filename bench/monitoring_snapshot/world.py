"""The benchmark's world (the GPU world of every GPU benchmark), its phases' lengths, and who reads."""

from __future__ import annotations

from dataclasses import dataclass

from bench.common.gpu_world import GpuWorld
from nufi.auth import Principal
from nufi.config import Settings
from nufi.monitoring.settings import MonitoringSettings
from nufi_sandbox.idp.launcher import IdentityProviderProcess
from nufi_sandbox.prometheus import PrometheusServer

MANY_READERS = 200
TYPE_ID = "nvidia-gpu"
PRINCIPAL = Principal(subject="bench", username="bench", roles=frozenset())


@dataclass(frozen=True)
class World:
    gpu: GpuWorld
    warm_seconds: float
    soak_seconds: float

    @property
    def prometheus(self) -> PrometheusServer:
        return self.gpu.prometheus

    @property
    def identity(self) -> IdentityProviderProcess:
        return self.gpu.identity

    @property
    def settings(self) -> Settings:
        return self.gpu.settings()

    @property
    def refresh_seconds(self) -> float:
        return MonitoringSettings.from_settings(self.settings).refresh_seconds
