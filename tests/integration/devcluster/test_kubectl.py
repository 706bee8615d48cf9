"""kubectl, the reference client, against the dev cluster: discovery, tables, apply, selectors, patch."""

from __future__ import annotations

import json
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from nufi_sandbox.devcluster.launcher import DevClusterProcess
from support.dev_cluster import dev_cluster
from support.kubectl import KUBECTL, columns, kubectl, row

pytestmark = [
    pytest.mark.skipif(
        KUBECTL is None, reason="kubectl is not installed; the kubernetes-asyncio tests cover the API"
    ),
]


@pytest.fixture(scope="module")
def cluster() -> Iterator[DevClusterProcess]:
    with dev_cluster(None, prefix="kubectl-", simulation=False) as process:
        yield process


def test_kubectl_maps_resources_through_discovery(cluster: DevClusterProcess) -> None:
    resources = kubectl(cluster, "api-resources", "-o", "name")
    for name in (
        "pods",
        "nodes",
        "deployments.apps",
        "endpointslices.discovery.k8s.io",
        "leases.coordination.k8s.io",
        "customresourcedefinitions.apiextensions.k8s.io",
    ):
        assert name in resources.split()


def test_kubectl_apply_get_label_and_patch(cluster: DevClusterProcess, tmp_path: Path) -> None:
    manifest = tmp_path / "cm.yaml"
    manifest.write_text(
        textwrap.dedent("""\
        apiVersion: v1
        kind: Namespace
        metadata:
          name: kube-test
        ---
        apiVersion: v1
        kind: ConfigMap
        metadata:
          name: settings
          namespace: kube-test
          labels: {app: demo}
        data:
          mode: fast
        """)
    )
    out = kubectl(cluster, "apply", "-f", str(manifest))
    assert "configmap/settings created" in out
    again = kubectl(cluster, "apply", "-f", str(manifest))
    assert "configmap/settings unchanged" in again

    listed = json.loads(
        kubectl(cluster, "get", "configmaps", "-n", "kube-test", "-l", "app=demo", "-o", "json")
    )
    assert [item["metadata"]["name"] for item in listed["items"]] == ["settings"]

    table = kubectl(cluster, "get", "configmaps", "-n", "kube-test")
    assert table.splitlines()[0].split()[:2] == ["NAME", "AGE"]
    assert "settings" in table

    kubectl(
        cluster,
        "patch",
        "configmap",
        "settings",
        "-n",
        "kube-test",
        "--type=merge",
        "-p",
        '{"data":{"mode":"slow"}}',
    )
    value = kubectl(cluster, "get", "configmap", "settings", "-n", "kube-test", "-o", "jsonpath={.data.mode}")
    assert value == "slow"

    kubectl(cluster, "delete", "namespace", "kube-test")
    gone = kubectl(cluster, "get", "configmap", "settings", "-n", "kube-test", check=False)
    assert "NotFound" in gone or "not found" in gone


def test_kubectl_reports_invalid_objects(cluster: DevClusterProcess) -> None:
    out = kubectl(cluster, "create", "configmap", "Not_Valid", check=False)
    assert "is invalid" in out and "metadata.name" in out


def test_kubectl_creates_and_lists_a_quota_and_shows_its_refusal(cluster: DevClusterProcess) -> None:
    lpu = "hyperaccel.ai/lpu"
    kubectl(cluster, "create", "quota", "team", f"--hard=requests.{lpu}=1,limits.cpu=2")
    table = kubectl(cluster, "get", "quota", "team").splitlines()
    assert table[0].split() == ["NAME", "AGE", "REQUEST", "LIMIT"]
    assert table[1].split()[0] == "team" and table[1].split()[2:] == [
        f"requests.{lpu}:",
        "0/1",
        "limits.cpu:",
        "0/2",
    ]
    container = {"name": "c", "image": "busybox:1", "resources": {"limits": {lpu: "2", "cpu": "1"}}}
    overrides = json.dumps({"spec": {"containers": [container]}})
    out = kubectl(cluster, "run", "big", "--image=busybox:1", f"--overrides={overrides}", check=False)
    assert out.strip() == (
        f'Error from server (Forbidden): pods "big" is forbidden: exceeded quota: team, '
        f"requested: requests.{lpu}=2, used: requests.{lpu}=0, limited: requests.{lpu}=1"
    )
    kubectl(cluster, "delete", "quota", "team")


def _applied(cluster: DevClusterProcess, namespace: str, objects: str, folder: Path) -> Path:
    """`objects` applied in a new namespace; the manifest, to delete them by."""
    kubectl(cluster, "create", "namespace", namespace)
    manifest = folder / f"{namespace}.yaml"
    manifest.write_text(objects)
    kubectl(cluster, "apply", "-f", str(manifest))
    return manifest


