"""Mapped images run as local processes: env, readiness probes, restarts, and stopping by PID."""

from __future__ import annotations

import asyncio
import os
import signal
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from kubernetes_asyncio import client

from nufi_sandbox.devcluster.launcher import DevClusterProcess
from nufi_sandbox.processes import pid_alive, wait_gone
from support.kube import api_client
from support.polling import until

from .fakeplugin import FakePlugin, devices
from .processcluster import (
    HTTP_PROBE,
    MISSING_IMAGE,
    echo_cluster,
    echo_container,
    pod_when,
    started_info,
    workdir,
)

LPU = "nufi.example/lpu"


@pytest.fixture(scope="module")
def cluster() -> Iterator[DevClusterProcess]:
    with echo_cluster() as process:
        yield process


def _pod(name: str, *containers: dict[str, Any], **spec: Any) -> dict[str, Any]:
    return {
        "metadata": {"name": name, "labels": {"app": name}},
        "spec": {"containers": list(containers), **spec},
    }


async def test_mapped_pod_runs_with_its_env_and_becomes_ready_through_its_probe(
    cluster: DevClusterProcess, api: client.ApiClient, namespace: str
) -> None:
    v1 = client.CoreV1Api(api)
    plugin = FakePlugin(cluster.device_plugin_dir("lpu-1"), "lpu.sock", devices(2))
    await plugin.serve()
    try:
        await plugin.register(resource=LPU)

        async def lpus_listed() -> bool:
            return bool((await v1.read_node("lpu-1")).status.allocatable.get(LPU))

        await until(lpus_listed)
        container = echo_container(
            env={"LITERAL": "plain", "PORT": "9999"},
            probe=HTTP_PROBE,
            resources={"limits": {LPU: "1"}},
            command=["/bin/ignored"],
            args=["--flag", "$(LITERAL)"],
        )
        container["env"] += [
            {"name": "MY_POD", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}},
            {"name": "MY_NS", "valueFrom": {"fieldRef": {"fieldPath": "metadata.namespace"}}},
            {"name": "MY_NODE", "valueFrom": {"fieldRef": {"fieldPath": "spec.nodeName"}}},
            {"name": "MY_IP", "valueFrom": {"fieldRef": {"fieldPath": "status.podIP"}}},
            {"name": "MY_UID", "valueFrom": {"fieldRef": {"fieldPath": "metadata.uid"}}},
            {"name": "SECRET", "valueFrom": {"secretKeyRef": {"name": "s", "key": "k"}}},
        ]
        await v1.create_namespaced_pod(namespace, _pod("runner", container))
        ready = await until(lambda: pod_when(v1, "runner", namespace, "Ready"), within=30)

        info = started_info(cluster, ready)
        assert info is not None
        env = info["env"]
        status = ready.status.container_statuses[0]
        assert status.ready and status.state.running.started_at is not None and status.restart_count == 0
        assert ready.spec.node_name == "lpu-1"
        assert env["MY_POD"] == "runner" and env["MY_NS"] == namespace and env["MY_NODE"] == "lpu-1"
        assert env["MY_IP"] == ready.status.pod_ip and env["MY_UID"] == ready.metadata.uid
        assert env["LITERAL"] == "plain" and "SECRET" not in env
        assert env["MOCK_VISIBLE_DEVICES"] in ("lpu-0", "lpu-1")  # from the plugin's Allocate
        assert env["FROM_MAP"] == f"map runner {namespace}" and env["FROM_NODE"] == "node lpu-1"
        # The work dir lies outside the state directory, which links to it.
        assert env["SEEN_WORKDIR"] == str(workdir(cluster, ready).resolve()) == info["cwd"]
        assert env["HOSTNAME"] == "runner" and env["PORT"] != "9999" and "PATH" in env
        assert info["argv"][-2:] == ["--flag", "plain"]  # args appended, $(VAR) expanded
        # The log lies beside the work dir, which stays the program's own.
        assert workdir(cluster, ready).with_name("echo.log").exists()
        assert not (workdir(cluster, ready) / "log").exists()

        events = await v1.list_namespaced_event(namespace, field_selector="involvedObject.name=runner")
        reasons = {e.reason: e for e in events.items}
        assert reasons["CommandIgnored"].type == "Warning"
        assert "SECRET" in reasons["EnvSourceNotSimulated"].message
    finally:
        await plugin.stop()


