"""Thermal control in the integration world (`support.world`): policies, the controller cutting and
restoring a hot node's traffic, its replicas electing a leader, all over the dev cluster with LPU
nodes, the dev identity provider and the run's Prometheus, shared by this package's tests."""

from support.world_fixtures import cluster, idp, world

__all__ = ["cluster", "idp", "world"]
