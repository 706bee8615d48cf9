"""The checked-in kubelet gRPC bindings: current with their .proto files, with the kubelet's wire
names and field numbers."""

from __future__ import annotations

from typing import Any

from google.protobuf import descriptor_pb2

from nufi_mock.kubelet_api import (
    deviceplugin_v1beta1_pb2,
    generate,
    podresources_v1_pb2,
    podresources_v1alpha1_pb2,
)

_pb = deviceplugin_v1beta1_pb2


def test_checked_in_bindings_match_the_proto_files() -> None:
    rendered = generate.render()
    assert generate.stale_files(rendered) == []
    assert "from . import podresources_v1_pb2 as" in rendered["podresources_v1_pb2_grpc.py"]


def test_wire_names_and_field_numbers_match_the_kubelet() -> None:
    plugin_file = deviceplugin_v1beta1_pb2.DESCRIPTOR
    methods = {
        f"/{m.containing_service.full_name}/{m.name}": m.server_streaming
        for service in plugin_file.services_by_name.values()
        for m in service.methods
    }
    assert methods == {
        "/v1beta1.Registration/Register": False,
        "/v1beta1.DevicePlugin/GetDevicePluginOptions": False,
        "/v1beta1.DevicePlugin/ListAndWatch": True,
        "/v1beta1.DevicePlugin/GetPreferredAllocation": False,
        "/v1beta1.DevicePlugin/Allocate": False,
        "/v1beta1.DevicePlugin/PreStartContainer": False,
    }

    def numbers(message: Any) -> dict[str, int]:
        return {f.name: f.number for f in message.DESCRIPTOR.fields}

    assert numbers(_pb.RegisterRequest) == {"version": 1, "endpoint": 2, "resource_name": 3, "options": 4}
    assert numbers(_pb.Device) == {"ID": 1, "health": 2, "topology": 3}
    assert numbers(_pb.ContainerAllocateRequest) == {"devices_ids": 1}
    assert numbers(_pb.ContainerPreferredAllocationRequest) == {
        "available_deviceIDs": 1,
        "must_include_deviceIDs": 2,
        "allocation_size": 3,
    }
    assert numbers(_pb.ContainerAllocateResponse) == {
        "envs": 1,
        "mounts": 2,
        "devices": 3,
        "annotations": 4,
        "cdi_devices": 5,
    }
    v1 = podresources_v1_pb2
    assert [m.full_name for m in v1.DESCRIPTOR.services_by_name["PodResourcesLister"].methods] == [
        "v1.PodResourcesLister.List",
        "v1.PodResourcesLister.GetAllocatableResources",
        "v1.PodResourcesLister.Get",
    ]
    assert numbers(v1.PodResources) == {"name": 1, "namespace": 2, "containers": 3, "cpu_ids": 4, "memory": 5}
    assert numbers(v1.ContainerResources) == {"name": 1, "devices": 2, "cpu_ids": 3, "memory": 4}
    container_resources = descriptor_pb2.DescriptorProto()
    v1.ContainerResources.DESCRIPTOR.CopyToProto(container_resources)
    # dynamic_resources is not modelled; its number must stay taken.
    assert [(r.start, r.end) for r in container_resources.reserved_range] == [(5, 6)]
    assert numbers(v1.ContainerDevices) == {"resource_name": 1, "device_ids": 2, "topology": 3}
    assert numbers(v1.GetPodResourcesRequest) == {"pod_name": 1, "pod_namespace": 2}
    alpha = podresources_v1alpha1_pb2
    assert [m.full_name for m in alpha.DESCRIPTOR.services_by_name["PodResourcesLister"].methods] == [
        "v1alpha1.PodResourcesLister.List"
    ]
    assert numbers(alpha.ContainerDevices) == {"resource_name": 1, "device_ids": 2}
