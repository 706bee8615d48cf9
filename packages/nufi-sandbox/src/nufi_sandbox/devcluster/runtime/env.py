"""A mapped container's command line and environment, as a container runtime would assemble them.

Precedence, lowest first: PATH and HOME of the dev cluster, the image's entry in the runtime map, the
node's entry, what the device plugins' Allocate returned, the container's own ``env``; ``PORT`` and
``HOSTNAME`` always win, because the process must listen where the dev cluster routes to.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from nufi_sandbox.devcluster.runtime.map import ImageEntry

Obj = dict[str, Any]

# The fieldRef paths a container's env may read; the other downward-API fields are not simulated.
_FIELD_PATHS = {
    "metadata.name": lambda pod, ip: pod["metadata"]["name"],
    "metadata.namespace": lambda pod, ip: pod["metadata"].get("namespace", ""),
    "metadata.uid": lambda pod, ip: pod["metadata"].get("uid", ""),
    "spec.nodeName": lambda pod, ip: pod.get("spec", {}).get("nodeName", ""),
    "status.podIP": lambda pod, ip: ip,
}

# $(VAR) references in args and env values, with $$ escaping, as the kubelet expands them.
_REFERENCE = re.compile(r"\$\$|\$\(([A-Za-z_][A-Za-z0-9_.-]*)\)")


@dataclass(frozen=True)
class Placeholders:
    port: int
    node: str
    pod: str
    namespace: str
    workdir: Path

    def fill(self, text: str) -> str:
        for key, value in (
            ("{port}", str(self.port)),
            ("{node}", self.node),
            ("{pod}", self.pod),
            ("{namespace}", self.namespace),
            ("{workdir}", str(self.workdir)),
        ):
            text = text.replace(key, value)
        return text


@dataclass
class LaunchSpec:
    argv: list[str]
    env: dict[str, str]
    skipped: list[str] = field(default_factory=list)
    """Env variables left out because their source is not simulated (each worth an Event)."""


def expand_references(text: str, variables: Mapping[str, str]) -> str:
    """Kubernetes' $(VAR) expansion: known names are replaced, unknown ones stay as written."""

    def replace(match: re.Match[str]) -> str:
        if match.group(0) == "$$":
            return "$"
        name = match.group(1)
        return variables.get(name, match.group(0))

    return _REFERENCE.sub(replace, text)


def container_env(container: Obj, pod: Obj, pod_ip: str) -> tuple[dict[str, str], list[str]]:
    """The container's ``env`` list resolved: literal values and the supported fieldRefs."""
    resolved: dict[str, str] = {}
    skipped: list[str] = []
    for item in container.get("env") or []:
        name = str(item.get("name", ""))
        if not name:
            continue
        source = item.get("valueFrom")
        if source is None:
            resolved[name] = expand_references(str(item.get("value", "")), resolved)
            continue
        path = (source.get("fieldRef") or {}).get("fieldPath")
        reader = _FIELD_PATHS.get(str(path)) if path else None
        if reader is None:
            kind = next(iter(source), "valueFrom")
            skipped.append(f"{name} ({kind}{' ' + str(path) if path else ''})")
            continue
        resolved[name] = str(reader(pod, pod_ip))
    return resolved, skipped


def launch_spec(
    entry: ImageEntry,
    container: Obj,
    pod: Obj,
    *,
    pod_ip: str,
    placeholders: Placeholders,
    node_env: Mapping[str, str],
    device_env: Mapping[str, str],
    base_env: Mapping[str, str] | None = None,
) -> LaunchSpec:
    own = os.environ if base_env is None else base_env
    env = {key: own[key] for key in ("PATH", "HOME") if key in own}
    env.update({key: placeholders.fill(value) for key, value in entry.env.items()})
    env.update({key: placeholders.fill(value) for key, value in node_env.items()})
    env.update(device_env)
    declared, skipped = container_env(container, pod, pod_ip)
    env.update({key: placeholders.fill(value) for key, value in declared.items()})
    env["PORT"] = str(placeholders.port)
    env["HOSTNAME"] = placeholders.pod
    argv = [placeholders.fill(part) for part in entry.argv]
    argv += [placeholders.fill(expand_references(str(arg), env)) for arg in container.get("args") or []]
    return LaunchSpec(argv, env, skipped)