async def test_failing_probe_keeps_pod_and_its_endpoint_not_ready(
    cluster: DevClusterProcess, api: client.ApiClient, namespace: str
) -> None:
    v1 = client.CoreV1Api(api)
    await v1.create_namespaced_pod(
        namespace, _pod("sick", echo_container(env={"FAIL_READY": "1"}, probe=HTTP_PROBE))
    )
    await v1.create_namespaced_service(
        namespace,
        {
            "metadata": {"name": "sick"},
            "spec": {"selector": {"app": "sick"}, "ports": [{"port": 80, "targetPort": "http"}]},
        },
    )
    running = await until(lambda: pod_when(v1, "sick", namespace, "PodReadyToStartContainers"), within=30)

    def probes_seen() -> int:
        try:
            return len((workdir(cluster, running) / "probes").read_text().splitlines())
        except OSError:
            return 0

    async def probed_three_times() -> bool:
        return probes_seen() >= 3

    await until(probed_three_times, within=30)
    current = await v1.read_namespaced_pod("sick", namespace)
    conditions = {c.type: c for c in current.status.conditions}
    assert conditions["ContainersReady"].status == "False" and conditions["Ready"].status == "False"
    assert current.status.container_statuses[0].state.running is not None
    assert current.status.container_statuses[0].ready is False
    slices = await client.DiscoveryV1Api(api).list_namespaced_endpoint_slice(
        namespace, label_selector="kubernetes.io/service-name=sick"
    )
    endpoints = [e for s in slices.items for e in s.endpoints or []]
    assert len(endpoints) == 1 and endpoints[0].conditions.ready is False


async def test_a_crashing_container_restarts_with_backoff(
    cluster: DevClusterProcess, api: client.ApiClient, namespace: str
) -> None:
    v1 = client.CoreV1Api(api)
    await v1.create_namespaced_pod(namespace, _pod("crashy", echo_container(env={"EXIT_AFTER": "0.3"})))

    async def restarted() -> Any:
        current = await v1.read_namespaced_pod("crashy", namespace)
        statuses = current.status.container_statuses or []
        return current if statuses and statuses[0].restart_count >= 1 else None

    current = await until(restarted, within=30)
    status = current.status.container_statuses[0]
    assert status.last_state.terminated.exit_code == 3
    assert status.last_state.terminated.reason == "Error"

    # Every run appends to the container's log, which the pods/log subresource serves.
    async def two_runs_logged() -> bool:
        log: str = await v1.read_namespaced_pod_log("crashy", namespace)
        return log.count("echo backend ") >= 2

    await until(two_runs_logged)
    last = await v1.read_namespaced_pod_log("crashy", namespace, tail_lines=1)
    assert last.count("echo backend ") == 1 and last.endswith("\n")
    with pytest.raises(client.ApiException) as raised:
        await v1.read_namespaced_pod_log("crashy", namespace, container="other")
    assert raised.value.status == 400


async def test_a_failing_liveness_probe_kills_and_restarts_the_container(
    cluster: DevClusterProcess, api: client.ApiClient, namespace: str
) -> None:
    v1 = client.CoreV1Api(api)
    liveness = {"httpGet": {"path": "/healthz", "port": 8080}, "periodSeconds": 1, "failureThreshold": 2}
    container = echo_container(env={"FAIL_READY": "1"}, livenessProbe=liveness)
    await v1.create_namespaced_pod(namespace, _pod("unwell", container))

    async def restarted() -> Any:
        current = await v1.read_namespaced_pod("unwell", namespace)
        statuses = current.status.container_statuses or []
        return current if statuses and statuses[0].restart_count >= 1 else None

    current = await until(restarted, within=30)
    assert current.status.container_statuses[0].last_state.terminated.exit_code == 137  # SIGKILL


