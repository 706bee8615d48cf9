"""The checked-in kubelet gRPC bindings: current with their .proto files, with the kubelet's wire
names and field numbers."""

from __future__ import annotations

from typing import Any

from google.protobuf import descriptor_pb2

from nufi_mock.kubelet_api import (
    deviceplugin_v1beta1_pb2,
    dra_v1_pb2,
    generate,
    pluginregistration_v1_pb2,
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
    assert numbers(v1.ContainerResources) == {
        "name": 1,
        "devices": 2,
        "cpu_ids": 3,
        "memory": 4,
        "dynamic_resources": 5,
    }
    assert numbers(v1.ContainerDevices) == {"resource_name": 1, "device_ids": 2, "topology": 3}
    assert numbers(v1.GetPodResourcesRequest) == {"pod_name": 1, "pod_namespace": 2}
    alpha = podresources_v1alpha1_pb2
    assert [m.full_name for m in alpha.DESCRIPTOR.services_by_name["PodResourcesLister"].methods] == [
        "v1alpha1.PodResourcesLister.List"
    ]
    assert numbers(alpha.ContainerDevices) == {"resource_name": 1, "device_ids": 2}


def _methods(file: Any) -> list[str]:
    services = file.services_by_name.values()
    return [f"/{m.containing_service.full_name}/{m.name}" for s in services for m in s.methods]


def test_dra_and_plugin_registration_match_the_kubelet() -> None:
    def numbers(message: Any) -> dict[str, int]:
        return {f.name: f.number for f in message.DESCRIPTOR.fields}

    assert _methods(dra_v1_pb2.DESCRIPTOR) == [
        "/k8s.io.kubelet.pkg.apis.dra.v1.DRAPlugin/NodePrepareResources",
        "/k8s.io.kubelet.pkg.apis.dra.v1.DRAPlugin/NodeUnprepareResources",
    ]
    dra = dra_v1_pb2
    assert numbers(dra.Claim) == {"namespace": 1, "uid": 2, "name": 3}
    assert numbers(dra.Device) == {"request_names": 1, "pool_name": 2, "device_name": 3, "cdi_device_ids": 4}
    assert numbers(dra.NodePrepareResourceResponse) == {"devices": 1, "error": 2}
    assert numbers(dra.NodeUnprepareResourceResponse) == {"error": 1}
    assert _methods(pluginregistration_v1_pb2.DESCRIPTOR) == [
        "/pluginregistration.Registration/GetInfo",
        "/pluginregistration.Registration/NotifyRegistrationStatus",
    ]
    reg = pluginregistration_v1_pb2
    assert numbers(reg.PluginInfo) == {"type": 1, "name": 2, "endpoint": 3, "supported_versions": 4}
    assert numbers(reg.RegistrationStatus) == {"plugin_registered": 1, "error": 2}
    v1 = podresources_v1_pb2
    dynamic = descriptor_pb2.DescriptorProto()
    v1.DynamicResource.DESCRIPTOR.CopyToProto(dynamic)
    # class_name was removed upstream; its number must stay taken.
    assert [(r.start, r.end) for r in dynamic.reserved_range] == [(1, 2)]
    assert numbers(v1.DynamicResource) == {"claim_name": 2, "claim_namespace": 3, "claim_resources": 4}
    assert numbers(v1.ClaimResource) == {"cdi_devices": 1, "driver_name": 2, "pool_name": 3, "device_name": 4}
    assert numbers(v1.CDIDevice) == {"name": 1}
