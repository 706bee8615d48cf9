"""The world of the GPU benchmarks: 1,000 nodes x 8 GPUs behind the mock exporter in its DCGM profile,
a dev cluster with the same nodes and a few hundred pods holding GPUs, Prometheus scraping every
15 s, and the dev identity provider; started together, stopped together."""

from __future__ import annotations

import asyncio
import contextlib
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import yaml
from pydantic import SecretStr

from nufi.config import Settings
from nufi_sandbox.devcluster.launcher import DevClusterProcess
from nufi_sandbox.idp.launcher import IdentityProviderProcess
from nufi_sandbox.idp.realm import DEFAULT_USERS_FILE
from nufi_sandbox.processes import ManagedProcess, free_port
from nufi_sandbox.prometheus import PrometheusServer, ScrapeJob

NODES = 1000
DEVICES_PER_NODE = 8
PODS = 300
SCRAPE_INTERVAL_SECONDS = 15
NODE_NAMES = [f"gpu-{i:04d}" for i in range(NODES)]
DESCRIPTION = (
    f"world: {NODES:,} nodes x {DEVICES_PER_NODE} GPUs = {NODES * DEVICES_PER_NODE:,} devices "
    f"(mock exporter, DCGM profile), a dev cluster with the same nodes and {PODS} pods "
    f"holding GPUs, Prometheus scraping every {SCRAPE_INTERVAL_SECONDS} s"
)


def start_exporter(work: Path) -> tuple[ManagedProcess, str]:
    port = free_port()
    argv = [sys.executable, "-m", "nufi_mock", "exporter", "--host", "127.0.0.1", "--port", str(port)]
    argv += [
        "--profile",
        "dcgm",
        "--nodes",
        ",".join(NODE_NAMES),
        "--devices-per-node",
        str(DEVICES_PER_NODE),
    ]
    argv += ["--no-pod-resources", "--interval", str(SCRAPE_INTERVAL_SECONDS), "--log-format", "json"]
    process = ManagedProcess("bench-exporter", argv, log_dir=work).start()
    address = f"127.0.0.1:{port}"
    try:
        process.wait_ready(
            lambda: httpx.get(f"http://{address}/healthz", timeout=1.0).status_code == 200,
            60.0,
            "answering /healthz",
        )
    except BaseException:
        process.stop()
        raise
    return process, address


def start_cluster(work: Path) -> DevClusterProcess:
    nodes = [
        {"name": name, "device_plugins": False, "capacity": {"nvidia.com/gpu": DEVICES_PER_NODE}}
        for name in NODE_NAMES
    ]
    nodes_file = work / "nodes.yaml"
    nodes_file.write_text(yaml.safe_dump({"nodes": nodes}))
    cluster = DevClusterProcess(work / "cluster", nodes_file=nodes_file)
    try:
        cluster.start(timeout=120)
        with httpx.Client(base_url=cluster.url, headers=cluster.headers, timeout=10.0) as client:
            for i in range(PODS):
                limits = {"nvidia.com/gpu": str(1 + i % DEVICES_PER_NODE)}
                body = {
                    "apiVersion": "v1",
                    "kind": "Pod",
                    "metadata": {"name": f"job-{i}"},
                    "spec": {
                        "nodeName": NODE_NAMES[(i * 3) % NODES],
                        "containers": [{"name": "main", "image": "busybox", "resources": {"limits": limits}}],
                    },
                }
                client.post("/api/v1/namespaces/default/pods", json=body).raise_for_status()
    except BaseException:
        cluster.stop()
        raise
    return cluster


async def wait_for_every_device(prometheus: PrometheusServer) -> None:
    expected = NODES * DEVICES_PER_NODE
    deadline = time.monotonic() + 120
    while True:
        found = await prometheus.query("count(DCGM_FI_DEV_POWER_USAGE)")
        if found and int(float(found[0]["value"][1])) == expected:
            return
        if time.monotonic() > deadline:
            raise TimeoutError(f"Prometheus did not see {expected} GPUs in time: {found}")
        await asyncio.sleep(1)


@dataclass(frozen=True)
class GpuWorld:
    prometheus: PrometheusServer
    cluster: DevClusterProcess
    identity: IdentityProviderProcess
    work: Path

    def settings(self, **extra: Any) -> Settings:
        """NuFi's settings for this world (a database of its own in `work`), with `extra` fields."""
        return Settings(
            database_url=SecretStr(f"sqlite+aiosqlite:///{self.work / 'nufi.db'}"),
            prometheus_url=self.prometheus.url,
            prometheus_timeout_seconds=60,
            kubeconfig=self.cluster.kubeconfig,
            oidc_issuer=self.identity.issuer,
            monitoring_scrape_interval_seconds=SCRAPE_INTERVAL_SECONDS,
            log_level="warning",
            **extra,
        )


@contextlib.contextmanager
def gpu_world(work: Path, *, users_file: Path = DEFAULT_USERS_FILE) -> Iterator[GpuWorld]:
    """The world started in `work`, once Prometheus sees every GPU; every process stopped after."""
    exporter: ManagedProcess | None = None
    cluster: DevClusterProcess | None = None
    identity: IdentityProviderProcess | None = None
    prometheus = PrometheusServer(scrape_interval=f"{SCRAPE_INTERVAL_SECONDS}s", work_dir=work / "prometheus")
    try:
        exporter, address = start_exporter(work)
        cluster = start_cluster(work)
        identity = IdentityProviderProcess(work / "idp", users_file=users_file).start()
        prometheus.start()
        labels = {"pod": "dcgm-exporter", "namespace": "gpu"}
        prometheus.set_jobs([ScrapeJob("dcgm", [address], labels=labels)])
        asyncio.run(wait_for_every_device(prometheus))
        yield GpuWorld(prometheus, cluster, identity, work)
    finally:
        prometheus.stop()
        for process in (identity, cluster, exporter):
            if process is not None:
                process.stop()
