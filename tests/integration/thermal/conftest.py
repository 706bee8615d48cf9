"""Thermal control in the integration world (`support.world`): policies, the controller cutting and
restoring a hot node's traffic, its replicas electing a leader, all over the run's dev cluster with
LPU nodes (shared with the workloads tests), dev identity provider and Prometheus."""

from support.world_fixtures import world

__all__ = ["world"]
