"""Where NuFi's Kubernetes credentials come from, and loading them into a private Configuration.

The process-wide default Configuration of kubernetes-asyncio is never touched, so several
gateways (tests, several clusters) can live side by side.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from kubernetes_asyncio import config as kube_config
from kubernetes_asyncio.client import Configuration

from nufi.config import Settings

# Set by the kubelet in every pod; its presence is how a process knows it runs in a cluster.
_SERVICE_HOST_ENV = "KUBERNETES_SERVICE_HOST"


@dataclass(frozen=True)
class KubeSource:
    """A kubeconfig file (optionally a context in it), or the pod's service account."""

    kind: Literal["kubeconfig", "in-cluster"]
    path: Path | None = None
    context: str | None = None

    @classmethod
    def from_settings(cls, settings: Settings, environ: Mapping[str, str] | None = None) -> KubeSource | None:
        env = os.environ if environ is None else environ
        if settings.kubeconfig is not None:
            return cls("kubeconfig", path=settings.kubeconfig, context=settings.kube_context)
        if env.get(_SERVICE_HOST_ENV):
            return cls("in-cluster")
        return None

    def describe(self) -> str:
        if self.kind == "in-cluster":
            return "the pod's service account (in-cluster config)"
        suffix = f" (context {self.context!r})" if self.context else ""
        return f"kubeconfig {str(self.path)!r}{suffix}"


async def load_configuration(source: KubeSource) -> Any:
    """A fresh kubernetes-asyncio Configuration filled from `source`.

    Raises whatever the loader raises (ConfigException, OSError, YAML errors); callers turn that
    into a readable status.
    """
    configuration = Configuration()
    if source.kind == "in-cluster":
        kube_config.load_incluster_config(client_configuration=configuration)
    else:
        await kube_config.load_kube_config(
            config_file=str(source.path),
            context=source.context,
            client_configuration=configuration,
            # Never write refreshed tokens back into an operator's kubeconfig.
            persist_config=False,
        )
    return configuration
