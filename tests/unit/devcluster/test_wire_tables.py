"""Server-side tables: the cells kube-apiserver's printers (`pkg/printers/internalversion`) fill."""

from __future__ import annotations

from typing import Any

import pytest

from nufi_sandbox.devcluster.resources import ResourceRegistry
from nufi_sandbox.devcluster.wire.tables import human_duration, to_table

Obj = dict[str, Any]
_REGISTRY = ResourceRegistry.with_builtins()


def row(group: str, plural: str, obj: Obj) -> dict[str, Any]:
    """The one row's cells by column name."""
    version = "v1"
    rt = _REGISTRY.lookup(group, version, plural)
    assert rt is not None
    obj.setdefault("metadata", {}).setdefault("name", "x")
    table = to_table(rt, [obj], {})
    names = [c["name"] for c in table["columnDefinitions"]]
    return dict(zip(names, table["rows"][0]["cells"], strict=True))


@pytest.mark.parametrize(
    ("meta", "status", "state"),
    [
        ({}, {}, "pending"),
        ({}, {"allocation": {"devices": {}}}, "allocated"),
        ({}, {"allocation": {"devices": {}}, "reservedFor": [{"name": "p"}]}, "allocated,reserved"),
        ({"deletionTimestamp": "2026-01-01T00:00:00Z"}, {}, "deleted"),
        ({"deletionTimestamp": "2026-01-01T00:00:00Z"}, {"allocation": {"devices": {}}}, "deleted,allocated"),
    ],
)
def test_a_claims_state_is_summed_up_as_upstream_does(meta: Obj, status: Obj, state: str) -> None:
    claim = {"metadata": {"name": "c", **meta}, "status": status}
    assert row("resource.k8s.io", "resourceclaims", claim)["State"] == state


def test_a_slice_shows_its_node_driver_and_pool_and_a_node_less_slice_a_blank() -> None:
    spec = {"driver": "gpu.nvidia.com", "nodeName": "n1", "pool": {"name": "n1"}}
    cells = row("resource.k8s.io", "resourceslices", {"spec": spec})
    assert [cells["Node"], cells["Driver"], cells["Pool"]] == ["n1", "gpu.nvidia.com", "n1"]
    shared = row("resource.k8s.io", "resourceslices", {"spec": {"driver": "d", "allNodes": True, "pool": {}}})
    assert shared["Node"] == ""


@pytest.mark.parametrize(
    ("spec", "status", "external", "ports"),
    [
        ({"type": "ClusterIP", "ports": []}, {}, "<none>", "<none>"),
        (
            {"type": "NodePort", "ports": [{"port": 80, "nodePort": 30080, "protocol": "TCP"}]},
            {},
            "<none>",
            "80:30080/TCP",
        ),
        ({"type": "LoadBalancer", "ports": [{"port": 53, "protocol": "UDP"}]}, {}, "<pending>", "53/UDP"),
        (
            {"type": "LoadBalancer", "externalIPs": ["9.9.9.9"]},
            {"loadBalancer": {"ingress": [{"ip": "1.2.3.4"}, {"hostname": "lb.example"}]}},
            "1.2.3.4,lb.example,9.9.9.9",
            "<none>",
        ),
        ({"type": "ExternalName", "externalName": "db.example"}, {}, "db.example", "<none>"),
    ],
)
def test_a_service_shows_its_external_address_and_ports(
    spec: Obj, status: Obj, external: str, ports: str
) -> None:
    cells = row("", "services", {"spec": {"clusterIPs": ["10.96.0.1"], **spec}, "status": status})
    assert (cells["External-IP"], cells["Port(s)"]) == (external, ports)
    assert cells["Selector"] == "<none>"


def test_an_event_prefers_its_series_and_falls_back_to_its_event_time() -> None:
    event = {
        "involvedObject": {"kind": "Pod", "name": "web-0", "fieldPath": "spec.containers{app}"},
        "reason": "BackOff",
        "type": "Warning",
        "message": "  Back-off restarting  \n",
        "eventTime": "2020-01-01T00:00:00.123456Z",
        "reportingComponent": "kubelet",
        "reportingInstance": "node-1",
        "series": {"count": 7, "lastObservedTime": "2020-01-01T00:00:00.5Z"},
    }
    cells = row("", "events", event)
    assert cells["Object"] == "pod/web-0" and cells["Subobject"] == "spec.containers{app}"
    assert cells["Source"] == "kubelet, node-1" and cells["Message"] == "Back-off restarting"
    assert cells["Count"] == 7 and cells["First Seen"].endswith("d") and cells["Last Seen"].endswith("d")
    lone = row("", "events", {"involvedObject": {"kind": "Node"}, "source": {"component": "c"}})
    assert (lone["Object"], lone["Count"], lone["Source"], lone["Last Seen"]) == ("node", 1, "c", "<unknown>")


def test_a_bound_volume_claim_shows_its_capacity_and_access_modes_in_upstreams_order() -> None:
    claim = {
        "metadata": {"annotations": {"volume.beta.kubernetes.io/storage-class": "legacy"}},
        "spec": {"volumeName": "pv-1", "storageClassName": "fast", "volumeMode": "Filesystem"},
        "status": {
            "phase": "Bound",
            "accessModes": ["ReadWriteMany", "ReadWriteOnce"],
            "capacity": {"storage": "5Gi"},
        },
    }
    cells = row("", "persistentvolumeclaims", claim)
    assert [cells[c] for c in ("Status", "Volume", "Capacity", "Access Modes", "StorageClass")] == [
        "Bound",
        "pv-1",
        "5Gi",
        "RWO,RWX",
        "legacy",
    ]
    assert (cells["VolumeAttributesClass"], cells["VolumeMode"]) == ("<unset>", "Filesystem")
    unbound = row("", "persistentvolumeclaims", {"metadata": {"deletionTimestamp": "x"}, "spec": {}})
    assert [unbound[c] for c in ("Status", "Capacity", "Access Modes")] == ["Terminating", "", ""]


_H, _D = 3600, 86400


@pytest.mark.parametrize(
    ("seconds", "shown"),
    [
        (-2, "<invalid>"),
        (-1, "0s"),
        (119, "119s"),
        (120, "2m"),
        (150, "2m30s"),
        (599, "9m59s"),
        (600, "10m"),
        (179 * 60 + 59, "179m"),
        (3 * _H, "3h"),
        (3 * _H + 5 * 60, "3h5m"),
        (47 * _H + 59 * 60, "47h"),
        (48 * _H, "2d"),
        (49 * _H, "2d1h"),
        (8 * _D, "8d"),
        (729 * _D, "729d"),
        (730 * _D, "2y"),
        (731 * _D, "2y1d"),
        (8 * 365 * _D + _D, "8y"),
    ],
)
def test_ages_read_as_kubectl_reads_them(seconds: int, shown: str) -> None:
    assert human_duration(seconds) == shown
