"""What the wizard's simulated-user tests run against: the dashboard (with or without a dev cluster and
the session's Prometheus), and reading what a marked part of the page shows."""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from pathlib import Path

import yaml
from nicegui import ui
from nicegui.testing import User, user_simulation

from nufi.services import Services
from support.polling import eventually, holds

from .people import USER_HEADER

MAIN = Path(__file__).with_name("dashboard_main.py")
WIZARD_KEY = "example.com/wiz"
OFFICIAL_KEY = "nvidia.com/gpu"
# node -> what it offers: the key on two nodes, another key nowhere, and one NVIDIA GPU (so an edit
# of the NVIDIA preset passes its checks).
WIZARD_NODES: dict[str, dict[str, int]] = {
    "wiz-1": {WIZARD_KEY: 2, OFFICIAL_KEY: 1},
    "wiz-2": {WIZARD_KEY: 4},
    "wiz-plain": {},
}


def node_layout(nodes: Mapping[str, Mapping[str, int]]) -> str:
    """The nodes.yaml text of nodes offering `nodes[name]` and no device plugin (nothing is scheduled)."""
    listed = [{"name": name, "device_plugins": False, "capacity": dict(keys)} for name, keys in nodes.items()]
    return yaml.safe_dump({"nodes": listed})


@asynccontextmanager
async def dashboard(env: Mapping[str, str]) -> AsyncIterator[User]:
    """The dashboard under NiceGUI's simulated user, its settings taking `env` (restored after)."""
    saved = {name: os.environ.get(name) for name in env}
    os.environ.update(env)
    # NiceGUI forgets the modules that declared pages when a simulation ends; the rest of the test
    # session must keep the very module objects it already holds.
    modules = dict(sys.modules)
    try:
        async with user_simulation(main_file=MAIN) as simulated:
            attached = importlib.import_module("nufi.ui.context").is_attached
            await eventually(lambda: holds(attached()), within=20)
            yield simulated
    finally:
        for name, module in modules.items():
            sys.modules.setdefault(name, module)
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def as_(user: User, who: str, language: str = "ko") -> User:
    user.http_client.headers[USER_HEADER] = who
    user.http_client.headers["accept-language"] = language
    return user


def shown(user: User, marker: str) -> str:
    """Every text the elements marked `marker` show (labels, inputs' values, table cells), one per line."""
    parts: list[str] = []
    with user:
        for element in sorted(user.find(marker=marker).elements, key=lambda e: e.id):
            for part in (element, *element.descendants()):
                if not part.visible:
                    continue
                if isinstance(part, ui.label):
                    parts.append(part.text)
                elif isinstance(part, ui.input):
                    parts.append(str(part.value or ""))
                elif isinstance(part, ui.table):
                    parts.extend(" ".join(str(value) for value in row.values()) for row in part.rows)
    return "\n".join(parts)


def input_of(user: User, marker: str) -> ui.input:
    (found,) = user.find(marker=marker).elements
    assert isinstance(found, ui.input), found
    return found


def dashboard_env(work: Path, *, prometheus_url: str = "", kubeconfig: Path | None = None) -> dict[str, str]:
    """Settings of the simulated dashboard: its database a file under `work` (not `:memory:`: the
    page's draft saves and the tests' reads take turns otherwise), with or without Prometheus and a
    cluster."""
    return {
        "NUFI_TEST_PROMETHEUS_URL": prometheus_url,
        "NUFI_TEST_KUBECONFIG": str(kubeconfig) if kubeconfig is not None else "",
        "NUFI_TEST_DATABASE_URL": f"sqlite+aiosqlite:///{work / 'nufi.db'}",
    }


def attached_services() -> Services:
    """The services the running dashboard attached (NiceGUI's simulation re-imports their module)."""
    services: Services = importlib.import_module("nufi.ui.context").services()
    return services
