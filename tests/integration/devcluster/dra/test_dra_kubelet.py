"""The mock LPU's DRA driver against an in-process dev cluster: the slices it publishes through the API,
its registration with the node's kubelet, claims prepared before a pod starts (the container's
environment from the CDI spec), reported by PodResources, and unprepared once the pod is gone."""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc
import httpx
import pytest

from nufi_mock.deviceplugin import set_device_health
from nufi_mock.dra import DRIVER_NAME, DriverConfig
from nufi_mock.dra.driver import DraDriver
from nufi_mock.dra.kube import KubeAccess, KubeClient
from nufi_mock.kubelet_api import (
    pluginregistration_v1_pb2,
    pluginregistration_v1_pb2_grpc,
    podresources_v1_pb2,
    podresources_v1_pb2_grpc,
)
from nufi_sandbox.devcluster.runtime.map import ImageEntry, RuntimeMap
from nufi_sandbox.devcluster.server import create_app
from nufi_sandbox.devcluster.sim import NodeSpec
from nufi_sandbox.devcluster.sim.node_agent import KubeletPaths
from support.polling import eventually

from ..simcluster import SimCluster, SimClusters

NODE = "lpu-node-3"
ECHO = "registry.nufi.test/echo:1"
BACKEND = Path(__file__).parent.parent / "echo_backend.py"
TOKEN = "dra-test-token"
CLAIMS = ("resource.k8s.io", "v1", "resourceclaims")
SLICES = ("resource.k8s.io", "v1", "resourceslices")

Obj = dict[str, Any]


@dataclass
class DraNode:
    cluster: SimCluster
    driver: DraDriver
    paths: KubeletPaths
    stop: asyncio.Event
    task: asyncio.Task[None]

    def slices(self) -> list[Obj]:
        return list(self.cluster.store.all_of("resource.k8s.io", "resourceslices"))


@pytest.fixture
async def node(clusters: SimClusters) -> AsyncIterator[DraNode]:
    runtime_map = RuntimeMap(images={ECHO: ImageEntry(argv=(sys.executable, str(BACKEND), "{port}"))})
    cluster = await clusters.start([NodeSpec(name=NODE)], runtime_map=runtime_map)
    paths = KubeletPaths.under(cluster.state_dir, NODE)
    app = create_app(cluster.store, server_address="http://dev.test", token=TOKEN)
    kube = KubeClient(KubeAccess("http://dev.test", TOKEN, None), transport=httpx.ASGITransport(app=app))
    config = DriverConfig(
        node=NODE,
        model="lpu-32g",
        registry_dir=paths.plugins_registry,
        plugins_dir=paths.plugins_dir,
        cdi_dir=paths.cdi_dir,
        watch_interval=0.05,
    )
    driver, stop = DraDriver(config, kube), asyncio.Event()
    task = asyncio.create_task(driver.run(stop))
    try:
        yield DraNode(cluster, driver, paths, stop, task)
    finally:
        stop.set()
        await task
        await kube.close()


async def _wait(condition: Any, within: float = 10.0) -> None:
    def holds() -> None:
        assert condition()

    await eventually(holds, within=within)


def _pool(slices: list[Obj]) -> list[tuple[int, list[str]]]:
    return [(s["spec"]["pool"]["generation"], [d["name"] for d in s["spec"]["devices"]]) for s in slices]


async def test_the_driver_publishes_its_pool_moves_its_generation_on_an_unhealthy_lpu_and_deletes_it_on_stop(
    node: DraNode,
) -> None:
    await _wait(lambda: _pool(node.slices()) == [(1, ["lpu0", "lpu1", "lpu2", "lpu3"])])
    [published] = node.slices()
    assert published["spec"]["nodeName"] == NODE and published["spec"]["driver"] == DRIVER_NAME
    assert published["spec"]["pool"]["name"] == NODE
    assert published["metadata"]["ownerReferences"][0]["kind"] == "Node"
    assert published["spec"]["devices"][0]["capacity"]["memory"]["value"] == "32Gi"

    set_device_health(node.driver.config.health_path, "lpu1", "Unhealthy")
    await _wait(lambda: _pool(node.slices()) == [(2, ["lpu0", "lpu2", "lpu3"])])

    node.stop.set()
    await node.task
    assert node.slices() == []
    assert not node.driver.config.registration_socket.exists()


def _claim(name: str) -> Obj:
    request = {"name": "lpus", "exactly": {"deviceClassName": DRIVER_NAME, "count": 2}}
    return {"metadata": {"name": name}, "spec": {"devices": {"requests": [request]}}}


def _pod(name: str, claim: str) -> Obj:
    container = {"name": "echo", "image": ECHO, "resources": {"claims": [{"name": "lpu"}]}}
    return {
        "metadata": {"name": name},
        "spec": {
            "nodeName": NODE,
            "containers": [container],
            "resourceClaims": [{"name": "lpu", "resourceClaimName": claim}],
        },
    }


def _allocate(claim: Obj, pod: Obj, devices: list[str]) -> None:
    results = [{"request": "lpus", "driver": DRIVER_NAME, "pool": NODE, "device": d} for d in devices]
    claim["status"] = {
        "allocation": {"devices": {"results": results}},
        "reservedFor": [{"resource": "pods", "name": pod["metadata"]["name"], "uid": pod["metadata"]["uid"]}],
    }


