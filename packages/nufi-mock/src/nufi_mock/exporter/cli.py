"""`nufi-mock exporter`."""

from __future__ import annotations

import os
import socket
from dataclasses import dataclass, replace
from typing import Annotated

import typer

from nufi_mock.logs import LogFormat, configure_logging

from .config import (
    CONTROL_TOKEN_ENV,
    ConfigError,
    ExporterConfig,
    parse_label_names,
    parse_nodes,
    parse_pod_resources,
)
from .hardware import GIB, ThermalModel
from .profiles import PROFILES, Naming, ProfileName

_PROFILE_HELP = "Metric names, labels and units to emit: " + "; ".join(
    f"{name}: {cls.description} (port {cls.default_port})" for name, cls in PROFILES.items()
)
_SOCKET_HELP = (
    "PodResources socket for pod attribution: NODE=PATH (repeat per node), or one PATH containing {node}, "
    "or with a single node a plain PATH. Default with one node: /var/lib/kubelet/pod-resources/kubelet.sock."
)

# The command's options, one type each, so its signature reads as the list of its flags.
_Profile = Annotated[ProfileName, typer.Option(help=_PROFILE_HELP)]
_Nodes = Annotated[
    str | None, typer.Option(help="Comma-separated nodes to simulate. Default: $NODE_NAME or the host name.")
]
_DevicesPerNode = Annotated[int, typer.Option(min=1, max=256, help="Devices on each node.")]
_NumaNodes = Annotated[int, typer.Option(min=1, help="NUMA nodes per node (as in the device plugin).")]
_Host = Annotated[str, typer.Option(help="Address to listen on.")]
_Port = Annotated[int | None, typer.Option(help="Port to listen on. Default: the profile's port.")]
_Interval = Annotated[
    float, typer.Option(min=0.05, help="Seconds per simulation step and PodResources query.")
]
_Seed = Annotated[int, typer.Option(help="Seed of the simulated behaviour; same seed, same values.")]
_Sockets = Annotated[list[str] | None, typer.Option(help=_SOCKET_HELP)]
_NoPodResources = Annotated[bool, typer.Option("--no-pod-resources", help="Attribute no devices to pods.")]
_ResourceNames = Annotated[
    list[str] | None,
    typer.Option(
        help="Extended resource, or DRA driver, whose devices are attributed (trailing * = prefix). "
        "Default: the profile's (hyperaccel.ai/lpu and lpu.hyperaccel.ai, nvidia.com/gpu, furiosa.ai*, "
        "rebellions.ai*)."
    ),
]
_LabelNames = Annotated[
    list[str] | None,
    typer.Option(help="Rename an emitted label, FROM=TO (e.g. node=kubernetes_node); repeatable."),
]
_Naming = Annotated[
    Naming,
    typer.Option(
        help="Vendor name generation: legacy = dcgm --use-old-namespace labels, furiosa "
        "kubernetes_* labels, rbln RBLN_DEVICE_STATUS:* metrics; both = rbln old and new."
    ),
]
_Quirks = Annotated[
    bool,
    typer.Option(
        "--quirks",
        help="Also emit what real exporters of the vendor do beyond their documentation (see the "
        "profile's description): exporter-pod labels, partition duplicates, legacy units.",
    ),
]
_MemoryGib = Annotated[
    float | None, typer.Option(min=0.001, help="Device memory size. Default: the profile's model.")
]
_Ambient = Annotated[float, typer.Option(help="Idle temperature.")]
_FullLoad = Annotated[float, typer.Option(help="Temperature approached at 100 % load.")]
_TimeConstant = Annotated[
    float, typer.Option(min=0.1, help="Seconds for temperature to close ~63 % of a gap.")
]
_LogFormat = Annotated[LogFormat, typer.Option(help="console or json (one object per line).")]


def _default_node() -> str:
    return os.environ.get("NODE_NAME") or socket.gethostname().lower()


