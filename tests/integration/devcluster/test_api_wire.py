"""The dev cluster's REST API driven by kubernetes-asyncio, the client NuFi itself uses."""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from kubernetes_asyncio import client, watch
from kubernetes_asyncio.client.exceptions import ApiException

from nufi_sandbox.devcluster.launcher import DevClusterProcess
from support.dev_cluster import dev_cluster


def body_of(raised: pytest.ExceptionInfo[ApiException]) -> str:
    """The Status the API server answered with, as the text kubernetes-asyncio keeps of it."""
    body = raised.value.body
    assert isinstance(body, str), body
    return body


@pytest.fixture(scope="module")
def cluster() -> Iterator[DevClusterProcess]:
    with dev_cluster(None, prefix="api-", simulation=False, watch_history=40) as cluster:
        yield cluster


def _cm(name: str, labels: dict[str, str] | None = None) -> dict[str, object]:
    return {"metadata": {"name": name, "labels": labels or {}}, "data": {"k": "v"}}


async def test_create_sets_server_fields_and_get_returns_them(api: client.ApiClient, namespace: str) -> None:
    v1 = client.CoreV1Api(api)
    created = await v1.create_namespaced_config_map(namespace, _cm("one"))
    assert created.metadata.uid and created.metadata.resource_version
    assert created.metadata.creation_timestamp is not None
    fetched = await v1.read_namespaced_config_map("one", namespace)
    assert fetched.metadata.uid == created.metadata.uid
    assert fetched.data == {"k": "v"}
    with pytest.raises(ApiException) as exc:
        await v1.create_namespaced_config_map(namespace, _cm("one"))
    assert exc.value.status == 409 and '"reason":"AlreadyExists"' in body_of(exc).replace(" ", "")


async def test_missing_object_is_a_not_found_status(api: client.ApiClient, namespace: str) -> None:
    with pytest.raises(ApiException) as exc:
        await client.CoreV1Api(api).read_namespaced_config_map("nope", namespace)
    assert exc.value.status == 404
    assert 'configmaps \\"nope\\" not found' in body_of(exc) or 'configmaps "nope" not found' in body_of(exc)


async def test_create_in_missing_namespace_is_refused(api: client.ApiClient) -> None:
    with pytest.raises(ApiException) as exc:
        await client.CoreV1Api(api).create_namespaced_config_map("no-such-ns", _cm("x"))
    assert exc.value.status == 404


async def test_label_and_field_selectors(api: client.ApiClient, namespace: str) -> None:
    v1 = client.CoreV1Api(api)
    await v1.create_namespaced_config_map(namespace, _cm("a", {"tier": "web", "env": "prod"}))
    await v1.create_namespaced_config_map(namespace, _cm("b", {"tier": "db", "env": "prod"}))
    await v1.create_namespaced_config_map(namespace, _cm("c", {"tier": "web"}))

    async def names(**kw: str) -> list[str]:
        result = await v1.list_namespaced_config_map(namespace, **kw)
        return [item.metadata.name for item in result.items]

    assert await names(label_selector="tier=web") == ["a", "c"]
    assert await names(label_selector="tier!=web") == ["b"]
    assert await names(label_selector="tier in (web,db),env") == ["a", "b"]
    assert await names(label_selector="!env") == ["c"]
    assert await names(label_selector="env notin (prod)") == ["c"]
    assert await names(field_selector="metadata.name=b") == ["b"]
    assert await names(field_selector="metadata.name!=b", label_selector="tier=web") == ["a", "c"]
    with pytest.raises(ApiException) as exc:
        await v1.list_namespaced_config_map(namespace, field_selector="spec.nodeName=x")
    assert exc.value.status == 400


async def test_pagination_with_limit_and_continue(api: client.ApiClient, namespace: str) -> None:
    v1 = client.CoreV1Api(api)
    for i in range(7):
        await v1.create_namespaced_config_map(namespace, _cm(f"cm-{i}"))
    seen: list[str] = []
    token = None
    pages = 0
    while True:
        page = await v1.list_namespaced_config_map(namespace, limit=3, _continue=token)
        pages += 1
        seen += [item.metadata.name for item in page.items]
        token = page.metadata._continue
        if not token:
            break
    assert pages == 3
    assert seen == [f"cm-{i}" for i in range(7)]


async def test_stale_update_conflicts(api: client.ApiClient, namespace: str) -> None:
    v1 = client.CoreV1Api(api)
    first = await v1.create_namespaced_config_map(namespace, _cm("race"))
    first.data = {"k": "first"}
    await v1.replace_namespaced_config_map("race", namespace, first)
    first.data = {"k": "stale"}
    with pytest.raises(ApiException) as exc:
        await v1.replace_namespaced_config_map("race", namespace, first)
    assert exc.value.status == 409
    assert "the object has been modified" in body_of(exc)
    assert (await v1.read_namespaced_config_map("race", namespace)).data == {"k": "first"}


