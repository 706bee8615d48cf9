"""`nufi-mock device-plugin` and `nufi-mock set-health`."""

from __future__ import annotations

import asyncio
import signal
from pathlib import Path
from typing import Annotated

import typer

from nufi_mock.kubelet_api import DEFAULT_DEVICE_PLUGIN_PATH, HEALTHY, UNHEALTHY
from nufi_mock.logs import LogFormat, configure_logging

from .allocation import DeviceSpecMode
from .config import DEFAULT_RESOURCE_NAME, PluginConfig, default_health_file, default_socket_name
from .health_file import HealthFileError, set_device_health
from .plugin import DevicePlugin

_DIR_HELP = "Device plugin directory holding kubelet.sock; the plugin's socket is created here."
_HEALTH_FILE_HELP = (
    "JSON file naming Unhealthy devices, re-read every --watch-interval "
    '(e.g. {"devices": {"lpu1": "Unhealthy"}}). Default: <dir>/<socket name without .sock>.health.json.'
)


def device_plugin(
    resource_name: Annotated[
        str, typer.Option(help="Extended resource to advertise.", show_default=True)
    ] = DEFAULT_RESOURCE_NAME,
    devices: Annotated[
        int, typer.Option(min=1, max=256, help="Number of devices, named lpu0, lpu1, ...")
    ] = 4,
    numa_nodes: Annotated[
        int, typer.Option(min=1, help="NUMA nodes the devices are spread over, in blocks (4 on 2: 0,0,1,1).")
    ] = 2,
    plugin_dir: Annotated[Path, typer.Option("--dir", help=_DIR_HELP)] = Path(DEFAULT_DEVICE_PLUGIN_PATH),
    socket_name: Annotated[
        str | None,
        typer.Option(help="File name of the plugin's socket in --dir. Default: <resource name part>.sock."),
    ] = None,
    health_file: Annotated[Path | None, typer.Option(help=_HEALTH_FILE_HELP)] = None,
    device_specs: Annotated[
        DeviceSpecMode,
        typer.Option(
            help="Give containers /dev/lpu<N>: auto = only when that file exists on the node "
            "(the runtime rejects missing ones), always, never."
        ),
    ] = DeviceSpecMode.AUTO,
    host_share: Annotated[
        str | None,
        typer.Option(help="Host directory to mount read-only at /run/nufi-mock/lpu in allocated containers."),
    ] = None,
    watch_interval: Annotated[
        float,
        typer.Option(
            min=0.05, help="Seconds between checks for a re-created kubelet.sock and health changes."
        ),
    ] = 0.5,
    log_format: Annotated[LogFormat, typer.Option(help="console or json (one object per line).")] = "console",
) -> None:
    """Run a kubelet device plugin for mock LPUs until SIGTERM or Ctrl-C.

    Serves the DevicePlugin API (v1beta1) on <dir>/<socket name>, then registers with <dir>/kubelet.sock.
    Devices lpu0..lpuN-1 sit on NUMA nodes in blocks; GetPreferredAllocation keeps a request on one NUMA
    node when it fits. Allocate gives each container LPU_VISIBLE_DEVICES=<ids> (and /dev/lpu<N> per
    --device-specs). When kubelet.sock is re-created (a kubelet restart) the plugin serves a fresh socket
    and registers again within a second. Devices are Healthy unless the health file says otherwise:

    \b
      nufi-mock set-health lpu1 Unhealthy      # node allocatable drops by one, capacity stays
      nufi-mock set-health lpu1 Healthy
    """
    configure_logging(log_format)
    config = PluginConfig(
        resource_name=resource_name,
        devices=devices,
        numa_nodes=numa_nodes,
        plugin_dir=plugin_dir,
        socket_name=socket_name or "",
        health_file=health_file,
        device_specs=device_specs,
        host_share=host_share,
        watch_interval=watch_interval,
    )
    asyncio.run(_run(config))


async def _run(config: PluginConfig) -> None:
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    await DevicePlugin(config).run(stop)


def set_health(
    device: Annotated[str, typer.Argument(help="Device id (lpu0, lpu1, ...) or 'all'.")],
    health: Annotated[str, typer.Argument(help=f"{HEALTHY} or {UNHEALTHY} (any capitalisation).")],
    health_file: Annotated[
        Path | None,
        typer.Option(help="The plugin's health file. Default: derived from --dir and the socket."),
    ] = None,
    plugin_dir: Annotated[Path, typer.Option("--dir", help=_DIR_HELP)] = Path(DEFAULT_DEVICE_PLUGIN_PATH),
    resource_name: Annotated[str, typer.Option(help="Resource of the plugin.")] = DEFAULT_RESOURCE_NAME,
    socket_name: Annotated[
        str | None, typer.Option(help="Socket name of the plugin, if not default.")
    ] = None,
) -> None:
    """Mark a device of a running `nufi-mock device-plugin` Healthy or Unhealthy.

    Writes the plugin's health file; the plugin picks it up within its watch interval and streams the
    new device list to the kubelet (node allocatable drops, capacity stays).
    """
    path = health_file or default_health_file(plugin_dir, socket_name or default_socket_name(resource_name))
    try:
        now = set_device_health(path, device, health)
    except HealthFileError as exc:
        typer.echo(f"nufi-mock set-health: {exc}", err=True)
        raise typer.Exit(code=2) from None
    listed = ", ".join(f"{d}={h}" for d, h in sorted(now.items())) or "all devices Healthy"
    typer.echo(f"{path}: {listed}")
