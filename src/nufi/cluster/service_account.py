"""Which ServiceAccount NuFi runs as, so a project namespace can grant it the workload role."""

from __future__ import annotations

import base64
import binascii
import json
from dataclasses import dataclass
from pathlib import Path

from nufi.cluster.connection import KubeSource

# Where the kubelet mounts a pod's service account token.
TOKEN_FILE = Path("/var/run/secrets/kubernetes.io/serviceaccount/token")
_SUBJECT_PREFIX = "system:serviceaccount:"


@dataclass(frozen=True)
class ServiceAccountRef:
    namespace: str
    name: str

    @classmethod
    def parse(cls, text: str) -> ServiceAccountRef:
        """`<namespace>/<name>`, as NUFI_PROJECT_SERVICE_ACCOUNT gives it."""
        namespace, _, name = text.partition("/")
        if not namespace or not name or "/" in name:
            raise ValueError(f"expected <namespace>/<name>, got {text!r}")
        return cls(namespace, name)


def own_service_account(
    source: KubeSource | None, configured: str | None, token_file: Path = TOKEN_FILE
) -> ServiceAccountRef | None:
    """The ServiceAccount NuFi acts as: the one configured, else, in a pod, the one its token names
    (the token's `sub` is `system:serviceaccount:<namespace>:<name>`); None with a kubeconfig, whose
    credentials are whoever the operator is."""
    if configured:
        return ServiceAccountRef.parse(configured)
    if source is None or source.kind != "in-cluster":
        return None
    try:
        token = token_file.read_text().strip()
    except OSError:
        return None
    return service_account_of(token)


def service_account_of(token: str) -> ServiceAccountRef | None:
    """The ServiceAccount a Kubernetes service account token names, or None for anything else.

    Only NuFi's own mounted token is read this way: the API server verifies it, NuFi only reads the
    name in it."""
    parts = token.split(".")
    if len(parts) != 3:
        return None
    payload = parts[1] + "=" * (-len(parts[1]) % 4)
    try:
        claims = json.loads(base64.urlsafe_b64decode(payload))
    except (binascii.Error, ValueError):
        return None
    subject = claims.get("sub") if isinstance(claims, dict) else None
    if not isinstance(subject, str) or not subject.startswith(_SUBJECT_PREFIX):
        return None
    namespace, _, name = subject.removeprefix(_SUBJECT_PREFIX).partition(":")
    return ServiceAccountRef(namespace, name) if namespace and name else None
