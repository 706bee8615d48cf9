"""Two NuFi server processes over one sandbox (one cluster, one Prometheus, one database), as two
replicas of a Deployment would run: only the Lease holder acts on a hot node; killed mid-incident, it is
restarted (by the sandbox, as a kubelet would) while the other process takes over, and the incident
goes on unchanged — the node stays hot, its pods stay off, nothing is tripped twice — until the node
cools and the new leader lets traffic back once. With every controller stopped, a hot node keeps its
traffic. The tests of this module run in order and share one sandbox.

The sandbox here runs without --stop-on-failure, so it restarts its NuFi when that process dies.
"""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import httpx
import pytest

from e2e.e2e_sandbox_support import SandboxRun, running_sandbox
from nufi_sandbox.processes import ManagedProcess, free_port
from support.polling import poll, stays_true_blocking

from .thermal_support import COOL_NODE, HOT_NODE, POLICY, PROJECT, World, force, thermal_world

# Outside a pod NuFi keeps its Lease in `default`, under the default name.
LEASE = "/apis/coordination.k8s.io/v1/namespaces/default/leases/nufi-thermal-controller"
# A transition's history rows and Kubernetes Events.
Recorded = tuple[list[dict[str, Any]], list[dict[str, Any]]]


@pytest.fixture(scope="module")
def sandbox() -> Iterator[SandboxRun]:
    with running_sandbox() as run:
        yield run


@dataclass
class Replicas:
    """The sandbox's NuFi and a second `nufi serve` started here with the same environment."""

    world: World
    second: ManagedProcess
    second_url: str

    def urls(self) -> list[str]:
        return [str(self.world.sandbox.state["nufi_url"]), self.second_url]

    def statuses(self) -> list[dict[str, Any] | None]:
        found: list[dict[str, Any] | None] = []
        for url in self.urls():
            try:
                response = self.world.nufi.get(f"{url}/api/v1/thermal/status", timeout=5)
            except httpx.HTTPError:
                found.append(None)
                continue
            found.append(response.json() if response.status_code == 200 else None)
        return found

    def one_leader(self, other_than: str | None = None) -> dict[str, Any] | None:
        """The status of the one process leading, once every answering process names it as holder."""
        answering = [s for s in self.statuses() if s is not None]
        leaders = [s for s in answering if s["leader"]]
        if len(leaders) != 1 or leaders[0]["identity"] == other_than:
            return None
        if {s["holder"] for s in answering} != {leaders[0]["identity"]}:
            return None
        return leaders[0]

    def events(self, node: str, to_state: str) -> list[dict[str, Any]]:
        items = self.world.nufi.get("/api/v1/thermal/events", params={"node": node}).json()["items"]
        return [e for e in items if e["to_state"] == to_state]

    def kube_events(self, node: str, reason: str) -> list[dict[str, Any]]:
        items = self.world.kube.get(
            "/api/v1/namespaces/default/events", params={"fieldSelector": f"involvedObject.name={node}"}
        ).json()["items"]
        return [e for e in items if e["reason"] == reason]

    def recorded(self, node: str, to_state: str, reason: str) -> Recorded:
        """The history rows and Kubernetes Events of a transition, once both are there: the leader
        changes traffic first and records the transition after it."""

        def both() -> Recorded | None:
            rows, kube = self.events(node, to_state), self.kube_events(node, reason)
            return (rows, kube) if rows and kube else None

        return poll(both, 30, 0.5, f"the history row and the {reason} Event of {node}")


def _pid(identity: str) -> int:
    # `<host>-<pid>-<random>`, as services.py names a replica.
    return int(identity.rsplit("-", 2)[1])


def _environment(pid: int) -> dict[str, str]:
    raw = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
    pairs = (entry.decode().partition("=") for entry in raw if b"=" in entry)
    return {name: value for name, _, value in pairs}


