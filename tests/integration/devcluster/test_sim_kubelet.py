"""The simulated kubelets: readiness gates, and device plugin resources in node status and pods."""

from __future__ import annotations

from nufi_sandbox.devcluster.sim import NodeSpec
from support.polling import eventually, holds

from .fakeplugin import FakePlugin, devices
from .simcluster import SimClusters
from .simobjects import LPU, Obj, bound, condition, pod, running_ready


async def test_readiness_gate_holds_ready_until_patched_true(clusters: SimClusters) -> None:
    cluster = await clusters.start()
    gate = "nufi.dev/gpu-ready"
    cluster.create("Pod", pod("gated", gates=(gate,)))

    def waiting() -> Obj:
        p = cluster.get("Pod", "gated")
        assert p["status"]["phase"] == "Running"
        containers, ready = condition(p, "ContainersReady"), condition(p, "Ready")
        assert containers is not None and containers["status"] == "True"
        assert ready is not None and ready["status"] == "False"
        assert ready["reason"] == "ReadinessGatesNotReady"
        assert ready["message"] == f'corresponding condition of pod readiness gate "{gate}" does not exist.'
        return p

    running = await eventually(waiting)
    assert running["status"]["containerStatuses"][0]["ready"] is True
    assert running["status"]["podIP"].startswith("10.244.")

    cluster.set_pod_condition("gated", gate, "False")

    def still_waiting() -> None:
        ready = condition(cluster.get("Pod", "gated"), "Ready")
        assert ready is not None and ready["status"] == "False"
        assert ready["message"] == f'the status of pod readiness gate "{gate}" is not "True", but False'

    await eventually(still_waiting)
    cluster.set_pod_condition("gated", gate, "True")

    def ready_now() -> Obj:
        p = cluster.get("Pod", "gated")
        ready = condition(p, "Ready")
        assert ready is not None and ready["status"] == "True"
        return p

    p = await eventually(ready_now)
    kinds = {c["type"]: c["status"] for c in p["status"]["conditions"]}
    assert kinds == {
        "PodReadyToStartContainers": "True",
        "Initialized": "True",
        "Ready": "True",
        "ContainersReady": "True",
        "PodScheduled": "True",
        gate: "True",
    }


async def test_device_plugin_resources_reach_node_status_and_pods(clusters: SimClusters) -> None:
    cluster = await clusters.start([NodeSpec(name="lpu-1"), NodeSpec(name="plain", device_plugins=False)])
    sockets = cluster.sim.node_sockets()
    assert set(sockets) == {"lpu-1"}
    plugin_dir = cluster.state_dir / "nodes" / "lpu-1" / "device-plugins"
    assert sockets["lpu-1"]["device_plugin_dir"] == str(plugin_dir)
    assert (plugin_dir / "kubelet.sock").is_socket()
    assert (cluster.state_dir / "nodes" / "lpu-1" / "pod-resources" / "kubelet.sock").is_socket()

    plugin = FakePlugin(plugin_dir, "lpu.sock", devices(4))
    await plugin.serve()
    try:
        await plugin.register(resource=LPU)

        def advertised() -> None:
            status = cluster.get("Node", "lpu-1", "")["status"]
            assert status["capacity"].get(LPU) == "4" and status["allocatable"].get(LPU) == "4"

        await eventually(advertised)
        cluster.create("Pod", pod("infer", limits={LPU: "2"}))
        await eventually(lambda: holds(running_ready(cluster.get("Pod", "infer"))))
        assert bound(cluster, "infer") == "lpu-1"
        assert len(plugin.allocate_requests) == 1 and len(plugin.allocate_requests[0]) == 2
        agent = cluster.sim.agent("lpu-1")
        assert agent is not None and agent.devices is not None
        [held] = agent.devices.allocations()
        assert held.pod_name == "infer" and held.container == "app" and len(held.device_ids) == 2

        plugin.allocate_error = "device is on fire"
        cluster.create("Pod", pod("unlucky", limits={LPU: "2"}))

        def rejected() -> None:
            p = cluster.get("Pod", "unlucky")
            assert p["status"]["phase"] == "Failed"
            assert p["status"]["reason"] == "UnexpectedAdmissionError"
            assert p["status"]["message"].startswith("Pod was rejected: Allocate failed due to ")
            assert p["status"]["message"].endswith(", which is unexpected")

        await eventually(rejected)
        plugin.allocate_error = None
        cluster.delete("Pod", "infer")
        await eventually(lambda: holds(cluster.find("Pod", "infer") is None))
        assert agent.devices.allocations() == []

        plugin.publish(devices(4, unhealthy=("lpu-3",)))

        def one_unhealthy() -> None:
            status = cluster.get("Node", "lpu-1", "")["status"]
            assert status["capacity"].get(LPU) == "4" and status["allocatable"].get(LPU) == "3"

        await eventually(one_unhealthy)
    finally:
        await plugin.stop()


async def test_resource_removed_from_node_status_after_plugin_leaves(clusters: SimClusters) -> None:
    cluster = await clusters.start([NodeSpec(name="lpu-1")], device_stop_grace_seconds=0.3)
    plugin = FakePlugin(cluster.state_dir / "nodes" / "lpu-1" / "device-plugins", "lpu.sock", devices(2))
    await plugin.serve()
    try:
        await plugin.register(resource=LPU)
        await eventually(
            lambda: holds(cluster.get("Node", "lpu-1", "")["status"]["capacity"].get(LPU) == "2")
        )
    finally:
        await plugin.stop()

    def gone() -> None:
        status = cluster.get("Node", "lpu-1", "")["status"]
        assert LPU not in status["capacity"] and LPU not in status["allocatable"]

    await eventually(gone)