async def test_watch_from_resource_version(api: client.ApiClient, namespace: str) -> None:
    v1 = client.CoreV1Api(api)
    listed = await v1.list_namespaced_config_map(namespace)
    events: list[tuple[str, str]] = []

    async def consume() -> None:
        async with watch.Watch().stream(
            v1.list_namespaced_config_map,
            namespace,
            resource_version=listed.metadata.resource_version,
            timeout_seconds=10,
        ) as stream:
            async for event in stream:
                events.append((event["type"], event["object"].metadata.name))
                if event["type"] == "DELETED":
                    return

    task = asyncio.create_task(consume())
    await v1.create_namespaced_config_map(namespace, _cm("w"))
    await v1.patch_namespaced_config_map("w", namespace, {"data": {"k": "changed"}})
    await v1.delete_namespaced_config_map("w", namespace)
    await asyncio.wait_for(task, 10)
    assert events == [("ADDED", "w"), ("MODIFIED", "w"), ("DELETED", "w")]


async def test_watch_from_compacted_version_is_gone(api: client.ApiClient, namespace: str) -> None:
    v1 = client.CoreV1Api(api)
    old = (await v1.list_namespaced_config_map(namespace)).metadata.resource_version
    for i in range(45):  # the fixture keeps 40 events of history
        await v1.create_namespaced_config_map(namespace, _cm(f"churn-{i}"))
    with pytest.raises(ApiException) as exc:
        async with watch.Watch().stream(
            v1.list_namespaced_config_map, namespace, resource_version=old, timeout_seconds=5
        ) as stream:
            async for _ in stream:
                pass
    assert exc.value.status == 410


async def test_status_conditions_strategic_merge_keeps_others(api: client.ApiClient, namespace: str) -> None:
    v1 = client.CoreV1Api(api)
    pod = {
        "metadata": {"name": "p"},
        "spec": {
            "containers": [{"name": "c", "image": "busybox:1.36"}],
            "readinessGates": [{"conditionType": "nufi.dev/cool"}],
        },
    }
    await v1.create_namespaced_pod(namespace, pod)
    kubelet_conditions = [
        {"type": "PodScheduled", "status": "True"},
        {"type": "ContainersReady", "status": "True"},
        {"type": "Ready", "status": "False", "reason": "ReadinessGatesNotReady"},
    ]
    await v1.patch_namespaced_pod_status(
        "p", namespace, {"status": {"phase": "Running", "conditions": kubelet_conditions}}
    )
    # kubernetes-asyncio sends a dict body as strategic-merge-patch+json to a core type.
    patched = await v1.patch_namespaced_pod_status(
        "p",
        namespace,
        {
            "status": {
                "conditions": [
                    {"type": "nufi.dev/cool", "status": "True"},
                    {"type": "Ready", "status": "True"},
                ]
            }
        },
    )
    by_type = {c.type: c.status for c in patched.status.conditions}
    assert by_type == {
        "PodScheduled": "True",
        "ContainersReady": "True",
        "Ready": "True",
        "nufi.dev/cool": "True",
    }
    assert patched.status.phase == "Running"


async def test_merge_patch_replaces_condition_list(api: client.ApiClient, namespace: str) -> None:
    v1 = client.CoreV1Api(api)
    await v1.create_namespaced_pod(
        namespace, {"metadata": {"name": "m"}, "spec": {"containers": [{"name": "c", "image": "busybox:1"}]}}
    )
    await v1.patch_namespaced_pod_status(
        "m", namespace, {"status": {"conditions": [{"type": "PodScheduled", "status": "True"}]}}
    )
    await v1.patch_namespaced_pod_status(
        "m",
        namespace,
        {"status": {"conditions": [{"type": "nufi.dev/x", "status": "True"}]}},
        _content_type="application/merge-patch+json",
    )
    pod = await v1.read_namespaced_pod("m", namespace)
    assert [c.type for c in pod.status.conditions] == ["nufi.dev/x"]


async def test_json_patch_and_missing_target(api: client.ApiClient, namespace: str) -> None:
    v1 = client.CoreV1Api(api)
    await v1.create_namespaced_config_map(namespace, _cm("jp"))
    patched = await v1.patch_namespaced_config_map(
        "jp", namespace, [{"op": "add", "path": "/data/extra", "value": "1"}]
    )
    assert patched.data == {"k": "v", "extra": "1"}
    with pytest.raises(ApiException) as exc:
        await v1.patch_namespaced_config_map("ghost", namespace, {"data": {"a": "b"}})
    assert exc.value.status == 404


