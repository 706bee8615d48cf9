"""The kubeconfig the dev cluster hands to kubectl and client libraries: its https address, the
certificate that address serves (tls.py) and the API's bearer token (wire/authn.py)."""

from __future__ import annotations

import base64
import os
from pathlib import Path

import yaml

CONTEXT = "nufi-dev"


def render(server_url: str, *, token: str, ca_pem: bytes | None = None, namespace: str = "default") -> str:
    cluster: dict[str, str] = {"server": server_url}
    if ca_pem is not None:
        cluster["certificate-authority-data"] = base64.b64encode(ca_pem).decode()
    config = {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [{"name": CONTEXT, "cluster": cluster}],
        "users": [{"name": CONTEXT, "user": {"token": token}}],
        "contexts": [
            {"name": CONTEXT, "context": {"cluster": CONTEXT, "user": CONTEXT, "namespace": namespace}}
        ],
        "current-context": CONTEXT,
        "preferences": {},
    }
    return yaml.safe_dump(config, sort_keys=False)


def write(path: Path, server_url: str, *, token: str, ca_pem: bytes | None = None) -> Path:
    """Write the kubeconfig readable by its owner alone: it holds the API's bearer token."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.unlink(missing_ok=True)
    # Created 0600, not chmod-ed after: the token is never readable by others, not even for a moment.
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as out:
        out.write(render(server_url, token=token, ca_pem=ca_pem))
    tmp.replace(path)
    return path
