"""Shared by the thermal sandbox tests: one LPU deployment over both LPU nodes, a client sending it
steady requests through its Service (counting the node of each answer), and the exporter's
temperature force."""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import yaml

from e2e.e2e_sandbox_support import LPU_REGISTRATION, SandboxRun, bearer, token
from nufi.thermal.policy import ThermalPolicy
from support.polling import poll

PROJECT = "team-heat"
HOT_NODE, COOL_NODE = "lpu-node-1", "lpu-node-2"
MODEL = "mock-lpu-llm"
POLICY: dict[str, Any] = {
    "enabled": True,
    "trip_celsius": 85,
    "resume_celsius": 75,
    "trip_hold_seconds": 2,
    "resume_hold_seconds": 4,
    "scope": "node",
    "allow_full_shutoff": False,
    "taint_node": True,
    "overrides_may_disable": False,
    "override_max_trip_celsius": None,
    # Health and the custom condition at their defaults; the breaker lets every replica on a hot node
    # go (of three, two may share it), as the temperature tests expect. The protection tests set theirs.
    **{name: ThermalPolicy().model_dump()[name] for name in ("unhealthy", "custom")},
    "breaker": {"max_node_share": 0.3, "max_replica_share": 1.0},
}


@dataclass
class Answers:
    """What a steady client saw: (time, node or None for a failure, status) per request, and beside
    it (time, the pod that answered)."""

    seen: list[tuple[float, str | None, int]] = field(default_factory=list)
    pods: list[tuple[float, str | None]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, node: str | None, status: int, pod: str | None = None) -> None:
        with self.lock:
            now = time.monotonic()
            self.seen.append((now, node, status))
            self.pods.append((now, pod))

    def since(self, start: float) -> list[tuple[float, str | None, int]]:
        with self.lock:
            return [item for item in self.seen if item[0] >= start]

    def pods_since(self, start: float) -> list[tuple[float, str | None]]:
        with self.lock:
            return [item for item in self.pods if item[0] >= start]


@dataclass
class World:
    sandbox: SandboxRun
    nufi: httpx.Client
    kube: httpx.Client
    answers: Answers
    stop: threading.Event
    control: httpx.Client
    """For the exporters' control endpoints: it carries their control token."""

    def override_url(self, node: str) -> str:
        return str(self.sandbox.state["exporters"][node]).replace("/metrics", "/control/override")

    def last_answer_before_cut(self, node: str, since: float) -> float | None:
        """When `node` last answered after `since`, once the next 40 answers all came from elsewhere
        (`since` itself when it never did); None until then."""
        seen = self.answers.since(since)
        on_node = [t for t, answered, _ in seen if answered == node]
        last = on_node[-1] if on_node else since
        after = [answered for t, answered, _ in seen if t > last]
        return last if len(after) >= 40 and node not in after and None not in after else None

    def node_status(self, node: str) -> dict[str, Any] | None:
        body = self.nufi.get("/api/v1/thermal/status").json()
        for entry in body["types"]:
            if entry["device_type"] == "lpu":
                for item in entry["nodes"]:
                    if item["node"] == node:
                        found: dict[str, Any] = item
                        return found
        return None


def steady_requests(world_kube: httpx.Client, answers: Answers, stop: threading.Event) -> None:
    path = f"/api/v1/namespaces/{PROJECT}/services/llm:8000/proxy/v1/completions"
    while not stop.is_set():
        try:
            response = world_kube.post(path, json={"model": MODEL, "prompt": "hi", "max_tokens": 2})
        except httpx.HTTPError:
            answers.add(None, 0)
            continue
        served = response.json()["nufi"] if response.status_code == 200 else {}
        answers.add(served.get("node"), response.status_code, served.get("pod"))
        time.sleep(0.05)


@contextlib.contextmanager
def thermal_world(
    sandbox: SandboxRun, *, registration: dict[str, Any] = LPU_REGISTRATION, replicas: int = 2
) -> Iterator[World]:
    """LPU registered, project and a deployment of `replicas` made, the steady client running."""
    state = sandbox.state
    admin = bearer(token(state, "admin", "admin"))
    kubeconfig = yaml.safe_load(Path(state["kubeconfig"]).read_text())
    kube_token = kubeconfig["users"][0]["user"]["token"]
    with (
        httpx.Client(base_url=state["nufi_url"], headers=admin, timeout=30.0) as nufi,
        httpx.Client(base_url=state["kube_api_url"], headers=bearer(kube_token), timeout=30.0) as kube,
        httpx.Client(base_url=state["kube_api_url"], headers=bearer(kube_token), timeout=30.0) as client,
        httpx.Client(headers=bearer(state["exporter_control_token"]), timeout=10.0) as control,
    ):
        poll(
            lambda: nufi.post("/api/v1/admin/devices", json=registration).status_code == 201,
            60,
            0.5,
            "lpu",
        )
        assert nufi.post("/api/v1/admin/projects", json={"name": PROJECT, "members": []}).status_code == 201
        created = nufi.post(
            f"/api/v1/projects/{PROJECT}/deployments",
            json={
                "name": "llm",
                "image": state["images"]["inference"],
                "args": ["inference", "--model", MODEL],
                "accelerator": {"device_type": "lpu", "count": 1},
                "replicas": replicas,
                "port": 8000,
                "readiness_path": "/health",
            },
        )
        assert created.status_code == 201, created.text
        answers, stop = Answers(), threading.Event()
        steady = threading.Thread(target=steady_requests, args=(client, answers, stop), daemon=True)
        world = World(sandbox, nufi, kube, answers, stop, control)
        try:
            poll(
                lambda: nufi.get(f"/api/v1/projects/{PROJECT}/deployments/llm").json()["status"] == "Ready",
                120,
                0.5,
                "llm Ready",
            )
            steady.start()
            yield world
        finally:
            stop.set()
            if steady.is_alive():
                steady.join(timeout=30)
            for node in (HOT_NODE, COOL_NODE):
                control.delete(world.override_url(node))


def force(world: World, node: str, value: float) -> None:
    forced = world.control.post(
        world.override_url(node),
        json={"node": node, "device": None, "metric": "temperature", "value": value, "duration_seconds": 600},
        timeout=10,
    )
    assert forced.status_code in (200, 201), forced.text