_TABLE_OBJECTS = """\
apiVersion: v1
kind: Service
metadata: {name: web, namespace: tables}
spec:
  selector: {app: web}
  ports: [{port: 80, targetPort: 8080}]
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: data, namespace: tables}
spec:
  accessModes: [ReadWriteOnce]
  storageClassName: standard
  resources: {requests: {storage: 1Gi}}
---
apiVersion: v1
kind: Event
metadata: {name: web.1, namespace: tables}
involvedObject: {kind: Pod, name: web-0, namespace: tables}
reason: FailedScheduling
type: Warning
message: "0/3 nodes are available: 3 Insufficient hyperaccel.ai/lpu."
source: {component: default-scheduler}
count: 1
"""


def test_kubectl_prints_services_events_and_claims_with_the_apiservers_columns(
    cluster: DevClusterProcess, tmp_path: Path
) -> None:
    _applied(cluster, "tables", _TABLE_OBJECTS, tmp_path)

    services = kubectl(cluster, "get", "services", "-n", "tables")
    assert columns(services) == ["NAME", "TYPE", "CLUSTER-IP", "EXTERNAL-IP", "PORT(S)", "AGE"]
    web = row(services, "web")
    assert web[1] == "ClusterIP" and web[2].startswith("10.") and web[3:5] == ["<none>", "80/TCP"]
    assert columns(kubectl(cluster, "get", "services", "-n", "tables", "-o", "wide"))[-1] == "SELECTOR"

    events = kubectl(cluster, "get", "events", "-n", "tables")
    assert columns(events) == ["LAST SEEN", "TYPE", "REASON", "OBJECT", "MESSAGE"]
    assert events.splitlines()[1].split()[1:4] == ["Warning", "FailedScheduling", "pod/web-0"]
    assert events.splitlines()[1].endswith("0/3 nodes are available: 3 Insufficient hyperaccel.ai/lpu.")

    claims = kubectl(cluster, "get", "pvc", "-n", "tables")
    assert columns(claims) == [
        "NAME",
        "STATUS",
        "VOLUME",
        "CAPACITY",
        "ACCESS MODES",
        "STORAGECLASS",
        "VOLUMEATTRIBUTESCLASS",
        "AGE",
    ]
    # Only the columns the claim fills show in the split row: STORAGECLASS, VOLUMEATTRIBUTESCLASS, AGE.
    assert row(claims, "data")[-3:-1] == ["standard", "<unset>"]
    kubectl(cluster, "delete", "namespace", "tables")


_DRA_OBJECTS = """\
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: lpu.hyperaccel.ai}
spec:
  selectors: [{cel: {expression: "device.driver == 'lpu.hyperaccel.ai'"}}]
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: lpu-node-3-lpu}
spec:
  driver: lpu.hyperaccel.ai
  nodeName: lpu-node-3
  pool: {name: lpu-node-3, generation: 1, resourceSliceCount: 1}
  devices: [{name: lpu-0}]
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {name: one-lpu, namespace: dra-tables}
spec:
  spec:
    devices:
      requests: [{name: lpu, exactly: {deviceClassName: lpu.hyperaccel.ai}}]
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: held, namespace: dra-tables}
spec:
  devices:
    requests: [{name: lpu, exactly: {deviceClassName: lpu.hyperaccel.ai}}]
"""

_ALLOCATED = {
    "status": {
        "allocation": {
            "devices": {
                "results": [
                    {"request": "lpu", "driver": "lpu.hyperaccel.ai", "pool": "lpu-node-3", "device": "lpu-0"}
                ]
            },
        },
        "reservedFor": [{"resource": "pods", "name": "web", "uid": "6d3f0b9e-5a1c-4f8e-9a1b-2c3d4e5f6a7b"}],
    }
}


def test_kubectl_prints_dra_objects_with_the_apiservers_columns(
    cluster: DevClusterProcess, tmp_path: Path
) -> None:
    manifest = _applied(cluster, "dra-tables", _DRA_OBJECTS, tmp_path)
    classes = kubectl(cluster, "get", "deviceclasses")
    assert columns(classes) == ["NAME", "AGE"] and row(classes, "lpu.hyperaccel.ai")
    slices = kubectl(cluster, "get", "resourceslices")
    assert columns(slices) == ["NAME", "NODE", "DRIVER", "POOL", "AGE"]
    assert row(slices, "lpu-node-3-lpu")[1:4] == ["lpu-node-3", "lpu.hyperaccel.ai", "lpu-node-3"]
    templates = kubectl(cluster, "get", "resourceclaimtemplates", "-n", "dra-tables")
    assert columns(templates) == ["NAME", "AGE"] and row(templates, "one-lpu")

    claims = kubectl(cluster, "get", "resourceclaims", "-n", "dra-tables")
    assert columns(claims) == ["NAME", "STATE", "AGE"]
    assert row(claims, "held")[1] == "pending"
    status = json.dumps(_ALLOCATED)
    kubectl(
        cluster,
        "patch",
        "resourceclaim",
        "held",
        "-n",
        "dra-tables",
        "--subresource=status",
        "--type=merge",
        "-p",
        status,
    )
    held = kubectl(cluster, "get", "resourceclaim", "held", "-n", "dra-tables")
    assert row(held, "held")[1] == "allocated,reserved"
    kubectl(cluster, "delete", "-f", str(manifest))
