"""`python -m nufi_sandbox.devcluster`: a Kubernetes API test double on 127.0.0.1."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import logging
import os
import secrets
import tempfile
from collections.abc import Iterator
from pathlib import Path

import uvicorn

from nufi_sandbox.devcluster import kubeconfig
from nufi_sandbox.devcluster.launcher import STATE_FILE, TOKEN_ENV
from nufi_sandbox.devcluster.resources import ResourceRegistry
from nufi_sandbox.devcluster.runtime.map import RuntimeMap, RuntimeMapError, load_runtime_map
from nufi_sandbox.devcluster.server import create_app
from nufi_sandbox.devcluster.sim import Simulation, load_node_specs
from nufi_sandbox.devcluster.storage.store import Store
from nufi_sandbox.devcluster.tls import ServingCertificate, serving_certificate
from nufi_sandbox.loopback import configure_logging, loopback_config, loopback_parser
from nufi_sandbox.processes import free_port

log = logging.getLogger("nufi_sandbox.devcluster")


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = loopback_parser(
        "python -m nufi_sandbox.devcluster",
        "Serve a Kubernetes API test double (REST wire format, watch, scheduler and kubelet "
        "simulation, kubelet device-plugin sockets) on 127.0.0.1.",
        default_port=6443,
    )
    parser.add_argument(
        "--kubeconfig",
        type=Path,
        required=True,
        help=f"where to write the kubeconfig, with the API's bearer token (${TOKEN_ENV}, else a random one)",
    )
    parser.add_argument(
        "--tls-port",
        type=int,
        help="https port on 127.0.0.1, the one the kubeconfig names (default: a free one); --port is "
        "plain http, for scripts: both take only the bearer token",
    )
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
    token: str = args.token
    url = f"http://127.0.0.1:{args.port}"
    tls_port: int = args.tls_port or free_port()
    tls_url = f"https://127.0.0.1:{tls_port}"
    certificate = serving_certificate(state_dir / "tls")
    store = Store(ResourceRegistry.with_builtins(), history_size=args.watch_history)
    simulation = None if args.no_simulation else _simulation(args, store)

    async def started() -> None:
        if simulation is not None:
            await simulation.start()
        # The kubeconfig names the https port: written only once that port answers.
        while not tls_server.started:  # uvicorn offers no event for it
            if tls_task.done():
                raise RuntimeError(f"the https port {tls_port} did not start: {tls_task.exception()}")
            await asyncio.sleep(0.01)
        kubeconfig.write(args.kubeconfig, tls_url, token=token, ca_pem=certificate.pem())
        nodes = simulation.node_sockets() if simulation is not None else {}
        _write_state(
            state_dir,
            url=url,
            tls_url=tls_url,
            certificate=certificate,
            kubeconfig=args.kubeconfig,
            nodes=nodes,
        )

    async def stopping() -> None:
        tls_server.should_exit = True  # its open connections end meanwhile, not after
        if simulation is not None:
            await simulation.stop()

    app = create_app(
        store,
        server_address=f"127.0.0.1:{args.port}",
        token=token,
        on_startup=[started],
        on_shutdown=[stopping],
        kubelet_restart=simulation.restart_kubelet if simulation is not None else None,
        local_ports=simulation.local_port if simulation is not None else None,
        log_path=simulation.runtime.log_path if simulation is not None and simulation.runtime else None,
    )
    tls_server = _Companion(
        loopback_config(
            app,
            tls_port,
            lifespan="off",
            ssl_certfile=str(certificate.cert_file),
            ssl_keyfile=str(certificate.key_file),
        )
    )
    tls_task = asyncio.create_task(tls_server.serve(), name="https port")
    try:
        await uvicorn.Server(loopback_config(app, args.port, lifespan="on")).serve()
    finally:
        tls_server.should_exit = True
        await tls_task


def _simulation(args: argparse.Namespace, store: Store) -> Simulation:
    """Controllers, the scheduler and the kubelets over the store, on the nodes and runtime map asked."""
    return Simulation(
        store, state_dir=args.state_dir, nodes=load_node_specs(args.nodes), runtime_map=_runtime_map(args)
    )


def _write_state(
    state_dir: Path,
    *,
    url: str,
    tls_url: str,
    certificate: ServingCertificate,
    kubeconfig: Path,
    nodes: object,
) -> None:
    """Where the cluster serves, for the launcher: written last, once both ports answer."""
    state = {
        "url": url,
        "tls_url": tls_url,
        "certificate": str(certificate.cert_file),
        "kubeconfig": str(kubeconfig),
        "nodes": nodes,
    }
    (state_dir / STATE_FILE).write_text(json.dumps(state, indent=2))
    log.info("dev cluster ready at %s and %s (kubeconfig %s)", tls_url, url, kubeconfig)


class _Companion(uvicorn.Server):
    """The https port, served beside the http one from the same app: the http server runs the app's
    lifespan and takes the signals, and tells this one to stop when it does."""

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield


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
    # From the environment, not the command line (which every user may read in /proc), and taken out
    # of it, so no program the dev cluster starts inherits it.
    args.token = os.environ.pop(TOKEN_ENV, "") or secrets.token_urlsafe(32)
    args.state_dir = args.state_dir or Path(tempfile.mkdtemp(prefix="nufi-devcluster-", dir="/tmp"))
    args.state_dir.mkdir(parents=True, exist_ok=True)
    asyncio.run(serve(args))


if __name__ == "__main__":
    main()
