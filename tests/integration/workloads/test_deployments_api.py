"""Inference deployments through the REST API against the dev cluster: the objects exactly as
specified, the status as the cluster moves, scaling, deleting, and what is refused."""

from __future__ import annotations

from typing import Any

import httpx
from kubernetes_asyncio import client as kube

from support.kube import api_client
from support.languages import english_sentences
from support.polling import until
from support.world import LPU, LPU_NODES, World, deployment_body

_LABELS_OF = "app.kubernetes.io/managed-by=nufi,nufi.io/workload=llm"


async def _get(nufi: httpx.AsyncClient, world: World, project: str, name: str = "llm") -> dict[str, Any]:
    response = await nufi.get(f"/api/v1/projects/{project}/deployments/{name}", headers=world.user)
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


async def _status_becomes(
    nufi: httpx.AsyncClient, world: World, project: str, status: str, name: str = "llm", within: float = 20
) -> dict[str, Any]:
    async def reached() -> dict[str, Any] | None:
        body = await _get(nufi, world, project, name)
        return body if body["status"] == status else None

    found = await until(reached, within=within)
    assert found is not None
    return found


async def test_a_deployment_is_a_deployment_and_a_service_exactly_as_asked(
    nufi: httpx.AsyncClient, world: World, project: str
) -> None:
    created = await nufi.post(
        f"/api/v1/projects/{project}/deployments", json=deployment_body(), headers=world.user
    )
    assert created.status_code == 201, created.text
    assert created.headers["location"] == f"/api/v1/projects/{project}/deployments/llm"
    labels = {
        "app.kubernetes.io/managed-by": "nufi",
        "nufi.io/project": project,
        "nufi.io/workload": "llm",
        "nufi.io/workload-kind": "deployment",
        "nufi.io/device-type": "lpu",
    }
    amounts = {LPU: "1", "cpu": "500m", "memory": "2Gi"}
    async with api_client(world.cluster.kubeconfig) as api:
        deployment = (await kube.AppsV1Api(api).read_namespaced_deployment("llm", project)).to_dict()
        service = (await kube.CoreV1Api(api).read_namespaced_service("llm", project)).to_dict()
    assert deployment["metadata"]["labels"] == labels
    spec = deployment["spec"]
    assert spec["replicas"] == 2
    assert spec["selector"]["match_labels"] == {
        "nufi.io/workload": "llm",
        "nufi.io/workload-kind": "deployment",
    }
    assert spec["template"]["metadata"]["labels"] == {**labels, "nufi.io/traffic": "on"}
    (container,) = spec["template"]["spec"]["containers"]
    assert container["image"] == "nufi-mock:inference"
    assert container["resources"] == {"limits": amounts, "requests": amounts, "claims": None}
    assert container["readiness_probe"]["http_get"]["path"] == "/health"
    assert container["readiness_probe"]["http_get"]["port"] == 8000
    assert container["readiness_probe"]["period_seconds"] == 2
    assert [(p["name"], p["container_port"]) for p in container["ports"]] == [("http", 8000)]
    assert [(e["name"], e["value"]) for e in container["env"]] == [("MODEL_NAME", "tiny")]
    assert service["metadata"]["labels"] == labels
    assert service["spec"]["type"] == "ClusterIP"
    assert service["spec"]["selector"] == {
        "nufi.io/workload": "llm",
        "nufi.io/workload-kind": "deployment",
        "nufi.io/traffic": "on",
    }
    ((port),) = service["spec"]["ports"]
    assert (port["name"], port["port"], port["target_port"]) == ("http", 8000, 8000)

    ready = await _status_becomes(nufi, world, project, "Ready")
    assert ready["replicas"] == 2 and ready["ready_replicas"] == 2 and ready["reason"] is None
    assert ready["accelerator"] == {"device_type": "lpu", "resource_key": LPU, "count": 1}
    assert len(ready["pods"]) == 2
    for pod in ready["pods"]:
        assert pod["node"] in LPU_NODES and pod["ready"] and pod["phase"] == "Running"
        assert pod["accelerators"] == {LPU: 1}
    assert ready["urls"] == {
        "cluster": f"http://llm.{project}.svc.cluster.local:8000",
        "api_proxy": f"/api/v1/namespaces/{project}/services/llm:8000/proxy/",
    }
    listed = await nufi.get(f"/api/v1/projects/{project}/deployments", headers=world.user)
    assert [d["name"] for d in listed.json()["items"]] == ["llm"]