async def _list_pod_resources(socket: Path) -> Any:
    async with grpc.aio.insecure_channel(f"unix://{socket}") as channel:
        stub = podresources_v1_pb2_grpc.PodResourcesListerStub(channel)
        return await stub.List(podresources_v1_pb2.ListPodResourcesRequest(), timeout=5)


def _env_of(cluster: SimCluster, pod: Obj) -> dict[str, str] | None:
    meta = pod["metadata"]
    path = (
        cluster.state_dir / "pods" / f"{meta['namespace']}_{meta['name']}_{meta['uid']}" / "echo" / "env.json"
    )
    try:
        env: dict[str, str] = json.loads(path.read_text())["env"]
    except (OSError, ValueError, KeyError):
        return None
    return env


async def test_a_pod_s_claim_is_prepared_before_it_starts_reported_by_pod_resources_and_unprepared_after(
    node: DraNode,
) -> None:
    cluster, agent = node.cluster, node.cluster.sim.agent(NODE)
    assert agent is not None and agent.dra is not None
    await _wait(lambda: agent.dra.drivers() == [DRIVER_NAME])
    claims = cluster.store.rt(*CLAIMS)
    cluster.store.create(claims, "default", _claim("pair"))
    pod = cluster.create("Pod", _pod("runner", "pair"))

    # Not allocated yet: the kubelet waits, as it says, and starts nothing.
    await _wait(lambda: cluster.events_for("runner", "FailedPrepareDynamicResources"))
    assert _env_of(cluster, pod) is None
    cluster.store.mutate(
        claims, "default", "pair", lambda c: _allocate(c, pod, ["lpu0", "lpu2"]), subresource="status"
    )

    await _wait(lambda: _env_of(cluster, pod) is not None, within=30)
    env = _env_of(cluster, pod)
    assert env is not None and env["LPU_VISIBLE_DEVICES"] == "lpu0,lpu2"

    listed = await _list_pod_resources(node.paths.pod_resources_socket.absolute())
    [runner] = [p for p in listed.pod_resources if p.name == "runner"]
    [echo] = runner.containers
    [held] = echo.dynamic_resources
    assert (held.claim_name, held.claim_namespace) == ("pair", "default")
    claim_uid = cluster.store.get(claims, "default", "pair")["metadata"]["uid"]
    assert [
        (r.driver_name, r.pool_name, r.device_name, [c.name for c in r.cdi_devices])
        for r in held.claim_resources
    ] == [
        (DRIVER_NAME, NODE, "lpu0", [f"hyperaccel.ai/lpu={claim_uid}-lpus"]),
        (DRIVER_NAME, NODE, "lpu2", [f"hyperaccel.ai/lpu={claim_uid}-lpus"]),
    ]
    spec_file = node.paths.cdi_dir / f"hyperaccel.ai-lpu_{claim_uid}.json"
    assert spec_file.exists()

    cluster.delete("Pod", "runner")
    await _wait(lambda: not spec_file.exists(), within=15)
    listed = await _list_pod_resources(node.paths.pod_resources_socket.absolute())
    assert [p.name for p in listed.pod_resources] == []


class _OtherPlugin:
    """A plugin the kubelet has no handler for (a CSI driver), or a DRA plugin without the v1 service."""

    def __init__(self, kind: str, versions: list[str]) -> None:
        self.kind, self.versions = kind, versions
        self.told: list[tuple[bool, str]] = []

    async def GetInfo(self, request: Any, context: Any) -> Any:
        name, versions = "other.example.com", self.versions
        return pluginregistration_v1_pb2.PluginInfo(type=self.kind, name=name, supported_versions=versions)

    async def NotifyRegistrationStatus(self, request: Any, context: Any) -> Any:
        self.told.append((request.plugin_registered, request.error))
        return pluginregistration_v1_pb2.RegistrationStatusResponse()


async def test_the_kubelet_refuses_a_plugin_it_has_no_handler_for_and_a_dra_plugin_without_the_v1_service(
    node: DraNode,
) -> None:
    agent = node.cluster.sim.agent(NODE)
    assert agent is not None and agent.dra is not None
    plugins = [_OtherPlugin("CSIPlugin", ["1.0.0"]), _OtherPlugin("DRAPlugin", ["v1beta1.DRAPlugin"])]
    servers = []
    for number, plugin in enumerate(plugins):
        server = grpc.aio.server()
        pluginregistration_v1_pb2_grpc.add_RegistrationServicer_to_server(plugin, server)
        server.add_insecure_port(f"unix://{node.paths.plugins_registry.absolute()}/other-{number}.sock")
        await server.start()
        servers.append(server)
    try:
        await _wait(lambda: all(plugin.told for plugin in plugins))
        (csi_registered, csi_error), (dra_registered, dra_error) = plugins[0].told[0], plugins[1].told[0]
        assert not csi_registered and "no handler registered for plugin type: CSIPlugin" in csi_error
        assert not dra_registered and "want v1.DRAPlugin" in dra_error
        assert agent.dra.drivers() == [DRIVER_NAME]  # the mock driver's registration stands
    finally:
        for server in servers:
            await server.stop(None)
