"""What the plugin answers for GetPreferredAllocation and Allocate: pure decisions, no gRPC."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum

VISIBLE_DEVICES_ENV = "LPU_VISIBLE_DEVICES"
DEVICES_ANNOTATION = "hyperaccel.ai/lpu-devices"
SHARE_CONTAINER_PATH = "/run/nufi-mock/lpu"


class DeviceSpecMode(StrEnum):
    """When Allocate hands out ``/dev/lpu<N>`` device specs.

    On a real node the container runtime refuses a device spec whose host file is missing, so ``auto``
    only names device files that exist where the plugin runs."""

    AUTO = "auto"
    ALWAYS = "always"
    NEVER = "never"


@dataclass(frozen=True)
class DeviceFile:
    container_path: str
    host_path: str
    permissions: str = "rw"


@dataclass(frozen=True)
class ShareMount:
    container_path: str
    host_path: str
    read_only: bool = True


@dataclass(frozen=True)
class ContainerGrant:
    """Everything one container gets for its devices."""

    device_ids: tuple[str, ...]
    envs: dict[str, str] = field(default_factory=dict)
    annotations: dict[str, str] = field(default_factory=dict)
    device_files: tuple[DeviceFile, ...] = ()
    mounts: tuple[ShareMount, ...] = ()


def container_grant(
    device_ids: Sequence[str],
    device_paths: Mapping[str, str],
    *,
    include_device_file: Mapping[str, bool],
    host_share: str | None = None,
) -> ContainerGrant:
    """The grant for one container; ``device_paths`` maps each id to its ``/dev`` path and
    ``include_device_file`` says which of them get a device spec."""
    ids = tuple(device_ids)
    listed = ",".join(ids)
    files = tuple(
        DeviceFile(device_paths[d], device_paths[d]) for d in ids if include_device_file.get(d, False)
    )
    mounts = (ShareMount(SHARE_CONTAINER_PATH, host_share),) if host_share else ()
    return ContainerGrant(
        device_ids=ids,
        envs={VISIBLE_DEVICES_ENV: listed},
        annotations={DEVICES_ANNOTATION: listed},
        device_files=files,
        mounts=mounts,
    )


def preferred_devices(
    available: Sequence[str],
    must_include: Sequence[str],
    size: int,
    numa_node: Mapping[str, int],
) -> list[str]:
    """Pick ``size`` devices from ``available``, keeping ``must_include``, on as few NUMA nodes as possible.

    When the rest fits on one NUMA node it comes from the node that fits it most tightly, so that larger
    free blocks stay whole for later requests; otherwise the fullest nodes are drained first. Devices
    without topology count as one more group, chosen last among equals. The order is deterministic."""
    offered = list(dict.fromkeys(available))
    chosen = [d for d in dict.fromkeys(must_include) if d in offered]
    need = min(size, len(offered)) - len(chosen)
    if need <= 0:
        return chosen
    taken = set(chosen)
    groups: dict[int | None, list[str]] = {}
    for device_id in sorted((d for d in offered if d not in taken), key=_natural):
        groups.setdefault(numa_node.get(device_id), []).append(device_id)
    home = {numa_node.get(d) for d in chosen}

    def rank_fit(node: int | None) -> tuple[int, int, int, int]:
        # Nodes already holding a must-include device first, then the tightest fit, then node id.
        return (node not in home, len(groups[node]), node is None, -1 if node is None else node)

    fitting = sorted((n for n in groups if len(groups[n]) >= need), key=rank_fit)
    if fitting:
        return chosen + groups[fitting[0]][:need]

    def rank_fill(node: int | None) -> tuple[int, int, int, int]:
        return (node not in home, -len(groups[node]), node is None, -1 if node is None else node)

    for node in sorted(groups, key=rank_fill):
        chosen += groups[node][:need]
        need -= len(groups[node][:need])
        if need == 0:
            break
    return chosen


def _natural(device_id: str) -> tuple[str, int, str]:
    # lpu10 after lpu9: compare the text before the trailing digits, then the number.
    stem = device_id.rstrip("0123456789")
    digits = device_id[len(stem) :]
    return (stem, int(digits) if digits else -1, device_id)