async def test_no_probe_when_the_readiness_path_is_null(
    nufi: httpx.AsyncClient, world: World, project: str
) -> None:
    body = deployment_body(
        replicas=1, readiness_path=None, resources=None, env=[], command=["serve"], args=["--x"]
    )
    assert (
        await nufi.post(f"/api/v1/projects/{project}/deployments", json=body, headers=world.user)
    ).status_code == 201
    async with api_client(world.cluster.kubeconfig) as api:
        deployment = (await kube.AppsV1Api(api).read_namespaced_deployment("llm", project)).to_dict()
    (container,) = deployment["spec"]["template"]["spec"]["containers"]
    assert container["readiness_probe"] is None
    assert container["resources"]["limits"] == {LPU: "1"} == container["resources"]["requests"]
    assert (container["command"], container["args"]) == (["serve"], ["--x"])
    await _status_becomes(nufi, world, project, "Ready")


def _holder(name: str, node: str, count: int) -> dict[str, Any]:
    """A pod bound to `node` by name, holding `count` LPUs: someone else's load on that node."""
    return {
        "metadata": {"name": name},
        "spec": {
            "nodeName": node,
            "containers": [
                {"name": "hold", "image": "busybox", "resources": {"limits": {LPU: str(count)}}},
            ],
        },
    }


async def test_more_than_any_node_has_free_is_pending_in_the_accelerators_words(
    nufi: httpx.AsyncClient, world: World, project: str
) -> None:
    async with api_client(world.cluster.kubeconfig) as api:
        core = kube.CoreV1Api(api)
        await core.create_namespaced_pod(project, _holder("hold-1", "lpu-node-1", 2))
        await core.create_namespaced_pod(project, _holder("hold-2", "lpu-node-2", 2))
    body = deployment_body("big", replicas=1, accelerator={"device_type": "lpu", "count": 5})
    created = await nufi.post(f"/api/v1/projects/{project}/deployments", json=body, headers=world.user)
    assert created.status_code == 201, created.text
    expected = "no node has 5 free HyperAccel LPU: lpu-node-1 has 4; lpu-node-2 has 2"

    async def pending_with_reason() -> dict[str, Any] | None:
        # NuFi counts free devices from its own watch of the pods, a moment behind the scheduler's.
        body = await _get(nufi, world, project, "big")
        return body if (body["status"], body["reason"]) == ("Pending", expected) else None

    pending = await until(pending_with_reason, within=20)
    assert pending is not None
    # The same reason as data, for a client to word in its reader's language.
    assert pending["reason_message"] == {
        "code": "workload.pending.no_free",
        "params": {
            "count": 5,
            "resource_key": LPU,
            "name": "HyperAccel LPU",
            "figures": [
                {"code": "accelerator.node_has", "params": {"node": "lpu-node-1", "count": 4}},
                {"code": "accelerator.node_has", "params": {"node": "lpu-node-2", "count": 2}},
            ],
        },
    }
    (pod,) = pending["pods"]
    assert pod["node"] is None and pod["phase"] == "Pending" and not pod["ready"]
    accelerators = await nufi.get(f"/api/v1/projects/{project}/accelerators", headers=world.user)
    (lpu,) = [a for a in accelerators.json()["items"] if a["device_type"] == "lpu"]
    assert (lpu["capacity"], lpu["allocatable"], lpu["free"]) == (10, 10, 6)
    assert [(n["node"], n["free"]) for n in lpu["nodes"]] == [("lpu-node-1", 4), ("lpu-node-2", 2)]


async def test_scaling_to_zero_is_scaled_down_and_replicas_are_bounded(
    nufi: httpx.AsyncClient, world: World, project: str
) -> None:
    body = deployment_body(replicas=1)
    assert (
        await nufi.post(f"/api/v1/projects/{project}/deployments", json=body, headers=world.user)
    ).status_code == 201
    await _status_becomes(nufi, world, project, "Ready")
    path = f"/api/v1/projects/{project}/deployments/llm"
    scaled = await nufi.patch(path, json={"replicas": 0}, headers=world.user)
    assert scaled.status_code == 200 and scaled.json()["replicas"] == 0
    assert scaled.json()["status"] == "ScaledDown"

    async def no_pods() -> bool:
        pods: list[object] = (await _get(nufi, world, project))["pods"]
        return not pods

    await until(no_pods, within=20)
    for bad in ({"replicas": 33}, {"replicas": -1}, {"replicas": "two"}, {"replicas": 1, "image": "x"}):
        refused = await nufi.patch(path, json=bad, headers=world.user)
        assert refused.status_code == 422, bad
    back = await nufi.patch(path, json={"replicas": 1}, headers=world.user)
    assert back.status_code == 200
    await _status_becomes(nufi, world, project, "Ready")
    missing = await nufi.patch(
        f"/api/v1/projects/{project}/deployments/nope", json={"replicas": 1}, headers=world.user
    )
    assert missing.status_code == 404


