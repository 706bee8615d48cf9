"""Faults of the systems NuFi relies on, each met for real: the integration world (`support.world`:
the dev cluster with LPU nodes, the dev identity provider, a real Prometheus), a real PostgreSQL, and
NuFi served in memory."""

from support.world_fixtures import cluster, idp, world

__all__ = ["cluster", "idp", "world"]
