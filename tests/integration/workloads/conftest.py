"""Projects and deployments in the integration world (`support.world`): the dev cluster with LPU
nodes, the dev identity provider and the run's Prometheus, shared by this package's tests; NuFi is
served in memory on a SQLite file of each test's own, and each test gets a project of its own
(`project`, of which `user` is a member; `foreign_project`, of which it is not)."""

from support.world_fixtures import cluster, idp, world

__all__ = ["cluster", "idp", "world"]
