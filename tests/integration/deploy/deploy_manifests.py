"""Rendering NuFi's kustomize overlays with kubectl, and finding objects in the result."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

REPO_ROOT = Path(__file__).resolve().parents[3]
DEPLOY_DIR = REPO_ROOT / "deploy"
KUSTOMIZE_DIR = DEPLOY_DIR / "kustomize"
PRODUCTION_OVERLAY = KUSTOMIZE_DIR / "overlays" / "production"
EXAMPLE_OVERLAY = KUSTOMIZE_DIR / "overlays" / "example"

Manifest = dict[str, Any]


def kubectl_binary() -> str:
    """kubectl, which carries kustomize (`kubectl kustomize`); the manifests cannot be checked without it."""
    found = shutil.which("kubectl")
    if found is None:
        raise AssertionError(
            "kubectl is not installed: it renders the kustomize overlays (`kubectl kustomize`). "
            "Install kubectl 1.27 or newer and run the tests again."
        )
    return found


def render(directory: Path) -> list[Manifest]:
    """The objects `kubectl apply -k directory` would send, in kustomize's order."""
    result = subprocess.run(
        [kubectl_binary(), "kustomize", str(directory)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    if result.returncode != 0:
        raise AssertionError(f"kubectl kustomize {directory} failed: {result.stderr.strip()}")
    return [doc for doc in yaml.safe_load_all(result.stdout) if doc is not None]


@dataclass(frozen=True)
class Rendered:
    """One overlay's rendered objects."""

    name: str
    objects: list[Manifest]

    def of_kind(self, kind: str) -> list[Manifest]:
        return [obj for obj in self.objects if obj["kind"] == kind]

    def one(self, kind: str, name: str | None = None) -> Manifest:
        """The single object of `kind` (named `name`, or whose name starts with `name-` when generated)."""
        matches = [obj for obj in self.of_kind(kind) if name is None or _name_matches(obj, name)]
        assert len(matches) == 1, f"{self.name}: expected one {kind} {name or ''}, found {len(matches)}"
        return matches[0]

    def find(self, kind: str, name: str, namespace: str | None) -> Manifest | None:
        for obj in self.of_kind(kind):
            meta = obj["metadata"]
            if meta["name"] == name and meta.get("namespace") == namespace:
                return obj
        return None

    @property
    def server(self) -> Manifest:
        return self.one("Deployment", "nufi")

    @property
    def pod_spec(self) -> Manifest:
        spec: Manifest = self.server["spec"]["template"]["spec"]
        return spec

    @property
    def container(self) -> Manifest:
        containers: list[Manifest] = self.pod_spec["containers"]
        assert len(containers) == 1, "the NuFi pod runs a single container"
        return containers[0]

    @property
    def namespace(self) -> str:
        value: str = self.server["metadata"]["namespace"]
        return value


def _name_matches(obj: Manifest, name: str) -> bool:
    actual: str = obj["metadata"]["name"]
    return actual == name or actual.startswith(f"{name}-")


def env_by_name(container: Manifest) -> dict[str, Manifest]:
    return {entry["name"]: entry for entry in container.get("env", [])}


def labels_match(selector: dict[str, str], labels: dict[str, str]) -> bool:
    return all(labels.get(key) == value for key, value in selector.items())


def all_strings(value: object) -> Iterable[str]:
    """Every string anywhere in a JSON-like value, keys included."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield str(key)
            yield from all_strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from all_strings(item)
