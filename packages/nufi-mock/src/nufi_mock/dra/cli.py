"""`nufi-mock dra-driver`."""

from __future__ import annotations

import asyncio
import signal
from pathlib import Path
from typing import Annotated

import typer

from nufi_mock.kubelet_api import DEFAULT_CDI_DIR, DEFAULT_PLUGINS_DIR, DEFAULT_PLUGINS_REGISTRY
from nufi_mock.logs import LogFormat, configure_logging

from .config import DRIVER_NAME, MODELS, DriverConfig
from .driver import DraDriver
from .kube import TOKEN_ENV, KubeAccess, KubeClient, KubeError

_MODEL_HELP = "LPU model: " + ", ".join(
    f"{m.name} ({m.memory}, firmware {m.firmware_version})" for m in MODELS.values()
)
_PLUGINS_HELP = f"The kubelet's plugins directory; the driver serves in {DRIVER_NAME}/ under it."
_HEALTH_HELP = f"Health file as the device plugin reads it. Default: <plugins-dir>/{DRIVER_NAME}/health.json."
_NUMA_HELP = "NUMA nodes the LPUs are spread over, in blocks."


def dra_driver(
    node: Annotated[str, typer.Option(help="The node this driver runs on; also its pool's name.")],
    devices: Annotated[int, typer.Option(min=1, max=128, help="Number of LPUs, named lpu0, lpu1, ...")] = 4,
    numa_nodes: Annotated[int, typer.Option(min=1, help=_NUMA_HELP)] = 2,
    model: Annotated[str, typer.Option(help=_MODEL_HELP)] = "lpu-16g",
    registry_dir: Annotated[
        Path, typer.Option(help="The kubelet's plugin registry, where it looks for registration sockets.")
    ] = Path(DEFAULT_PLUGINS_REGISTRY),
    plugins_dir: Annotated[Path, typer.Option(help=_PLUGINS_HELP)] = Path(DEFAULT_PLUGINS_DIR),
    cdi_dir: Annotated[Path, typer.Option(help="Where CDI specs of prepared claims are written.")] = Path(
        DEFAULT_CDI_DIR
    ),
    health_file: Annotated[
        Path | None,
        typer.Option(help=_HEALTH_HELP),
    ] = None,
    kube_api_url: Annotated[
        str | None,
        typer.Option(help=f"Kubernetes API address. Default: in-cluster. Token: ${TOKEN_ENV} or the pod's."),
    ] = None,
    kube_ca_file: Annotated[Path | None, typer.Option(help="CA bundle of the API's certificate.")] = None,
    watch_interval: Annotated[
        float, typer.Option(min=0.05, help="Seconds between looks at the health file and the slices.")
    ] = 0.5,
    log_format: Annotated[LogFormat, typer.Option(help="console or json (one object per line).")] = "console",
) -> None:
    """Run a DRA driver for mock LPUs (driver lpu.hyperaccel.ai) until SIGTERM or Ctrl-C.

    Publishes the node's healthy LPUs as ResourceSlices (pool = node name; attributes model,
    firmwareVersion, numaNode, uuid, index; capacity memory), registers with the kubelet through
    <registry-dir>/lpu.hyperaccel.ai-reg.sock and prepares claims as CDI specs that set
    LPU_VISIBLE_DEVICES. A device marked Unhealthy leaves the pool in a new generation:

    \b
      nufi-mock set-health lpu1 Unhealthy --health-file <plugins-dir>/lpu.hyperaccel.ai/health.json

    On stop its ResourceSlices are deleted.
    """
    if model not in MODELS:
        raise typer.BadParameter(f"unknown model {model!r}; one of {', '.join(MODELS)}", param_hint="--model")
    configure_logging(log_format)
    config = DriverConfig(
        node=node,
        devices=devices,
        numa_nodes=numa_nodes,
        model=model,
        registry_dir=registry_dir,
        plugins_dir=plugins_dir,
        cdi_dir=cdi_dir,
        health_file=health_file,
        watch_interval=watch_interval,
    )
    try:
        access = KubeAccess.from_environment(kube_api_url, kube_ca_file)
    except KubeError as exc:
        typer.echo(f"nufi-mock dra-driver: {exc}", err=True)
        raise typer.Exit(code=2) from None
    asyncio.run(_run(config, access))


async def _run(config: DriverConfig, access: KubeAccess) -> None:
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    kube = KubeClient(access)
    try:
        await DraDriver(config, kube).run(stop)
    finally:
        await kube.close()