async def test_a_program_that_cannot_start_is_a_start_error_in_back_off(
    cluster: DevClusterProcess, api: client.ApiClient, namespace: str
) -> None:
    v1 = client.CoreV1Api(api)
    container = {"name": "broken", "image": MISSING_IMAGE}
    await v1.create_namespaced_pod(namespace, _pod("broken", container))

    async def backing_off() -> Any:
        current = await v1.read_namespaced_pod("broken", namespace)
        statuses = current.status.container_statuses or []
        waiting = statuses[0].state.waiting if statuses else None
        return current if waiting is not None and waiting.reason == "CrashLoopBackOff" else None

    current = await until(backing_off, within=30)
    status = current.status.container_statuses[0]
    assert status.last_state.terminated.reason == "StartError"
    assert status.last_state.terminated.exit_code == 128
    assert "/nonexistent/nufi-test-program" in status.last_state.terminated.message
    assert status.ready is False and current.status.phase == "Running"


async def test_a_pod_that_ends_for_good_reports_its_phase(
    cluster: DevClusterProcess, api: client.ApiClient, namespace: str
) -> None:
    v1 = client.CoreV1Api(api)
    await v1.create_namespaced_pod(
        namespace, _pod("once", echo_container(env={"EXIT_AFTER": "0.2"}), restartPolicy="Never")
    )

    async def failed() -> Any:
        current = await v1.read_namespaced_pod("once", namespace)
        return current if current.status.phase == "Failed" else None

    current = await until(failed, within=30)
    assert current.status.container_statuses[0].state.terminated.exit_code == 3
    assert current.status.container_statuses[0].restart_count == 0


async def test_deleting_a_pod_stops_its_process_group_even_one_ignoring_sigterm(
    cluster: DevClusterProcess, api: client.ApiClient, namespace: str
) -> None:
    v1 = client.CoreV1Api(api)
    stubborn = echo_container(env={"IGNORE_TERM": "1", "SPAWN_CHILD": "1"})
    await v1.create_namespaced_pod(namespace, _pod("stubborn", stubborn, terminationGracePeriodSeconds=1))
    running = await until(lambda: pod_when(v1, "stubborn", namespace, "Ready"), within=30)
    info = await until(_started(cluster, running), within=30)
    pid, child = int(info["pid"]), int(info["child"])
    assert pid_alive(pid) and pid_alive(child)

    await v1.delete_namespaced_pod("stubborn", namespace)

    async def gone() -> bool:
        return not (await v1.list_namespaced_pod(namespace, field_selector="metadata.name=stubborn")).items

    await until(gone, within=15)
    assert wait_gone(pid, 2.0) and wait_gone(child, 2.0)
    events = await v1.list_namespaced_event(namespace, field_selector="involvedObject.name=stubborn")
    assert "Stopping container echo" in {e.message for e in events.items if e.reason == "Killing"}


async def test_a_claim_mounted_at_the_working_directory_outlives_its_pod(
    cluster: DevClusterProcess, api: client.ApiClient, namespace: str
) -> None:
    # A lab's home: what one pod leaves there, the next pod mounting the claim finds, as its own.
    v1 = client.CoreV1Api(api)
    mounts = [{"name": "home", "mountPath": "/home/lab"}]
    claim: list[dict[str, Any]] = [{"name": "home", "persistentVolumeClaim": {"claimName": "keeper-home"}}]

    async def started(name: str, volumes: list[dict[str, Any]]) -> dict[str, Any]:
        container = echo_container(workingDir="/home/lab", volumeMounts=mounts)
        container["env"] = [{"name": "MY_UID", "valueFrom": {"fieldRef": {"fieldPath": "metadata.uid"}}}]
        await v1.create_namespaced_pod(namespace, _pod(name, container, volumes=volumes))
        ready = await until(lambda: pod_when(v1, name, namespace, "Ready"), within=30)

        async def its_own() -> dict[str, Any] | None:
            # The previous pod's env.json is there too, until this pod's process writes its own.
            info = started_info(cluster, ready)
            return info if info is not None and info["env"]["MY_UID"] == ready.metadata.uid else None

        return await until(its_own, within=30)

    first = await started("keeper", claim)
    (Path(first["cwd"]) / "kept.txt").write_text("left by the first pod")
    await v1.delete_namespaced_pod("keeper", namespace)

    async def gone() -> bool:
        return not (await v1.list_namespaced_pod(namespace, field_selector="metadata.name=keeper")).items

    await until(gone, within=15)
    second = await started("keeper", claim)
    assert second["cwd"] == first["cwd"]
    assert (Path(second["cwd"]) / "kept.txt").read_text() == "left by the first pod"
    # Written there by the second pod's process: the claim's directory is still its user's.
    assert os.stat(second["cwd"]).st_uid == os.stat(Path(second["cwd"]) / "env.json").st_uid
    # A pod with another volume there (no claim) works in a directory of its own.
    other = await started("elsewhere", [{"name": "home", "emptyDir": {}}])
    assert other["cwd"] != first["cwd"] and not (Path(other["cwd"]) / "kept.txt").exists()


