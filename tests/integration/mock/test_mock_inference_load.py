"""Traffic to `nufi-mock inference` heats exactly the devices it holds: an exporter process and an
inference server process, the server reporting its request rate to the exporter's /control/load."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path
from typing import Any

import httpx

from support.polling import until

from .inference_support import start_inference
from .mock_support import launch_exporter, wait_answering

NODE = "lpu-node-1"
HELD = {"lpu1", "lpu3"}
_SAMPLE = re.compile(r"^lpu_utilization_percent\{(?P<labels>[^}]*)\} (?P<value>\S+)$", re.MULTILINE)
_DEVICE = re.compile(r'device="([^"]+)"')


async def utilization(client: httpx.AsyncClient, exporter: str) -> dict[str, float]:
    text = (await client.get(f"{exporter}/metrics")).text
    found = {}
    for match in _SAMPLE.finditer(text):
        device = _DEVICE.search(match["labels"])
        assert device is not None
        found[device.group(1)] = float(match["value"])
    assert len(found) == 4, text
    return found


async def assert_one_idle_report(client: httpx.AsyncClient, exporter_url: str) -> None:
    """The inference server reports its held devices to the exporter before any request."""

    async def reported() -> list[dict[str, Any]]:
        loads: list[dict[str, Any]] = (await client.get(f"{exporter_url}/control/load")).json()["loads"]
        return loads

    [report] = await until(reported, within=10.0)
    assert report == {
        "source": "default/infer-0",
        "node": NODE,
        "devices": sorted(HELD),
        "utilization": 0.0,
        "expires_in_seconds": report["expires_in_seconds"],
    }


async def assert_load_heats_only_the_held_devices(
    client: httpx.AsyncClient, exporter_url: str, url: str
) -> None:
    """While requests come, the held devices run hot and the others stay idle; the requests stop after."""
    stop = asyncio.Event()

    async def traffic() -> None:
        # Bounded: at most 60 s of about 20 requests a second, twice the saturating rate.
        body = {"model": "mock-lpu-llm", "messages": [{"role": "user", "content": "warm up"}]}
        for _ in range(1200):
            if stop.is_set():
                return
            await client.post(f"{url}/v1/chat/completions", json=body)
            await asyncio.sleep(0.05)

    sending = asyncio.create_task(traffic())
    try:

        async def hot() -> dict[str, float]:
            values = await utilization(client, exporter_url)
            return values if all(values[d] > 60 for d in HELD) else {}

        values = await until(hot, within=30.0, every=0.2)
        assert all(values[d] < 5 for d in values.keys() - HELD), values
    finally:
        stop.set()
        await sending


async def test_requests_raise_the_utilization_of_the_held_devices_until_the_load_stops(
    tmp_path: Path,
) -> None:
    exporter, address = launch_exporter(
        "exporter-load",
        tmp_path,
        "--profile",
        "lpu",
        "--nodes",
        NODE,
        "--no-pod-resources",
        "--interval",
        "0.2",
    )
    exporter_url = f"http://{address}"
    env = {
        "POD_NAME": "infer-0",
        "POD_NAMESPACE": "default",
        "NODE_NAME": NODE,
        "LPU_VISIBLE_DEVICES": ",".join(sorted(HELD)),
        "NUFI_MOCK_EXPORTER_URL": exporter_url,
    }
    args = ("--load-window", "1.5", "--saturation-rps", "10", "--report-interval", "0.2")
    server = None
    try:
        wait_answering(exporter, address)
        server, url = start_inference("inference-load", tmp_path, env, *args)
        async with httpx.AsyncClient(timeout=5.0) as client:
            idle = await utilization(client, exporter_url)
            assert all(value < 5 for value in idle.values()), idle

            await assert_one_idle_report(client, exporter_url)
            await assert_load_heats_only_the_held_devices(client, exporter_url, url)

            async def cooled() -> dict[str, float]:
                values = await utilization(client, exporter_url)
                return values if all(v < 5 for v in values.values()) else {}

            await until(cooled, within=30.0, every=0.2)
        server.stop()
        async with httpx.AsyncClient(timeout=5.0) as client:
            # A server that stops withdraws its report at once instead of waiting for it to expire.
            assert (await client.get(f"{exporter_url}/control/load")).json() == {"loads": []}
    finally:
        if server is not None:
            server.stop()
        exporter.stop()
