"""The dev cluster's API takes only requests carrying its bearer token, as a kube-apiserver with a
static token does: anyone else on the loopback (a sandbox pod) gets 401 and an Unauthorized `Status`;
the health endpoints and /version stay open, as kube-apiserver's `system:public-info-viewer` leaves them.
The real kubectl and kubernetes-asyncio get in with the kubeconfig it writes."""

from __future__ import annotations

import shutil
import ssl
import stat
import subprocess
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import yaml
from kubernetes_asyncio import client
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus

from nufi_sandbox.devcluster.launcher import DevClusterProcess
from support.dev_cluster import dev_cluster
from support.kube import api_client

KUBECTL = shutil.which("kubectl")

# Every kind of path the API serves: resources, discovery, OpenAPI, a services proxy, pod logs, watch,
# and the dev cluster's own kubelet control.
GUARDED = [
    ("GET", "/api/v1/namespaces/default/pods"),
    ("GET", "/api/v1/nodes"),
    ("GET", "/api/v1/pods?watch=1"),
    ("POST", "/api/v1/namespaces"),
    ("DELETE", "/api/v1/namespaces/default"),
    ("GET", "/api"),
    ("GET", "/apis"),
    ("GET", "/api/v1"),
    ("GET", "/apis/apps/v1"),
    ("GET", "/openapi/v3"),
    ("GET", "/api/v1/namespaces/default/services/web:80/proxy/"),
    ("GET", "/api/v1/namespaces/default/pods/p/log"),
    ("POST", "/devcluster/nodes/node-1/restart-kubelet"),
]
PUBLIC = ["/healthz", "/livez", "/readyz", "/version"]


@pytest.fixture(scope="module")
def cluster() -> Iterator[DevClusterProcess]:
    with dev_cluster(None, prefix="tok-", simulation=False) as process:
        yield process


def _unauthorized(response: httpx.Response) -> None:
    assert response.status_code == 401, response.text
    assert response.json() == {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": "Unauthorized",
        "reason": "Unauthorized",
        "code": 401,
    }


@pytest.mark.parametrize(("method", "path"), GUARDED)
@pytest.mark.parametrize(
    "authorization",
    [None, "Bearer wrong-token", "Basic YWRtaW46YWRtaW4=", "Bearer", "Token wrong-token"],
    ids=["none", "wrong", "basic", "scheme-only", "other-scheme"],
)
def test_a_request_without_the_token_is_unauthorized(
    cluster: DevClusterProcess, method: str, path: str, authorization: str | None
) -> None:
    headers = {} if authorization is None else {"Authorization": authorization}
    _unauthorized(httpx.request(method, cluster.url + path, headers=headers, timeout=10.0))


def test_a_token_it_was_not_given_is_unauthorized(cluster: DevClusterProcess) -> None:
    # Another cluster's token, and the fixed one the dev cluster once took from everyone.
    for token in (cluster.token + "x", cluster.token[:-1], "nufi-dev-token"):
        response = httpx.get(f"{cluster.url}/api/v1/nodes", headers={"Authorization": f"Bearer {token}"})
        _unauthorized(response)


def test_the_https_port_the_kubeconfig_names_takes_the_same_token(cluster: DevClusterProcess) -> None:
    (entry,) = yaml.safe_load(Path(cluster.kubeconfig).read_text())["clusters"]
    assert entry["cluster"]["server"] == cluster.tls_url
    trusted = ssl.create_default_context(cafile=str(cluster.certificate))
    with httpx.Client(base_url=cluster.tls_url, verify=trusted, timeout=10.0) as https:
        _unauthorized(https.get("/api/v1/namespaces"))
        assert https.get("/readyz").status_code == 200
        assert https.get("/api/v1/namespaces", headers=cluster.headers).status_code == 200


async def test_a_websocket_upgrade_without_the_token_is_unauthorized(cluster: DevClusterProcess) -> None:
    url = cluster.url.replace("http://", "ws://") + "/api/v1/namespaces/default/services/web:80/proxy/ws"
    with pytest.raises(InvalidStatus) as refused:
        async with connect(url, additional_headers={"Authorization": "Bearer wrong"}):
            pass
    assert refused.value.response.status_code == 401
    assert b'"reason":"Unauthorized"' in refused.value.response.body


@pytest.mark.parametrize("path", PUBLIC)
def test_health_and_version_stay_open(cluster: DevClusterProcess, path: str) -> None:
    assert httpx.get(cluster.url + path, timeout=10.0).status_code == 200


def test_the_token_lets_a_request_in_whatever_the_scheme_case(cluster: DevClusterProcess) -> None:
    for scheme in ("Bearer", "bearer", "BEARER"):
        headers = {"Authorization": f"{scheme} {cluster.token}"}
        response = httpx.get(f"{cluster.url}/api/v1/namespaces", headers=headers, timeout=10.0)
        assert response.status_code == 200, response.text
        assert response.json()["kind"] == "NamespaceList"


def test_the_kubeconfig_holds_the_token_and_only_its_owner_reads_it(cluster: DevClusterProcess) -> None:
    path = Path(cluster.kubeconfig)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    (user,) = yaml.safe_load(path.read_text())["users"]
    assert user["user"]["token"] == cluster.token
    # Made at start, never written on the command line every user can read in /proc.
    assert cluster.token not in " ".join(cluster.process.argv)


def test_each_cluster_makes_its_own_token_unless_given_one(tmp_path: Path) -> None:
    first, second = DevClusterProcess(tmp_path / "a"), DevClusterProcess(tmp_path / "b")
    assert first.token != second.token and len(first.token) >= 32
    assert DevClusterProcess(tmp_path / "c", token="given").token == "given"


async def test_kubernetes_asyncio_gets_in_with_the_kubeconfig(cluster: DevClusterProcess) -> None:
    async with api_client(Path(cluster.kubeconfig)) as api:
        namespaces = await client.CoreV1Api(api).list_namespace()
    assert "default" in {n.metadata.name for n in namespaces.items}


@pytest.mark.skipif(KUBECTL is None, reason="kubectl is not installed; kubernetes-asyncio is checked above")
def test_kubectl_gets_in_with_the_kubeconfig_and_not_without_the_token(
    cluster: DevClusterProcess, tmp_path: Path
) -> None:
    assert KUBECTL is not None

    def kubectl(kubeconfig: Path) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [KUBECTL, "--kubeconfig", str(kubeconfig), "--request-timeout=10s", "get", "namespaces"],
            capture_output=True,
            text=True,
            timeout=60,
            env={"HOME": str(tmp_path), "PATH": "/usr/bin:/bin"},
        )

    allowed = kubectl(Path(cluster.kubeconfig))
    assert allowed.returncode == 0 and "default" in allowed.stdout, allowed.stderr
    config = yaml.safe_load(Path(cluster.kubeconfig).read_text())
    config["users"][0]["user"]["token"] = "not-the-token"
    stranger = tmp_path / "kubeconfig"
    stranger.write_text(yaml.safe_dump(config))
    refused = kubectl(stranger)
    assert refused.returncode != 0
    assert "Unauthorized" in refused.stderr, refused.stderr
