"""kubectl, the reference client, against the dev cluster: discovery, tables, apply, selectors, patch."""

from __future__ import annotations

import json
import shutil
import subprocess
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from nufi_sandbox.devcluster.launcher import DevClusterProcess
from support.dev_cluster import dev_cluster

KUBECTL = shutil.which("kubectl")

pytestmark = [
    pytest.mark.skipif(
        KUBECTL is None, reason="kubectl is not installed; the kubernetes-asyncio tests cover the API"
    ),
]


@pytest.fixture(scope="module")
def cluster() -> Iterator[DevClusterProcess]:
    with dev_cluster(None, prefix="kubectl-", simulation=False) as process:
        yield process


def kubectl(cluster: DevClusterProcess, *args: str, stdin: str | None = None, check: bool = True) -> str:
    assert KUBECTL is not None
    result = subprocess.run(
        [KUBECTL, "--kubeconfig", str(cluster.kubeconfig), "--request-timeout=10s", *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
        env={"HOME": str(cluster.state_dir), "PATH": "/usr/bin:/bin"},
    )
    if check and result.returncode != 0:
        raise AssertionError(f"kubectl {' '.join(args)} failed: {result.stderr}")
    return result.stdout + (result.stderr if not check else "")


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
