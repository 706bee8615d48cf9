"""The programs the sandbox runs besides the dev cluster, identity provider and Prometheus.

Each is started as a user would start it: its own command line and environment, its own log file.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path

from nufi_mock.dra import MODELS
from nufi_mock.dra.kube import TOKEN_ENV
from nufi_mock.exporter.config import CONTROL_TOKEN_ENV
from nufi_sandbox.processes import ManagedProcess
from nufi_sandbox.sandbox.images import INFERENCE, INFERENCE_ARGS, JUPYTER, VSCODE
from nufi_sandbox.sandbox.topology import SandboxNode

NUFI_AUDIENCE = "nufi"
DASHBOARD_CLIENT = "nufi-dashboard"
DASHBOARD_SECRET = "nufi-dashboard-dev-secret"  # the dev realm's; local use only
REALM_FILE = Path(__file__).with_name("realm.yaml")


def _mock_command() -> list[str]:
    return [sys.executable, "-m", "nufi_mock"]


def _nufi_command() -> list[str]:
    """`nufi`, preferably the script installed beside this interpreter (a venv's bin/)."""
    beside = Path(sys.executable).with_name("nufi")
    if beside.is_file():
        return [str(beside)]
    on_path = shutil.which("nufi")
    if on_path is not None:
        return [on_path]
    return [sys.executable, "-c", "from nufi.cli import app; app()"]


def device_plugin(node: SandboxNode, device_plugin_dir: Path, log_dir: Path) -> ManagedProcess:
    """The mock LPU device plugin of one node, registering through that node's kubelet.sock."""
    argv = [
        *_mock_command(),
        "device-plugin",
        "--resource-name",
        node.resource_key,
        "--devices",
        str(node.devices),
        "--dir",
        str(device_plugin_dir),
    ]
    return ManagedProcess(f"device-plugin-{node.name}", argv, log_dir=log_dir)


def dra_driver(
    node: SandboxNode, paths: dict[str, str], kube_api_url: str, token: str, log_dir: Path
) -> ManagedProcess:
    """The mock LPU DRA driver of one node: its slices through the API, its claims through the node's
    kubelet plugin directories (`paths`, from the dev cluster's state)."""
    assert node.dra_model is not None
    argv = [
        *_mock_command(),
        "dra-driver",
        "--node",
        node.name,
        "--devices",
        str(node.devices),
        "--model",
        node.dra_model,
        "--registry-dir",
        paths["plugins_registry_dir"],
        "--plugins-dir",
        paths["plugins_dir"],
        "--cdi-dir",
        paths["cdi_dir"],
        "--kube-api-url",
        kube_api_url,
    ]
    return ManagedProcess(f"dra-driver-{node.name}", argv, log_dir=log_dir, env={TOKEN_ENV: token})


def exporter(
    node: SandboxNode, port: int, pod_resources_socket: Path, log_dir: Path, *, control_token: str
) -> ManagedProcess:
    """The vendor-shaped exporter of one node, attributing devices to pods via its PodResources socket;
    its override and absence controls take requests carrying `control_token` only."""
    argv = [
        *_mock_command(),
        "exporter",
        "--profile",
        node.profile,
        "--nodes",
        node.name,
        "--devices-per-node",
        str(node.devices),
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--pod-resources-socket",
        f"{node.name}={pod_resources_socket}",
    ]
    if node.dra_model is not None:
        # The memory the node's slices publish, so both say the same of the device.
        argv += ["--memory-gib", str(MODELS[node.dra_model].memory_gib)]
    env = {CONTROL_TOKEN_ENV: control_token}
    return ManagedProcess(f"exporter-{node.name}", argv, log_dir=log_dir, env=env)


def nufi_server(
    *,
    port: int,
    kubeconfig: Path,
    prometheus_url: str,
    alertmanager_url: str,
    alert_rules_dir: Path,
    database: Path,
    oidc_issuer: str,
    scrape_interval_seconds: float,
    log_dir: Path,
    dashboard_session_secret: str,
) -> ManagedProcess:
    """The NuFi server, configured only through NUFI_* variables, as in production."""
    # Settings from the caller's environment (or a settings file it names) would bend the wiring:
    # blank every inherited NUFI_* variable, which NuFi reads as unset.
    env = {name: "" for name in os.environ if name.startswith("NUFI_")}
    env |= {
        "NUFI_KUBECONFIG": str(kubeconfig),
        "NUFI_PROMETHEUS_URL": prometheus_url,
        # NuFi writes one rules file per device type here and asks Prometheus to reload; the sandbox
        # Prometheus loads every *.yml in it and sends what fires to this Alertmanager.
        "NUFI_ALERTS_RULES_DIR": str(alert_rules_dir),
        "NUFI_ALERTMANAGER_URL": alertmanager_url,
        "NUFI_DATABASE_URL": f"sqlite+aiosqlite:///{database}",
        "NUFI_OIDC_ISSUER": oidc_issuer,
        "NUFI_OIDC_AUDIENCE": NUFI_AUDIENCE,
        "NUFI_OIDC_CLIENT_ID": DASHBOARD_CLIENT,
        "NUFI_OIDC_CLIENT_SECRET": DASHBOARD_SECRET,
        "NUFI_DASHBOARD_SESSION_SECRET": dashboard_session_secret,
        "NUFI_LOG_FORMAT": "console",
        # The images the sandbox runs (images.py), as the defaults of the dashboard's forms.
        "NUFI_DEPLOYMENT_DEFAULT_IMAGE": INFERENCE,
        "NUFI_DEPLOYMENT_DEFAULT_ARGS": json.dumps(list(INFERENCE_ARGS)),
        "NUFI_LAB_JUPYTER_IMAGE": JUPYTER,
        "NUFI_LAB_VSCODE_IMAGE": VSCODE,
        # Every lab on a host of its own, `<name>--<project>.localhost:<port>`: browsers resolve any
        # `*.localhost` name to loopback, and each such name is a site of its own (`localhost` is a
        # public suffix by the default rule), apart from the dashboard at 127.0.0.1.
        "NUFI_LAB_BASE_DOMAIN": f"localhost:{port}",
        # Monitoring judges staleness in scrape intervals: tell it the sandbox Prometheus' interval.
        "NUFI_MONITORING_SCRAPE_INTERVAL_SECONDS": str(scrape_interval_seconds),
    }
    argv = [*_nufi_command(), "serve", "--host", "127.0.0.1", "--port", str(port)]
    return ManagedProcess("nufi", argv, log_dir=log_dir, env=env)
