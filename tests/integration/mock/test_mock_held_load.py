"""Holding a device is not working it: through the dev cluster's PodResources, a device held by an idle
pod (a lab nobody types into) reports idle-level utilisation and temperature, while the device of a pod
whose `nufi-mock inference` server is under requests reports their load."""

from __future__ import annotations

import asyncio
import functools
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from nufi_sandbox.processes import ManagedProcess
from support.polling import poll, until

from .inference_support import start_inference
from .mock_support import Kube, launch_exporter, pod_asking, start_cluster, start_plugin, wait_answering

NODE = "lpu-node-1"
AMBIENT = 35.0
# Short, so that heat from load, or from holding on code that confuses the two, shows within seconds.
TIME_CONSTANT = 1.0
_SAMPLE = re.compile(
    r"^lpu_(?P<metric>utilization_percent|temperature_celsius)\{(?P<labels>[^}]*)\} (?P<value>\S+)$"
)
_LABEL = re.compile(r'(\w+)="([^"]*)"')


@dataclass(frozen=True)
class Device:
    pod: str
    utilization: float
    temperature: float


def running(kube: Kube, name: str) -> bool:
    return bool(kube.pod(name)["status"].get("phase") == "Running")


async def devices(client: httpx.AsyncClient, exporter: str) -> dict[str, Device]:
    """Device name -> its holder (empty: none) and readings, from the exporter's /metrics."""
    values: dict[str, dict[str, float]] = {}
    pods: dict[str, str] = {}
    for line in (await client.get(f"{exporter}/metrics")).text.splitlines():
        if (sample := _SAMPLE.match(line)) is None:
            continue
        labels = dict(_LABEL.findall(sample["labels"]))
        values.setdefault(labels["device"], {})[sample["metric"]] = float(sample["value"])
        pods[labels["device"]] = labels.get("pod", "")
    return {
        name: Device(pods[name], found["utilization_percent"], found["temperature_celsius"])
        for name, found in values.items()
    }


@dataclass
class World:
    exporter_url: str
    log_dir: Path
    processes: list[ManagedProcess]


@pytest.fixture
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    """A dev cluster node with the mock LPU's plugin and exporter, where pod `notes` (standing for an
    idle lab) and pod `infer` hold one device each."""
    # A short directory: the kubelet's sockets live under it, and a unix socket path has a length limit.
    tmp_path = tmp_path_factory.mktemp("held")
    cluster = start_cluster(tmp_path, f"nodes:\n  - name: {NODE}\n")
    processes: list[ManagedProcess] = []
    try:
        processes.append(start_plugin(cluster.device_plugin_dir(NODE), tmp_path))
        exporter, address = launch_exporter(
            "exporter-held",
            tmp_path,
            *("--profile", "lpu", "--nodes", NODE, "--interval", "0.2"),
            *("--pod-resources-socket", f"{NODE}={cluster.pod_resources_socket(NODE)}"),
            *("--ambient-celsius", str(AMBIENT), "--thermal-time-constant", str(TIME_CONSTANT)),
        )
        processes.append(exporter)
        kube = Kube(cluster)
        poll(lambda: kube.lpu_counts(NODE) == ("4", "4"), what="four LPUs advertised")
        for name in ("notes", "infer"):
            kube.create_pod(pod_asking(name, 1))
        for name in ("notes", "infer"):
            poll(functools.partial(running, kube, name), what=f"{name} Running")
        wait_answering(exporter, address)
        yield World(f"http://{address}", tmp_path, processes)
    finally:
        for process in reversed(processes):
            process.stop()
        cluster.stop()


async def traffic(client: httpx.AsyncClient, url: str, stop: asyncio.Event) -> None:
    # Bounded: at most 60 s of about 20 requests a second, twice the saturating rate.
    body = {"model": "mock-lpu-llm", "messages": [{"role": "user", "content": "warm up"}]}
    for _ in range(1200):
        if stop.is_set():
            return
        await client.post(f"{url}/v1/chat/completions", json=body)
        await asyncio.sleep(0.05)


async def test_an_idle_holder_leaves_its_device_idle_and_a_busy_server_heats_its_own(world: World) -> None:
    exporter_url = world.exporter_url
    async with httpx.AsyncClient(timeout=5.0) as client:

        async def held() -> dict[str, str]:
            by_pod = {d.pod: name for name, d in (await devices(client, exporter_url)).items() if d.pod}
            return by_pod if set(by_pod) == {"notes", "infer"} else {}

        device_of = await until(held, within=15.0, every=0.2)
        env = {
            "POD_NAME": "infer",
            "POD_NAMESPACE": "default",
            "NODE_NAME": NODE,
            "LPU_VISIBLE_DEVICES": device_of["infer"],
            "NUFI_MOCK_EXPORTER_URL": exporter_url,
        }
        args = ("--load-window", "1.5", "--saturation-rps", "10", "--report-interval", "0.2")
        server, url = start_inference("inference-held", world.log_dir, env, *args)
        world.processes.append(server)
        stop = asyncio.Event()
        sending = asyncio.create_task(traffic(client, url, stop))
        try:

            async def hot() -> dict[str, Device]:
                found = await devices(client, exporter_url)
                busy = found[device_of["infer"]]
                return found if busy.utilization > 60 and busy.temperature > 60 else {}

            found = await until(hot, within=30.0, every=0.2)
        finally:
            stop.set()
            await sending
    # The lab has held its device at least as long as the server has held its own, many thermal
    # time constants: had holding been enough to work it, it would be as hot.
    idle = found[device_of["notes"]]
    assert idle.pod == "notes"
    assert idle.utilization <= 2.0, found
    assert idle.temperature < AMBIENT + 3.0, found
