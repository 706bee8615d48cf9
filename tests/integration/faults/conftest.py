"""Faults of the systems NuFi relies on, each met for real: the workloads tests' world (the dev
cluster with LPU nodes, the dev identity provider, a real Prometheus), a real PostgreSQL, and NuFi
served in memory."""

from ..workloads.conftest import cluster, idp, world

__all__ = ["cluster", "idp", "world"]