async def test_delete_leaves_nothing_nufi_created(
    nufi: httpx.AsyncClient, world: World, project: str
) -> None:
    assert (
        await nufi.post(f"/api/v1/projects/{project}/deployments", json=deployment_body(), headers=world.user)
    ).status_code == 201
    await _status_becomes(nufi, world, project, "Ready")
    path = f"/api/v1/projects/{project}/deployments/llm"
    assert (await nufi.delete(path, headers=world.user)).status_code == 204

    async def nothing_left() -> bool:
        async with api_client(world.cluster.kubeconfig) as api:
            apps, core = kube.AppsV1Api(api), kube.CoreV1Api(api)
            found = [
                *(await apps.list_namespaced_deployment(project)).items,
                *(await apps.list_namespaced_replica_set(project)).items,
                *(await core.list_namespaced_pod(project)).items,
                *(await core.list_namespaced_service(project)).items,
            ]
        return not found

    await until(nothing_left, within=20)
    assert (await nufi.delete(path, headers=world.user)).status_code == 404
    assert (await nufi.get(path, headers=world.user)).status_code == 404


async def test_a_refused_service_takes_the_deployment_back(
    nufi: httpx.AsyncClient, world: World, project: str
) -> None:
    async with api_client(world.cluster.kubeconfig) as api:
        await kube.CoreV1Api(api).create_namespaced_service(
            project, {"metadata": {"name": "llm"}, "spec": {"ports": [{"port": 80}]}}
        )
        created = await nufi.post(
            f"/api/v1/projects/{project}/deployments", json=deployment_body(), headers=world.user
        )
        assert created.status_code == 409 and created.json()["field"] == "name"
        assert (await kube.AppsV1Api(api).list_namespaced_deployment(project)).items == []
        # The Service that was there before is not NuFi's and stays.
        assert (await kube.CoreV1Api(api).read_namespaced_service("llm", project)).spec.ports[0].port == 80


async def test_a_taken_name_is_a_conflict(nufi: httpx.AsyncClient, world: World, project: str) -> None:
    path = f"/api/v1/projects/{project}/deployments"
    assert (await nufi.post(path, json=deployment_body(replicas=0), headers=world.user)).status_code == 201
    again = await nufi.post(path, json=deployment_body(replicas=0), headers=world.user)
    assert again.status_code == 409 and again.json()["field"] == "name"


async def test_a_bad_name_and_a_taken_one_are_told_in_korean_with_their_codes(
    nufi: httpx.AsyncClient, world: World, project: str
) -> None:
    path = f"/api/v1/projects/{project}/deployments"
    korean = {**world.user, "Accept-Language": "ko-KR,ko;q=0.9,en;q=0.5"}
    bad = await nufi.post(path, json=deployment_body(name="Bad_Name"), headers=korean)
    assert bad.status_code == 422, bad.text
    problem = bad.json()
    assert problem["title"] == "입력 검증 실패"
    assert problem["detail"].startswith(
        "본문의 name 값이 올바르지 않습니다: name 값 'Bad_Name'은(는) DNS-1123 레이블이 아닙니다."
    )
    assert english_sentences(problem["detail"]) == []
    assert (problem["code"], problem["field"]) == ("request.invalid", "name")
    (error,) = problem["errors"]
    assert error["code"] == "name.not_dns_label"
    assert error["params"]["value"] == "Bad_Name" and error["params"]["field"] == "name"

    assert (await nufi.post(path, json=deployment_body(replicas=0), headers=korean)).status_code == 201
    taken = await nufi.post(path, json=deployment_body(replicas=0), headers=korean)
    assert taken.status_code == 409
    problem = taken.json()
    assert problem["title"] == "충돌"
    assert problem["detail"] == (
        f"프로젝트 '{project}'에 이름이 'llm'인 배포가 이미 있습니다. 다른 이름을 고르세요."
    )
    assert problem["code"] == "workload.name_taken"
    # The params are what the sentence names; the field stands in the body on its own.
    assert problem["params"] == {
        "kind": {"code": "workload.kind_named.deployment", "params": {}},
        "project": project,
        "name": "llm",
    }
    assert problem["field"] == "name"
    # Without a Korean reader, the same problem in English.
    english = await nufi.post(path, json=deployment_body(replicas=0), headers=world.user)
    assert english.json()["detail"].startswith("a deployment named 'llm' already exists")


