"""Pod attribution from PodResources answers: resource patterns, device id forms, both API versions."""

from __future__ import annotations

import pytest

from nufi_mock.exporter.attribution import (
    ContainerDevices,
    base_device_id,
    flatten,
    flatten_dynamic,
    owners,
    resource_matches,
)
from nufi_mock.exporter.fleet import Fleet
from nufi_mock.exporter.hardware import GIB, HardwareSpec, ThermalModel
from nufi_mock.exporter.profiles.lpu import LpuProfile
from nufi_mock.exporter.readings import DeviceIdentity, PodRef
from nufi_mock.kubelet_api import podresources_v1_pb2 as v1
from nufi_mock.kubelet_api import podresources_v1alpha1_pb2 as v1alpha1


def fleet() -> Fleet:
    return Fleet(
        ["n1"],
        devices_per_node=4,
        numa_nodes=2,
        hardware=HardwareSpec("t", GIB),
        thermal=ThermalModel(),
        seed=0,
        device_label=lambda i: f"npu{i}",
    )


def entry(resource: str, *ids: str, pod: str = "p", container: str = "c") -> ContainerDevices:
    return ContainerDevices("ns", pod, container, resource, ids)


@pytest.mark.parametrize(
    ("resource", "patterns", "expected"),
    [
        ("hyperaccel.ai/lpu", ("hyperaccel.ai/lpu",), True),
        ("hyperaccel.ai/lpu2", ("hyperaccel.ai/lpu",), False),
        ("nvidia.com/mig-1g.5gb", ("nvidia.com/gpu", "nvidia.com/mig-*"), True),
        ("furiosa.ai/rngd-2core.12gb", ("furiosa.ai*",), True),
        ("beta.furiosa.ai/npu", ("furiosa.ai*",), False),
    ],
)
def test_resource_patterns(resource: str, patterns: tuple[str, ...], expected: bool) -> None:
    assert resource_matches(resource, patterns) is expected


def test_furiosa_partition_ids_name_their_device() -> None:
    assert base_device_id("a3e7-8106_cores_0-1") == "a3e7-8106"
    assert base_device_id("lpu3") == "lpu3"


def test_every_device_name_form_finds_the_device() -> None:
    devices = fleet()
    identity = DeviceIdentity("n1", 2, 1)
    for name in ("lpu2", "npu2", identity.uuid.upper(), f"GPU-{identity.uuid}", identity.pci_address(4), "2"):
        assert devices.resolve("n1", name) == 2, name
    assert devices.resolve("n1", "lpu9") is None
    assert devices.resolve("n2", "lpu2") is None


def test_owners_keep_matching_resources_and_known_devices() -> None:
    devices = fleet()
    uuid3 = DeviceIdentity("n1", 3, 1).uuid
    found = owners(
        [
            entry("hyperaccel.ai/lpu", "lpu0", "lpu1", pod="infer"),
            entry("other.example/x", "lpu2", pod="other"),
            entry("hyperaccel.ai/lpu", f"{uuid3}_cores_0-3", "lpu17", pod="part"),
        ],
        ("hyperaccel.ai/lpu",),
        lambda name: devices.resolve("n1", name),
    )
    assert found == {
        0: PodRef("ns", "infer", "c"),
        1: PodRef("ns", "infer", "c"),
        3: PodRef("ns", "part", "c"),
    }


def test_both_api_versions_flatten_alike() -> None:
    as_v1 = v1.ListPodResourcesResponse(
        pod_resources=[
            v1.PodResources(
                name="infer",
                namespace="team",
                containers=[
                    v1.ContainerResources(
                        name="app",
                        devices=[
                            v1.ContainerDevices(
                                resource_name="hyperaccel.ai/lpu",
                                device_ids=["lpu0", "lpu1"],
                                topology=v1.TopologyInfo(nodes=[v1.NUMANode(ID=0)]),
                            )
                        ],
                    )
                ],
            )
        ]
    )
    as_alpha = v1alpha1.ListPodResourcesResponse()
    as_alpha.ParseFromString(as_v1.SerializeToString())
    expected = [ContainerDevices("team", "infer", "app", "hyperaccel.ai/lpu", ("lpu0", "lpu1"))]
    assert flatten(as_v1) == expected
    assert flatten(as_alpha) == expected


def test_devices_held_through_a_dra_claim_are_attributed_by_the_lpu_profile_as_plugin_ones_are() -> None:
    def claim_device(device: str) -> v1.ClaimResource:
        cdi = [v1.CDIDevice(name="hyperaccel.ai/lpu=uid-lpus")]
        return v1.ClaimResource(
            cdi_devices=cdi, driver_name="lpu.hyperaccel.ai", pool_name="n1", device_name=device
        )

    response = v1.ListPodResourcesResponse(
        pod_resources=[
            v1.PodResources(
                name="dra-infer",
                namespace="team",
                containers=[
                    v1.ContainerResources(
                        name="app",
                        dynamic_resources=[
                            v1.DynamicResource(
                                claim_name="pair",
                                claim_namespace="team",
                                claim_resources=[claim_device("lpu1"), claim_device("lpu3")],
                            )
                        ],
                    )
                ],
            )
        ]
    )
    entries = flatten(response) + flatten_dynamic(response)
    assert entries == [
        ContainerDevices("team", "dra-infer", "app", "lpu.hyperaccel.ai", ("lpu1",)),
        ContainerDevices("team", "dra-infer", "app", "lpu.hyperaccel.ai", ("lpu3",)),
    ]
    devices = fleet()
    found = owners(entries, LpuProfile.resource_patterns, lambda name: devices.resolve("n1", name))
    assert found == {1: PodRef("team", "dra-infer", "app"), 3: PodRef("team", "dra-infer", "app")}
