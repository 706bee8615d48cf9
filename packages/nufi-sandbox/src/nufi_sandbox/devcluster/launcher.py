"""Starting the dev cluster as its own process, the way tests and the sandbox use it."""

from __future__ import annotations

import json
import secrets
import sys
from pathlib import Path
from typing import Any

import httpx

from nufi_sandbox.devcluster.crds import notebooks_crd
from nufi_sandbox.processes import ManagedProcess, free_port

STATE_FILE = "cluster.json"
# The API's bearer token, handed to the dev cluster in its environment (see wire/authn.py).
TOKEN_ENV = "NUFI_DEVCLUSTER_TOKEN"


class DevClusterProcess:
    """`python -m nufi_sandbox.devcluster` on a free loopback port, with its own state directory.

    Its API takes only requests carrying `token` (a random one unless given) as a bearer token:
    `headers` has it, and so has the kubeconfig it writes. It answers at `url` (plain http, for scripts
    and tests) and at `tls_url` (https with a certificate of its own, `certificate`): the address the
    kubeconfig names, since kubectl sends a token over TLS only. Its logs go to `log_dir` (default:
    STATE_DIR/logs)."""

    def __init__(
        self,
        state_dir: Path,
        *,
        nodes_file: Path | None = None,
        simulation: bool = True,
        port: int | None = None,
        tls_port: int | None = None,
        watch_history: int | None = None,
        runtime_map: Path | None = None,
        token: str | None = None,
        log_dir: Path | None = None,
    ) -> None:
        self.state_dir = state_dir
        self.token = token or secrets.token_urlsafe(32)
        self.port = port or free_port()
        self.tls_port = tls_port or free_port()
        self.kubeconfig = state_dir / "kubeconfig"
        argv: list[str | Path] = [
            sys.executable,
            "-m",
            "nufi_sandbox.devcluster",
            "--port",
            str(self.port),
            "--tls-port",
            str(self.tls_port),
            "--kubeconfig",
            self.kubeconfig,
            "--state-dir",
            state_dir,
        ]
        if nodes_file is not None:
            argv += ["--nodes", nodes_file]
        if runtime_map is not None:
            argv += ["--runtime-map", runtime_map]
        if watch_history is not None:
            argv += ["--watch-history", str(watch_history)]
        if not simulation:
            argv.append("--no-simulation")
        self.process = ManagedProcess(
            "devcluster", argv, log_dir=log_dir or state_dir / "logs", env={TOKEN_ENV: self.token}
        )

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def tls_url(self) -> str:
        return f"https://127.0.0.1:{self.tls_port}"

    @property
    def certificate(self) -> Path:
        """The https port's certificate, its own authority (clients verify against this file)."""
        return Path(self.state()["certificate"])

    @property
    def headers(self) -> dict[str, str]:
        """What a request to the API carries to be let in."""
        return {"Authorization": f"Bearer {self.token}"}

    def state(self) -> dict[str, Any]:
        """What the running cluster published: nodes and their kubelet socket paths."""
        loaded: dict[str, Any] = json.loads((self.state_dir / STATE_FILE).read_text())
        return loaded

    def device_plugin_dir(self, node: str) -> Path:
        return Path(self.state()["nodes"][node]["device_plugin_dir"])

    def pod_resources_socket(self, node: str) -> Path:
        return Path(self.state()["nodes"][node]["pod_resources_socket"])

    def restart_kubelet(self, node: str) -> None:
        """Play a kubelet restart on one node: device-plugin sockets are wiped and kubelet.sock re-created."""
        url = f"{self.url}/devcluster/nodes/{node}/restart-kubelet"
        response = httpx.post(url, headers=self.headers, timeout=10.0)
        response.raise_for_status()

    def install_crd(self, crd: dict[str, Any]) -> None:
        """Create a CustomResourceDefinition (one that exists already is left as it is)."""
        response = httpx.post(
            f"{self.url}/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
            json=crd,
            headers=self.headers,
            timeout=10.0,
        )
        if response.status_code != 409:
            response.raise_for_status()

    def install_notebooks_crd(self) -> None:
        """Install notebooks.kubeflow.org: from then on the dev cluster runs the notebook controller."""
        self.install_crd(notebooks_crd())

    def _ready(self) -> bool:
        return (
            httpx.get(f"{self.url}/readyz", timeout=1.0).status_code == 200
            and (self.state_dir / STATE_FILE).exists()
        )

    def start(self, timeout: float = 30.0) -> DevClusterProcess:
        self.state_dir.mkdir(parents=True, exist_ok=True)
        self.process.start()
        self.process.wait_ready(self._ready, timeout=timeout, what="dev cluster answering /readyz")
        return self

    def stop(self) -> None:
        self.process.stop()
