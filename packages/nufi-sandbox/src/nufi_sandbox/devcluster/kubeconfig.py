"""The kubeconfig the dev cluster hands to kubectl and client libraries."""

from __future__ import annotations

from pathlib import Path

import yaml

CONTEXT = "nufi-dev"


def render(server_url: str, *, token: str = "nufi-dev-token", namespace: str = "default") -> str:
    config = {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [{"name": CONTEXT, "cluster": {"server": server_url}}],
        "users": [{"name": CONTEXT, "user": {"token": token}}],
        "contexts": [
            {"name": CONTEXT, "context": {"cluster": CONTEXT, "user": CONTEXT, "namespace": namespace}}
        ],
        "current-context": CONTEXT,
        "preferences": {},
    }
    return yaml.safe_dump(config, sort_keys=False)


def write(path: Path, server_url: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(render(server_url))
    tmp.chmod(0o600)
    tmp.replace(path)
    return path