@dataclass(frozen=True)
class ExporterOptions:
    """The command line as given, before it is checked and turned into an `ExporterConfig`."""

    profile: ProfileName
    nodes: str | None
    devices_per_node: int
    numa_nodes: int
    host: str
    port: int | None
    interval: float
    seed: int
    pod_resources_socket: list[str] | None
    no_pod_resources: bool
    resource_name: list[str] | None
    label_name: list[str] | None
    naming: Naming
    quirks: bool
    memory_gib: float | None
    ambient_celsius: float
    full_load_celsius: float
    thermal_time_constant: float

    def config(self) -> ExporterConfig:
        """The exporter's configuration; `ConfigError` or `ValueError` names what is wrong."""
        node_names = parse_nodes(self.nodes if self.nodes is not None else _default_node())
        return ExporterConfig(
            profile=self.profile.value,
            nodes=node_names,
            devices_per_node=self.devices_per_node,
            numa_nodes=self.numa_nodes,
            host=self.host,
            port=self.port,
            interval=self.interval,
            seed=self.seed,
            pod_resources={}
            if self.no_pod_resources
            else parse_pod_resources(self.pod_resources_socket or [], node_names),
            resource_patterns=tuple(self.resource_name or ()),
            label_names=parse_label_names(self.label_name or []),
            naming=self.naming,
            quirks=self.quirks,
            memory_bytes=None if self.memory_gib is None else round(self.memory_gib * GIB),
            thermal=ThermalModel(self.ambient_celsius, self.full_load_celsius, self.thermal_time_constant),
        )


def exporter(
    profile: _Profile = ProfileName.LPU,
    nodes: _Nodes = None,
    devices_per_node: _DevicesPerNode = 4,
    numa_nodes: _NumaNodes = 2,
    host: _Host = "0.0.0.0",
    port: _Port = None,
    interval: _Interval = 1.0,
    seed: _Seed = 0,
    pod_resources_socket: _Sockets = None,
    no_pod_resources: _NoPodResources = False,
    resource_name: _ResourceNames = None,
    label_name: _LabelNames = None,
    naming: _Naming = Naming.CURRENT,
    quirks: _Quirks = False,
    memory_gib: _MemoryGib = None,
    ambient_celsius: _Ambient = 35.0,
    full_load_celsius: _FullLoad = 80.0,
    thermal_time_constant: _TimeConstant = 30.0,
    log_format: _LogFormat = "console",
) -> None:
    """Serve Prometheus metrics of simulated accelerators, with pod attribution and a control endpoint.

    Devices held by a pod (per the kubelet's PodResources API) carry pod labels. A device works only
    while a workload reports its load (GET/POST/DELETE /control/load, as `nufi-mock inference` does);
    any other device, held or not, stays near 0 %. Temperature follows load with inertia (ambient to
    full-load temperature). Endpoints: GET /metrics, GET /healthz,
    /control/load, and GET/POST/DELETE /control/override to force values, for example

    \b
      curl -X POST localhost:9850/control/override -d '{"node": "n1", "device": null,
           "metric": "temperature", "value": 95, "duration_seconds": 60}'
      curl -X DELETE localhost:9850/control/override

    With $NUFI_MOCK_CONTROL_TOKEN set, /control/override and /control/absent answer 401 unless a
    request carries it (-H "Authorization: Bearer $NUFI_MOCK_CONTROL_TOKEN").
    """
    configure_logging(log_format)
    options = ExporterOptions(
        profile=profile,
        nodes=nodes,
        devices_per_node=devices_per_node,
        numa_nodes=numa_nodes,
        host=host,
        port=port,
        interval=interval,
        seed=seed,
        pod_resources_socket=pod_resources_socket,
        no_pod_resources=no_pod_resources,
        resource_name=resource_name,
        label_name=label_name,
        naming=naming,
        quirks=quirks,
        memory_gib=memory_gib,
        ambient_celsius=ambient_celsius,
        full_load_celsius=full_load_celsius,
        thermal_time_constant=thermal_time_constant,
    )
    _serve(options)


def _serve(options: ExporterOptions) -> None:
    # Imported here so that --help stays quick.
    from .app import build_engine, serve

    try:
        # Taken out of the environment: nothing this process might start inherits it.
        token = os.environ.pop(CONTROL_TOKEN_ENV, "") or None
        engine = build_engine(replace(options.config(), control_token=token))
    except (ConfigError, ValueError) as exc:
        typer.echo(f"nufi-mock exporter: {exc}", err=True)
        raise typer.Exit(code=2) from None
    serve(engine)
