"""Device packs against the catalog's integration world: the dev cluster with the LPU nodes and the
mock LPU exporter scraped by the run's Prometheus, so the live checks of a pack's types pass."""

from __future__ import annotations

from integration.catalog.conftest import lpu_exporter, lpu_scraped, nufi, sqlite_url
from support.world_fixtures import cluster, world

__all__ = ["cluster", "lpu_exporter", "lpu_scraped", "nufi", "sqlite_url", "world"]
