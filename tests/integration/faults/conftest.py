"""Faults of the systems NuFi relies on, each met for real: the integration world (`support.world`)
on a dev cluster of this package's own (the crash tests list every namespace NuFi made), a real
PostgreSQL, and NuFi served in memory."""

from support.world_fixtures import cluster, world

__all__ = ["cluster", "world"]
