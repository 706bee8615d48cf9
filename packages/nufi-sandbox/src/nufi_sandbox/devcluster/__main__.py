"""`python -m nufi_sandbox.devcluster`: a Kubernetes API test double on 127.0.0.1."""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import tempfile
from pathlib import Path

import uvicorn

from nufi_sandbox.devcluster import kubeconfig
from nufi_sandbox.devcluster.launcher import STATE_FILE
from nufi_sandbox.devcluster.resources import ResourceRegistry
from nufi_sandbox.devcluster.runtime.map import RuntimeMap, RuntimeMapError, load_runtime_map
from nufi_sandbox.devcluster.server import create_app
from nufi_sandbox.devcluster.sim import Simulation, load_node_specs
from nufi_sandbox.devcluster.storage.store import Store
from nufi_sandbox.loopback import configure_logging, loopback_config, loopback_parser

log = logging.getLogger("nufi_sandbox.devcluster")


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = loopback_parser(
        "python -m nufi_sandbox.devcluster",
        "Serve a Kubernetes API test double (REST wire format, watch, scheduler and kubelet "
        "simulation, kubelet device-plugin sockets) on 127.0.0.1.",
        default_port=6443,
    )
    parser.add_argument("--kubeconfig", type=Path, required=True, help="where to write the kubeconfig")
    parser.add_argument("--nodes", type=Path, help="YAML file describing the nodes (default: 3 plain nodes)")
    parser.add_argument(
        "--state-dir", type=Path, help="kubelet sockets and cluster.json (default: a temp dir)"
    )
    parser.add_argument(
        "--watch-history",
        type=int,
        default=5000,
        help="events kept for resuming watches; older resourceVersions get 410 Gone (default 5000)",
    )
    parser.add_argument(
        "--runtime-map",
        type=Path,
        help="JSON file mapping container images to local programs; their pods run as processes",
    )
    parser.add_argument(
        "--no-simulation",
        action="store_true",
        help="serve the API only: no controllers, scheduler or kubelets",
    )
    return parser.parse_args(argv)


async def serve(args: argparse.Namespace) -> None:
    state_dir: Path = args.state_dir
    url = f"http://127.0.0.1:{args.port}"
    store = Store(ResourceRegistry.with_builtins(), history_size=args.watch_history)
    simulation: Simulation | None = None
    if not args.no_simulation:
        simulation = Simulation(
            store,
            state_dir=state_dir,
            nodes=load_node_specs(args.nodes),
            runtime_map=_runtime_map(args),
        )

    async def started() -> None:
        if simulation is not None:
            await simulation.start()
        kubeconfig.write(args.kubeconfig, url)
        nodes = simulation.node_sockets() if simulation is not None else {}
        state = {"url": url, "kubeconfig": str(args.kubeconfig), "nodes": nodes}
        (state_dir / STATE_FILE).write_text(json.dumps(state, indent=2))
        log.info("dev cluster ready at %s (kubeconfig %s)", url, args.kubeconfig)

    async def stopping() -> None:
        if simulation is not None:
            await simulation.stop()

    app = create_app(
        store,
        server_address=f"127.0.0.1:{args.port}",
        on_startup=[started],
        on_shutdown=[stopping],
        kubelet_restart=simulation.restart_kubelet if simulation is not None else None,
        local_ports=simulation.local_port if simulation is not None else None,
        log_path=simulation.runtime.log_path if simulation is not None and simulation.runtime else None,
    )
    await uvicorn.Server(loopback_config(app, args.port, lifespan="on")).serve()


def _runtime_map(args: argparse.Namespace) -> RuntimeMap | None:
    loaded: RuntimeMap | None = getattr(args, "loaded_runtime_map", None)
    if loaded is None and getattr(args, "runtime_map", None) is not None:
        loaded = load_runtime_map(args.runtime_map)
    return loaded


def main(argv: list[str] | None = None) -> None:
    configure_logging()
    args = parse_args(argv)
    args.loaded_runtime_map = None
    if args.runtime_map is not None:
        try:
            args.loaded_runtime_map = load_runtime_map(args.runtime_map)
        except RuntimeMapError as exc:
            raise SystemExit(f"python -m nufi_sandbox.devcluster: {exc}") from None
    args.state_dir = args.state_dir or Path(tempfile.mkdtemp(prefix="nufi-devcluster-", dir="/tmp"))
    args.state_dir.mkdir(parents=True, exist_ok=True)
    asyncio.run(serve(args))


if __name__ == "__main__":
    main()