@pytest.fixture(scope="module")
def replicas(sandbox: SandboxRun) -> Iterator[Replicas]:
    with thermal_world(sandbox) as world:
        first = _pid(world.nufi.get("/api/v1/thermal/status").json()["identity"])
        port = free_port()
        # The sandbox's own command line and environment, on a port of its own.
        argv = Path(f"/proc/{first}/cmdline").read_bytes().rstrip(b"\0").decode().split("\0")
        argv[argv.index("--port") + 1] = str(port)
        second = ManagedProcess("nufi-second", argv, log_dir=sandbox.work, env=_environment(first))
        second.start()
        url = f"http://127.0.0.1:{port}"
        try:
            second.wait_ready(lambda: httpx.get(f"{url}/healthz", timeout=2).is_success, 60, "serving")
            yield Replicas(world, second, url)
        finally:
            second.stop()


def test_two_processes_agree_on_one_leader_and_only_it_trips_the_hot_node(replicas: Replicas) -> None:
    world = replicas.world
    put = world.nufi.put("/api/v1/admin/thermal/policies/lpu", json=POLICY)
    assert put.status_code == 200, put.text
    leader = poll(replicas.one_leader, 60, 0.5, "one leader")
    identities = [s["identity"] for s in replicas.statuses() if s is not None]
    assert len(set(identities)) == 2 and leader["identity"] in identities
    start = time.monotonic()
    poll(
        lambda: {n for _, n, _ in world.answers.since(start)} >= {HOT_NODE, COOL_NODE}, 30, 0.5, "both answer"
    )

    force(world, HOT_NODE, 95)
    forced = time.monotonic()
    poll(lambda: world.last_answer_before_cut(HOT_NODE, forced), 60, 0.5, f"requests off {HOT_NODE}")
    assert all(status == 200 for _, _, status in world.answers.since(forced))
    # Both processes assess; one acted: one history row and one Kubernetes Event for the trip.
    rows, (trip, *more) = replicas.recorded(HOT_NODE, "hot", "ThermalTrip")
    assert len(rows) == 1 and not more, (rows, more)
    assert trip["reportingInstance"] == leader["identity"], trip  # the replica that acted
    for status in replicas.statuses():
        assert status is not None
        (lpu,) = [t for t in status["types"] if t["device_type"] == "lpu"]
        assert {n["node"]: n["state"] for n in lpu["nodes"]}[HOT_NODE] == "hot", status


def test_the_leader_killed_mid_incident_is_replaced_and_the_incident_goes_on_unchanged(
    replicas: Replicas,
) -> None:
    world = replicas.world
    leader = poll(replicas.one_leader, 30, 0.5, "one leader")
    hot_since = world.node_status(HOT_NODE)
    assert hot_since is not None and hot_since["state"] == "hot"
    transitions = int(world.kube.get(LEASE).json()["spec"].get("leaseTransitions") or 0)
    killed_pid = _pid(leader["identity"])
    os.kill(killed_pid, signal.SIGKILL)
    killed = time.monotonic()
    last_renewal = world.kube.get(LEASE).json()["spec"]
    assert last_renewal["holderIdentity"] == leader["identity"]
    if killed_pid == replicas.second.pid:
        # The sandbox restarts its own NuFi; the second one is restarted here, the same way.
        replicas.second.restart()

    successor = poll(lambda: replicas.one_leader(other_than=leader["identity"]), 90, 0.5, "a new leader")
    print(f"takeover seen by both processes {time.monotonic() - killed:.1f} s after the leader was killed")
    lease = world.kube.get(LEASE).json()["spec"]
    assert lease["holderIdentity"] == successor["identity"]
    assert lease["leaseTransitions"] == transitions + 1
    # Never before the dead leader's lease ran out: the successor waited a whole lease duration from
    # the last renewal it saw (both stamps from this machine's clock).
    waited = _seconds_apart(lease["acquireTime"], last_renewal["renewTime"])
    print(f"the successor acquired the Lease {waited:.1f} s after the last renewal")
    assert waited >= last_renewal["leaseDurationSeconds"], (lease, last_renewal)
    # Both processes answer again: the killed one was restarted and follows.
    poll(lambda: all(s is not None for s in replicas.statuses()), 60, 0.5, "both processes answer")
    assert poll(replicas.one_leader, 30, 0.5, "one leader")["identity"] == successor["identity"]

    # The successor rebuilt the incident from the cluster: the same node hot since the same time.
    status = world.node_status(HOT_NODE)
    assert status is not None and status["state"] == "hot", status
    assert _seconds_apart(status["since"], hot_since["since"]) < 1.0, (status["since"], hot_since["since"])
    assert all(not pod["traffic_on"] for pod in status["pods"]), status
    # Nothing reached the hot node and nothing failed while the leader was gone and after.
    during = world.answers.since(killed)
    assert during and all(node == COOL_NODE and code == 200 for _, node, code in during), during[-5:]
    assert len(replicas.events(HOT_NODE, "hot")) == 1
    assert len(replicas.kube_events(HOT_NODE, "ThermalTrip")) == 1
    taints = world.kube.get(f"/api/v1/nodes/{HOT_NODE}").json()["spec"].get("taints") or []
    assert [t["key"] for t in taints].count("nufi.io/thermal") == 1