async def test_invalid_objects_get_kubernetes_causes(api: client.ApiClient, namespace: str) -> None:
    v1 = client.CoreV1Api(api)
    with pytest.raises(ApiException) as exc:
        await v1.create_namespaced_config_map(namespace, _cm("Bad_Name"))
    assert exc.value.status == 422
    assert "metadata.name" in body_of(exc) and "RFC 1123" in body_of(exc)

    def pod(requests: dict[str, str], limits: dict[str, str]) -> dict[str, object]:
        return {
            "metadata": {"name": f"x-{uuid.uuid4().hex[:5]}"},
            "spec": {
                "containers": [
                    {"name": "c", "image": "busybox:1", "resources": {"requests": requests, "limits": limits}}
                ]
            },
        }

    with pytest.raises(ApiException) as exc:
        await v1.create_namespaced_pod(namespace, pod({"hyperaccel.ai/lpu": "2"}, {"hyperaccel.ai/lpu": "1"}))
    assert exc.value.status == 422 and "must be equal to hyperaccel.ai/lpu limit" in body_of(exc)
    with pytest.raises(ApiException) as exc:
        await v1.create_namespaced_pod(
            namespace, pod({"hyperaccel.ai/lpu": "500m"}, {"hyperaccel.ai/lpu": "500m"})
        )
    assert exc.value.status == 422 and "must be an integer" in body_of(exc)
    # a limit alone is fine: the request defaults to it
    ok = await v1.create_namespaced_pod(namespace, pod({}, {"hyperaccel.ai/lpu": "2"}))
    assert ok.spec.containers[0].resources.requests == {"hyperaccel.ai/lpu": "2"}


async def test_owner_reference_cascade(api: client.ApiClient, namespace: str) -> None:
    v1 = client.CoreV1Api(api)
    owner = await v1.create_namespaced_config_map(namespace, _cm("owner"))
    dependent = _cm("dependent")
    dependent["metadata"]["ownerReferences"] = [  # type: ignore[index]
        {"apiVersion": "v1", "kind": "ConfigMap", "name": "owner", "uid": owner.metadata.uid}
    ]
    await v1.create_namespaced_config_map(namespace, dependent)
    await v1.delete_namespaced_config_map("owner", namespace)
    with pytest.raises(ApiException) as exc:
        await v1.read_namespaced_config_map("dependent", namespace)
    assert exc.value.status == 404


async def test_scale_subresource(api: client.ApiClient, namespace: str) -> None:
    apps = client.AppsV1Api(api)
    await apps.create_namespaced_deployment(
        namespace,
        {
            "metadata": {"name": "web"},
            "spec": {
                "replicas": 1,
                "selector": {"matchLabels": {"app": "web"}},
                "template": {
                    "metadata": {"labels": {"app": "web"}},
                    "spec": {"containers": [{"name": "c", "image": "nginx:1"}]},
                },
            },
        },
    )
    await apps.patch_namespaced_deployment_scale("web", namespace, {"spec": {"replicas": 4}})
    scale = await apps.read_namespaced_deployment_scale("web", namespace)
    assert scale.spec.replicas == 4 and scale.status.selector == "app=web"
    deployment = await apps.read_namespaced_deployment("web", namespace)
    assert deployment.spec.replicas == 4 and deployment.metadata.generation == 2


async def test_deployment_selector_must_match_template(api: client.ApiClient, namespace: str) -> None:
    with pytest.raises(ApiException) as exc:
        await client.AppsV1Api(api).create_namespaced_deployment(
            namespace,
            {
                "metadata": {"name": "bad"},
                "spec": {
                    "selector": {"matchLabels": {"app": "x"}},
                    "template": {
                        "metadata": {"labels": {"app": "y"}},
                        "spec": {"containers": [{"name": "c", "image": "nginx:1"}]},
                    },
                },
            },
        )
    assert exc.value.status == 422 and "does not match template" in body_of(exc)


def test_kubeconfig_is_written(cluster: DevClusterProcess) -> None:
    text = Path(cluster.kubeconfig).read_text()
    assert cluster.tls_url in text


async def test_resource_quota_refuses_a_pod_over_it_with_a_forbidden_status(
    api: client.ApiClient, namespace: str
) -> None:
    v1 = client.CoreV1Api(api)
    lpu = "hyperaccel.ai/lpu"
    quota = {"metadata": {"name": "team"}, "spec": {"hard": {f"requests.{lpu}": "1"}}}
    await v1.create_namespaced_resource_quota(namespace, quota)
    status = (await v1.read_namespaced_resource_quota_status("team", namespace)).status
    assert (status.hard, status.used) == ({f"requests.{lpu}": "1"}, {f"requests.{lpu}": "0"})

    def pod(name: str) -> dict[str, object]:
        container = {"name": "c", "image": "busybox:1", "resources": {"limits": {lpu: "1"}}}
        return {"metadata": {"name": name}, "spec": {"containers": [container]}}

    await v1.create_namespaced_pod(namespace, pod("first"))
    with pytest.raises(ApiException) as exc:
        await v1.create_namespaced_pod(namespace, pod("second"))
    assert exc.value.status == 403
    refusal = json.loads(body_of(exc))
    assert (refusal["reason"], refusal["details"]) == ("Forbidden", {"name": "second", "kind": "pods"})
    assert refusal["message"] == (
        f'pods "second" is forbidden: exceeded quota: team, requested: requests.{lpu}=1, '
        f"used: requests.{lpu}=1, limited: requests.{lpu}=1"
    )
    listed = await v1.list_namespaced_resource_quota(namespace)
    assert [q.status.used for q in listed.items] == [{f"requests.{lpu}": "1"}]
