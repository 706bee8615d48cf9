"""`nufi-mock exporter`: Prometheus metrics of simulated accelerators, shaped by a vendor profile."""

from __future__ import annotations

from .app import build_engine, create_app
from .config import ConfigError, ExporterConfig
from .engine import ExporterEngine
from .profiles import PROFILES, Naming, Profile, make_profile
from .readings import PodRef, Quantity, Reading

__all__ = [
    "PROFILES",
    "ConfigError",
    "ExporterConfig",
    "ExporterEngine",
    "Naming",
    "PodRef",
    "Profile",
    "Quantity",
    "Reading",
    "build_engine",
    "create_app",
    "make_profile",
]
