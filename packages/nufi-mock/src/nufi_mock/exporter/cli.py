"""`nufi-mock exporter`."""

from __future__ import annotations

import os
import socket
from typing import Annotated

import typer

from nufi_mock.logs import LogFormat, configure_logging

from .config import ConfigError, ExporterConfig, parse_label_names, parse_nodes, parse_pod_resources
from .hardware import GIB, ThermalModel
from .profiles import PROFILES, Naming, ProfileName

_PROFILE_HELP = "Metric names, labels and units to emit: " + "; ".join(
    f"{name}: {cls.description} (port {cls.default_port})" for name, cls in PROFILES.items()
)
_SOCKET_HELP = (
    "PodResources socket for pod attribution: NODE=PATH (repeat per node), or one PATH containing {node}, "
    "or with a single node a plain PATH. Default with one node: /var/lib/kubelet/pod-resources/kubelet.sock."
)


def _default_node() -> str:
    return os.environ.get("NODE_NAME") or socket.gethostname().lower()


def exporter(
    profile: Annotated[ProfileName, typer.Option(help=_PROFILE_HELP)] = ProfileName.LPU,
    nodes: Annotated[
        str | None,
        typer.Option(help="Comma-separated nodes to simulate. Default: $NODE_NAME or the host name."),
    ] = None,
    devices_per_node: Annotated[int, typer.Option(min=1, max=256, help="Devices on each node.")] = 4,
    numa_nodes: Annotated[
        int, typer.Option(min=1, help="NUMA nodes per node (as in the device plugin).")
    ] = 2,
    host: Annotated[str, typer.Option(help="Address to listen on.")] = "0.0.0.0",
    port: Annotated[int | None, typer.Option(help="Port to listen on. Default: the profile's port.")] = None,
    interval: Annotated[
        float, typer.Option(min=0.05, help="Seconds per simulation step and PodResources query.")
    ] = 1.0,
    seed: Annotated[int, typer.Option(help="Seed of the simulated behaviour; same seed, same values.")] = 0,
    pod_resources_socket: Annotated[list[str] | None, typer.Option(help=_SOCKET_HELP)] = None,
    no_pod_resources: Annotated[
        bool, typer.Option("--no-pod-resources", help="Attribute no devices to pods.")
    ] = False,
    resource_name: Annotated[
        list[str] | None,
        typer.Option(
            help="Extended resource whose devices are attributed (trailing * = prefix). "
            "Default: the profile's (hyperaccel.ai/lpu, nvidia.com/gpu, furiosa.ai*, rebellions.ai*)."
        ),
    ] = None,
    label_name: Annotated[
        list[str] | None,
        typer.Option(help="Rename an emitted label, FROM=TO (e.g. node=kubernetes_node); repeatable."),
    ] = None,
    naming: Annotated[
        Naming,
        typer.Option(
            help="Vendor name generation: legacy = dcgm --use-old-namespace labels, furiosa "
            "kubernetes_* labels, rbln RBLN_DEVICE_STATUS:* metrics; both = rbln old and new."
        ),
    ] = Naming.CURRENT,
    quirks: Annotated[
        bool,
        typer.Option(
            "--quirks",
            help="Also emit what real exporters of the vendor do beyond their documentation (see the "
            "profile's description): exporter-pod labels, partition duplicates, legacy units.",
        ),
    ] = False,
    memory_gib: Annotated[
        float | None, typer.Option(min=0.001, help="Device memory size. Default: the profile's model.")
    ] = None,
    ambient_celsius: Annotated[float, typer.Option(help="Idle temperature.")] = 35.0,
    full_load_celsius: Annotated[float, typer.Option(help="Temperature approached at 100 % load.")] = 80.0,
    thermal_time_constant: Annotated[
        float, typer.Option(min=0.1, help="Seconds for temperature to close ~63 % of a gap.")
    ] = 30.0,
    log_format: Annotated[LogFormat, typer.Option(help="console or json (one object per line).")] = "console",
) -> None:
    """Serve Prometheus metrics of simulated accelerators, with pod attribution and a control endpoint.

    Devices held by a pod (per the kubelet's PodResources API) are busy and carry pod labels; idle ones
    stay near 0 %. Temperature follows load with inertia (ambient to full-load temperature). A workload
    that reports its load (GET/POST/DELETE /control/load, as `nufi-mock inference` does) sets the
    utilisation of its devices while its reports last. Endpoints: GET /metrics, GET /healthz,
    /control/load, and GET/POST/DELETE /control/override to force values, for example

    \b
      curl -X POST localhost:9850/control/override -d '{"node": "n1", "device": null,
           "metric": "temperature", "value": 95, "duration_seconds": 60}'
      curl -X DELETE localhost:9850/control/override
    """
    configure_logging(log_format)
    # Imported here so that --help stays quick.
    from .app import build_engine, serve

    try:
        node_names = parse_nodes(nodes if nodes is not None else _default_node())
        config = ExporterConfig(
            profile=profile.value,
            nodes=node_names,
            devices_per_node=devices_per_node,
            numa_nodes=numa_nodes,
            host=host,
            port=port,
            interval=interval,
            seed=seed,
            pod_resources={}
            if no_pod_resources
            else parse_pod_resources(pod_resources_socket or [], node_names),
            resource_patterns=tuple(resource_name or ()),
            label_names=parse_label_names(label_name or []),
            naming=naming,
            quirks=quirks,
            memory_bytes=None if memory_gib is None else round(memory_gib * GIB),
            thermal=ThermalModel(ambient_celsius, full_load_celsius, thermal_time_constant),
        )
        engine = build_engine(config)
    except (ConfigError, ValueError) as exc:
        typer.echo(f"nufi-mock exporter: {exc}", err=True)
        raise typer.Exit(code=2) from None
    serve(engine)
