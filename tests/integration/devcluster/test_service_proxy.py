"""The services proxy subresource over pods that run as local processes, as the product reaches it."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from kubernetes_asyncio import client
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus
from websockets.typing import Subprotocol

from nufi_sandbox.devcluster.launcher import DevClusterProcess
from support.polling import until

from .processcluster import HTTP_PROBE, echo_cluster, echo_container, proxy_url, token_client


@pytest.fixture(scope="module")
def cluster() -> Iterator[DevClusterProcess]:
    with echo_cluster() as process:
        yield process


def _deployment(name: str, replicas: int, image: str | None = None) -> dict[str, Any]:
    container = echo_container(probe=HTTP_PROBE)
    if image is not None:
        container["image"] = image
    return {
        "metadata": {"name": name},
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": {"app": name}},
            "template": {"metadata": {"labels": {"app": name}}, "spec": {"containers": [container]}},
        },
    }


def _service(name: str, ports: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    return {
        "metadata": {"name": name},
        "spec": {
            "selector": {"app": name},
            "ports": ports or [{"name": "web", "port": 80, "targetPort": "http"}],
        },
    }


async def _ready_endpoints(api: client.ApiClient, namespace: str, service: str, count: int) -> None:
    discovery = client.DiscoveryV1Api(api)

    async def enough() -> bool:
        slices = await discovery.list_namespaced_endpoint_slice(
            namespace, label_selector=f"kubernetes.io/service-name={service}"
        )
        ready = [e for s in slices.items for e in s.endpoints or [] if e.conditions.ready]
        return len(ready) == count

    await until(enough, within=30)


async def test_requests_spread_over_both_replicas_and_reach_the_backend_unchanged(
    cluster: DevClusterProcess, api: client.ApiClient, namespace: str
) -> None:
    await client.AppsV1Api(api).create_namespaced_deployment(namespace, _deployment("web", 2))
    await client.CoreV1Api(api).create_namespaced_service(namespace, _service("web"))
    await _ready_endpoints(api, namespace, "web", 2)

    async with token_client() as http:
        answers = [
            (await http.get(proxy_url(cluster, namespace, "web:web", f"who/{i}"), params={"n": i})).json()
            for i in range(20)
        ]
        assert len({a["pid"] for a in answers}) == 2
        assert {a["raw_path"] for a in answers} == {f"/who/{i}" for i in range(20)}
        assert answers[3]["query"] == "n=3"
        assert "authorization" not in answers[0]["headers"]

        # By port number, by scheme:name:port, and the only port when none is named: the same Service.
        for service in ("web:80", "http:web:80", "web"):
            response = await http.get(proxy_url(cluster, namespace, service, "x"))
            assert response.status_code == 200 and response.json()["raw_path"] == "/x"
            assert response.headers["x-backend"] == "echo"

        posted = await http.post(proxy_url(cluster, namespace, "web:web", "submit"), content=b"a" * 100_000)
        assert posted.json()["method"] == "POST" and posted.json()["body"] == "a" * 100_000
        root = await http.delete(f"{cluster.url}/api/v1/namespaces/{namespace}/services/web/proxy")
        assert root.json()["method"] == "DELETE" and root.json()["raw_path"] == "/"

        # The proxy keeps no cookies of its own: one caller's never reach another, and a caller's own
        # Cookie header goes through as sent.
        await http.get(proxy_url(cluster, namespace, "web:web", "login"), params={"set_cookie": "lab=secret"})
        async with token_client() as stranger:
            seen = (await stranger.get(proxy_url(cluster, namespace, "web:web", "x"))).json()["headers"]
            assert "cookie" not in seen, seen
            sent = await stranger.get(
                proxy_url(cluster, namespace, "web:web", "x"), headers={"Cookie": "own=1"}
            )
            assert sent.json()["headers"]["cookie"] == "own=1"

        https = await http.get(proxy_url(cluster, namespace, "https:web:80", ""))
        assert https.status_code == 400 and https.json()["kind"] == "Status"
        missing_port = await http.get(proxy_url(cluster, namespace, "web:81", ""))
        assert missing_port.status_code == 503
        assert missing_port.json()["message"] == 'no service port 81 found for service "web"'
        missing = await http.get(proxy_url(cluster, namespace, "nothing", ""))
        assert missing.status_code == 404 and missing.json()["reason"] == "NotFound"


async def test_websocket_echo_through_the_proxy(
    cluster: DevClusterProcess, api: client.ApiClient, namespace: str
) -> None:
    await client.AppsV1Api(api).create_namespaced_deployment(namespace, _deployment("ws", 1))
    await client.CoreV1Api(api).create_namespaced_service(namespace, _service("ws"))
    await _ready_endpoints(api, namespace, "ws", 1)

    url = proxy_url(cluster, namespace, "ws:web", "ws").replace("http://", "ws://")
    async with connect(
        url,
        additional_headers=cluster.headers,
        subprotocols=[Subprotocol("v1.kernel")],
    ) as socket:
        assert socket.subprotocol == "v1.kernel"
        await socket.send("hello")
        text = await socket.recv()
        assert isinstance(text, str) and text.startswith("echo:hello:")
        await socket.send(b"\x00\x01")
        assert await socket.recv() == b"echo:\x00\x01"


async def test_scaled_to_zero_answers_503_with_the_real_message(
    cluster: DevClusterProcess, api: client.ApiClient, namespace: str
) -> None:
    apps = client.AppsV1Api(api)
    await apps.create_namespaced_deployment(namespace, _deployment("gone", 1))
    await client.CoreV1Api(api).create_namespaced_service(namespace, _service("gone"))
    await _ready_endpoints(api, namespace, "gone", 1)
    await apps.patch_namespaced_deployment_scale("gone", namespace, {"spec": {"replicas": 0}})
    v1 = client.CoreV1Api(api)

    async def no_pods() -> bool:
        return not (await v1.list_namespaced_pod(namespace, label_selector="app=gone")).items

    # Until then a terminating pod still counts: kube-proxy falls back to serving terminating endpoints.
    await until(no_pods, within=20)

    async with token_client() as http:
        response = await http.get(proxy_url(cluster, namespace, "gone:web", "x"))
    assert response.status_code == 503
    body = response.json()
    assert body["kind"] == "Status" and body["reason"] == "ServiceUnavailable"
    assert body["message"] == 'no endpoints available for service "gone"'

    # An upgrade is answered the same way: the handshake fails with the Status.
    url = proxy_url(cluster, namespace, "gone:web", "ws").replace("http://", "ws://")
    with pytest.raises(InvalidStatus) as refused:
        async with connect(url, additional_headers=cluster.headers):
            pass
    assert refused.value.response.status_code == 503
    assert b"no endpoints available" in refused.value.response.body


async def test_an_endpoint_without_a_local_process_answers_503(
    cluster: DevClusterProcess, api: client.ApiClient, namespace: str
) -> None:
    await client.AppsV1Api(api).create_namespaced_deployment(
        namespace, _deployment("sim", 1, image="busybox:1.36")
    )
    await client.CoreV1Api(api).create_namespaced_service(namespace, _service("sim"))
    await _ready_endpoints(api, namespace, "sim", 1)
    async with token_client() as http:
        response = await http.get(proxy_url(cluster, namespace, "sim:web", ""))
    assert response.status_code == 503
    assert json.loads(response.text)["message"].startswith("error trying to reach service: dial tcp 10.244.")