def test_the_new_leader_lets_traffic_back_once_when_the_node_cools(replicas: Replicas) -> None:
    world = replicas.world
    assert world.control.delete(world.override_url(HOT_NODE), timeout=10).status_code in (200, 204)
    lifted = time.monotonic()
    poll(lambda: any(n == HOT_NODE for _, n, _ in world.answers.since(lifted)), 60, 0.5, f"{HOT_NODE} back")
    assert all(code == 200 for _, _, code in world.answers.since(lifted))
    rows, events = replicas.recorded(HOT_NODE, "normal", "ThermalResume")
    assert len(rows) == 1 and len(events) == 1, (rows, events)
    taints = world.kube.get(f"/api/v1/nodes/{HOT_NODE}").json()["spec"].get("taints") or []
    assert "nufi.io/thermal" not in [t["key"] for t in taints]


def _untouched(world: World, since: float) -> bool:
    """Every request since `since` answered, and every pod's traffic still on."""
    pods = world.kube.get(
        f"/api/v1/namespaces/{PROJECT}/pods", params={"labelSelector": "nufi.io/workload=llm"}
    ).json()["items"]
    answered = all(code == 200 for _, _, code in world.answers.since(since))
    return answered and {p["metadata"]["labels"]["nufi.io/traffic"] for p in pods} == {"on"}


def test_with_every_controller_stopped_a_hot_node_keeps_its_traffic(replicas: Replicas) -> None:
    world = replicas.world
    replicas.second.stop()
    sandbox_nufi = poll(lambda: _answering(world), 30, 0.5, "the sandbox's NuFi answers")
    frozen = _pid(sandbox_nufi["identity"])
    # Frozen rather than killed, so the sandbox does not restart it: no controller runs at all.
    os.kill(frozen, signal.SIGSTOP)
    try:
        force(world, HOT_NODE, 95)
        forced = time.monotonic()
        # Far longer than the trip hold, two scrapes and an evaluation: a running controller would
        # have cut it (as it does below once it runs again).
        stays_true_blocking(lambda: _untouched(world, forced), POLICY["trip_hold_seconds"] + 8, every=0.5)
        assert HOT_NODE in {n for _, n, _ in world.answers.since(forced)}
    finally:
        os.kill(frozen, signal.SIGCONT)
    resumed = time.monotonic()
    poll(lambda: world.last_answer_before_cut(HOT_NODE, resumed), 90, 0.5, f"requests off {HOT_NODE} again")
    assert world.control.delete(world.override_url(HOT_NODE), timeout=10).status_code in (200, 204)


def _answering(world: World) -> dict[str, Any] | None:
    try:
        response = world.nufi.get("/api/v1/thermal/status", timeout=5)
    except httpx.HTTPError:
        return None
    return response.json() if response.status_code == 200 else None


def _seconds_apart(a: str, b: str) -> float:
    return abs((datetime.fromisoformat(a) - datetime.fromisoformat(b)).total_seconds())
