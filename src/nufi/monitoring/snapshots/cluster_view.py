"""What the cluster says about device types: inventory per node and the pods holding devices.

One read of the cluster (nodes and pods, `ClusterReader.state`) serves every type: each type's fetcher
turns it into that type's inventory, and the pod list gives the attribution.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from nufi.cluster import ClusterState
from nufi.devices.capacity import Inventory
from nufi.devices.fetcher import DeviceFetcher
from nufi.devices.spec import DeviceType
from nufi.monitoring.snapshots.attribution import PodHolding, holdings_by_node


@dataclass(frozen=True)
class ClusterView:
    """One device type as the cluster sees it."""

    inventory: Inventory
    holdings: Mapping[str, tuple[PodHolding, ...]]


def view_of(device_type: DeviceType, fetcher: DeviceFetcher, state: ClusterState) -> ClusterView:
    return ClusterView(
        fetcher.inventory(device_type, state), holdings_by_node(state.pods, device_type.resource_key)
    )
