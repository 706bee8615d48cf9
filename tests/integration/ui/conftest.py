"""The ui area's own cluster: the wizard's nodes (`wizard_world.WIZARD_NODES`), which only read what
nodes offer. The workload pages use the run's `cluster` (the world's nodes) and leave it as they found
it."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from nufi_sandbox.devcluster.launcher import DevClusterProcess
from support.dev_cluster import dev_cluster

from .wizard_world import WIZARD_NODES, node_layout


@pytest.fixture(scope="package")
def wizard_cluster() -> Iterator[DevClusterProcess]:
    """A dev cluster whose nodes offer `WIZARD_KEY` (on two of three) and nothing else."""
    with dev_cluster(node_layout(WIZARD_NODES), prefix="wiz-") as started:
        yield started
