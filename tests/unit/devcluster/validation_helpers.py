"""Pods built for the validation tests, and the causes as comparable tuples."""

from __future__ import annotations

from typing import Any

from nufi_sandbox.devcluster.validation.objects import Cause

LPU = "hyperaccel.ai/lpu"
SUBDOMAIN_MESSAGE = (
    'Invalid value: "Foo_Bar": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric '
    "characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', "
    "regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
)


def pod(**spec: Any) -> dict[str, Any]:
    containers = spec.pop("containers", [{"name": "main", "image": "nginx"}])
    return {
        "metadata": {"name": "web", "namespace": "default", "labels": {"app": "web"}},
        "spec": {"containers": containers, **spec},
    }


def with_resources(requests: dict[str, Any] | None = None, limits: dict[str, Any] | None = None) -> Any:
    resources = {k: v for k, v in (("requests", requests), ("limits", limits)) if v is not None}
    return pod(containers=[{"name": "main", "image": "nginx", "resources": resources}])


def fields(causes: list[Cause]) -> list[tuple[str, str, str]]:
    return [(c["field"], c["reason"], c["message"]) for c in causes]
