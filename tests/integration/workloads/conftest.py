"""Projects and deployments in the integration world (`support.world`): the run's dev cluster with LPU
nodes (shared with the thermal tests), dev identity provider and Prometheus; NuFi is served in memory
on a SQLite file of each test's own, and each test gets a project of its own (`project`, of which
`user` is a member; `foreign_project`, of which it is not)."""

from support.world_fixtures import world

__all__ = ["world"]