async def test_every_bad_field_is_refused_by_name(
    nufi: httpx.AsyncClient, world: World, project: str
) -> None:
    cases: list[tuple[dict[str, Any], str]] = [
        (deployment_body(name="LLM"), "name"),
        (deployment_body(name="a" * 64), "name"),
        (deployment_body(image="has space"), "image"),
        (deployment_body(image=""), "image"),
        (deployment_body(replicas=33), "replicas"),
        (deployment_body(port=0), "port"),
        (deployment_body(port=70000), "port"),
        (deployment_body(env=[{"name": "1BAD", "value": "x"}]), "env.0.name"),
        (deployment_body(env=[{"name": "A", "value": "x"}, {"name": "A", "value": "y"}]), "env"),
        (deployment_body(resources={"cpu": "lots"}), "resources.cpu"),
        (deployment_body(resources={"memory": "-2Gi"}), "resources.memory"),
        (deployment_body(resources={"memory": "0"}), "resources.memory"),
        (deployment_body(readiness_path="health"), "readiness_path"),
        (deployment_body(accelerator={"device_type": "lpu", "count": 0}), "accelerator.count"),
        (deployment_body(accelerator={"device_type": "tpu", "count": 1}), "accelerator.device_type"),
        (deployment_body(accelerator={"device_type": "lpu", "count": 7}), "accelerator.count"),
        (deployment_body(accelerator={"device_type": "amd-gpu", "count": 1}), "accelerator.device_type"),
        (deployment_body(extra=True), "extra"),
    ]
    for body, field in cases:
        response = await nufi.post(f"/api/v1/projects/{project}/deployments", json=body, headers=world.user)
        assert response.status_code == 422, (field, response.text)
        assert response.headers["content-type"].startswith("application/problem+json")
        assert response.json()["field"] == field, (field, response.json())
    too_many = await nufi.post(
        f"/api/v1/projects/{project}/deployments",
        json=deployment_body(accelerator={"device_type": "lpu", "count": 7}),
        headers=world.user,
    )
    assert too_many.json()["detail"] == (
        "no node can ever give 7 HyperAccel LPU to one pod: lpu-node-1 has 6; lpu-node-2 has 4; "
        "ask for at most 6"
    )
    async with api_client(world.cluster.kubeconfig) as api:
        assert (await kube.AppsV1Api(api).list_namespaced_deployment(project)).items == []


async def test_a_disabled_type_is_refused(nufi: httpx.AsyncClient, world: World, project: str) -> None:
    current = (await nufi.get("/api/v1/devices/lpu", headers=world.admin)).json()
    update = {k: current[k] for k in ("name", "vendor", "resource_key", "labels", "metrics", "revision")}
    disabled = await nufi.put(
        "/api/v1/admin/devices/lpu",
        json={**update, "enabled": False},
        params={"force": "true"},
        headers=world.admin,
    )
    assert disabled.status_code == 200, disabled.text
    response = await nufi.post(
        f"/api/v1/projects/{project}/deployments", json=deployment_body(), headers=world.user
    )
    assert response.status_code == 422 and response.json()["field"] == "accelerator.device_type"
    assert response.json()["detail"].startswith("HyperAccel LPU is disabled")
    accelerators = await nufi.get(f"/api/v1/projects/{project}/accelerators", headers=world.user)
    assert "lpu" not in [a["device_type"] for a in accelerators.json()["items"]]


async def test_a_device_type_in_use_cannot_be_deleted(
    nufi: httpx.AsyncClient, world: World, project: str
) -> None:
    path = f"/api/v1/projects/{project}/deployments"
    assert (await nufi.post(path, json=deployment_body(replicas=0), headers=world.user)).status_code == 201
    refused = await nufi.delete("/api/v1/admin/devices/lpu", headers=world.admin)
    assert refused.status_code == 409
    assert refused.json()["workloads"] == [f"{project}/deployment/llm"]
    assert f"{project}/deployment/llm" in refused.json()["detail"]
    assert (await nufi.delete(f"{path}/llm", headers=world.user)).status_code == 204
    assert (await nufi.delete("/api/v1/admin/devices/lpu", headers=world.admin)).status_code == 204


async def test_one_replica_placed_and_one_not_is_degraded_with_the_reason(
    nufi: httpx.AsyncClient, world: World, project: str
) -> None:
    # Five LPUs per pod: lpu-node-1 (6) takes one replica; nothing is left anywhere for the second.
    body = deployment_body("two", replicas=2, accelerator={"device_type": "lpu", "count": 5})
    assert (
        await nufi.post(f"/api/v1/projects/{project}/deployments", json=body, headers=world.user)
    ).status_code == 201
    expected = "no node has 5 free HyperAccel LPU: lpu-node-1 has 1; lpu-node-2 has 4"

    async def degraded() -> dict[str, Any] | None:
        view = await _get(nufi, world, project, "two")
        return view if (view["status"], view["reason"]) == ("Degraded", expected) else None

    view = await until(degraded, within=20)
    assert view is not None and view["ready_replicas"] == 1
    placed = {(p["node"] or "", p["ready"]) for p in view["pods"]}
    assert placed == {("lpu-node-1", True), ("", False)}