async def test_deleting_a_deployment_stops_its_processes(
    cluster: DevClusterProcess, api: client.ApiClient, namespace: str
) -> None:
    v1, apps = client.CoreV1Api(api), client.AppsV1Api(api)
    await apps.create_namespaced_deployment(namespace, _deployment("dep", 2))

    async def two_running() -> list[int]:
        pods = (await v1.list_namespaced_pod(namespace, label_selector="app=dep")).items
        infos = [started_info(cluster, p) for p in pods if p.status.phase == "Running"]
        pids = [int(i["pid"]) for i in infos if i is not None]
        return pids if len(pids) == 2 else []

    pids = await until(two_running, within=30)
    assert all(pid_alive(pid) for pid in pids)
    await apps.delete_namespaced_deployment("dep", namespace)

    async def no_pods() -> bool:
        return not (await v1.list_namespaced_pod(namespace, label_selector="app=dep")).items

    await until(no_pods, within=20)
    assert all(wait_gone(pid, 2.0) for pid in pids)


@pytest.mark.parametrize("how", [signal.SIGTERM, signal.SIGINT])
def test_stopping_the_dev_cluster_leaves_no_process_behind(how: signal.Signals) -> None:
    with echo_cluster() as own:
        pids = _run_pods_sync(own)
        assert all(pid_alive(pid) for pid in pids)
        os.kill(own.process.pid, how)  # the dev cluster alone, not its process group
        assert wait_gone(own.process.pid, 10.0)
    # One of them is a grandchild in a pod's process group: only the dev cluster's own stop reaches it.
    assert all(wait_gone(pid, 2.0) for pid in pids)


def _run_pods_sync(cluster: DevClusterProcess) -> list[int]:
    async def run() -> list[int]:
        async with api_client(cluster.kubeconfig) as api:
            v1 = client.CoreV1Api(api)
            await v1.create_namespaced_pod("default", _pod("plain", echo_container(env={"SPAWN_CHILD": "1"})))
            await v1.create_namespaced_pod(
                "default", _pod("stubborn", echo_container(env={"IGNORE_TERM": "1"}))
            )
            pids = []
            for name in ("plain", "stubborn"):
                running = await until(_ready(v1, name), within=30)
                info = await until(_started(cluster, running), within=30)
                pids.append(int(info["pid"]))
                if "child" in info:
                    pids.append(int(info["child"]))
            return pids

    return asyncio.run(run())


def _ready(v1: client.CoreV1Api, name: str) -> Any:
    async def check() -> Any:
        return await pod_when(v1, name, "default", "Ready")

    return check


def _started(cluster: DevClusterProcess, pod: Any) -> Any:
    async def check() -> dict[str, Any] | None:
        return started_info(cluster, pod)

    return check


def _deployment(name: str, replicas: int) -> dict[str, Any]:
    return {
        "metadata": {"name": name},
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": {"app": name}},
            "template": {
                "metadata": {"labels": {"app": name}},
                "spec": {"containers": [echo_container(probe=HTTP_PROBE)]},
            },
        },
    }
