"""What the sandbox prints once it is ready: where to go and how to sign in.

Only what answers is advertised: every address in the banner is asked first (a GET, or for the token
endpoint the password grant it offers), and one that does not answer is named as not listed instead.
"""

from __future__ import annotations

import os
import textwrap
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import httpx
from rich.console import Console
from rich.markup import escape

from nufi_sandbox.sandbox.state_file import SandboxState
from nufi_sandbox.sandbox.topology import LPU_RESOURCE

# How long each address in the banner has to answer.
_ASK_TIMEOUT = 5.0
# The dashboard's Add Device wizard (Admin → Devices → Add Device). Written out, since the sandbox
# never imports nufi; tests/unit/sandbox/test_sandbox_banner.py holds it to the dashboard's own path.
WIZARD_PATH = "/admin/devices/new"


@dataclass(frozen=True)
class Built:
    """One thing NuFi has built, as the banner lists it: the dashboard pages it lives on and the API
    areas (OpenAPI tags) that serve it. tests/unit/sandbox/test_sandbox_banner.py holds every page of
    the dashboard and every area of the API to an entry, so the list grows with NuFi."""

    text: str
    pages: tuple[str, ...] = ()
    api: tuple[str, ...] = ()


# What the sandbox offers to try, once it is ready: what NuFi has built, and where it is.
BUILT = (
    Built(
        "the device catalog and live monitoring (Monitoring; Admin → Devices, with the Add Device wizard)",
        pages=("/", "/admin/devices"),
        api=("devices", "monitoring"),
    ),
    Built(
        "alerts from rules NuFi writes for every type, evaluated by Prometheus and delivered by "
        "Alertmanager (Alerts; thresholds under Admin → Devices)",
        pages=("/alerts",),
        api=("alerts",),
    ),
    Built(
        "projects with quotas, running inference deployments and Jupyter / VS Code labs, each lab on a "
        "host of its own (Admin → Projects; Workloads → Deployments, Labs; a VS Code lab runs the real "
        "code-server)",
        pages=("/admin/projects", "/deployments", "/labs"),
        api=("projects",),
    ),
    Built(
        "protection: temperature-based traffic control, unhealthy devices, a condition of the admin's "
        "own and a circuit breaker, with a dry run over the last 24 hours (Admin → Thermal)",
        pages=("/admin/thermal",),
        api=("thermal",),
    ),
    Built(
        "device packs: a device type as a YAML file to keep in Git, exported, diffed and applied "
        "(nufi devices export, diff, apply)",
        api=("device packs",),
    ),
    Built("the nufi command line, speaking the same API (Command line above)", api=("identity",)),
    Built("the audit log (Admin → Audit)", pages=("/admin/audit",)),
)
# The width the list is folded to, under each entry's bullet.
_BUILT_WIDTH = 100


def _shown(path: Path) -> str:
    """A path relative to the working directory when it is below it: shorter to read and to copy."""
    try:
        return os.path.relpath(path) if path.is_relative_to(Path.cwd()) else str(path)
    except ValueError:
        return str(path)


@dataclass(frozen=True)
class Row:
    """One line of the banner; `url` must answer 200 (to a GET, or a POST of `form`) to be shown."""

    label: str
    value: str
    url: str | None = None
    form: Mapping[str, str] | None = None


def banner_rows(state: SandboxState, *, state_file: Path, logs: Path) -> list[Row]:
    password_grant = {
        "grant_type": "password",
        "client_id": "nufi-cli",
        "username": "admin",
        "password": "admin",
    }
    return [
        Row("Dashboard", f"{state.nufi_url}/", url=f"{state.nufi_url}/"),
        Row("API docs", f"{state.nufi_url}/docs", url=f"{state.nufi_url}/docs"),
        Row(
            "Add Device",
            f"{state.nufi_url}{WIZARD_PATH}  (Admin → Devices → Add Device, as admin)",
            url=f"{state.nufi_url}{WIZARD_PATH}",
        ),
        Row("Sign in", "admin / admin (role nufi-admin), user / user (no admin role)"),
        Row(
            "Token URL",
            f"{state.token_url}  (client_id=nufi-cli, password grant)",
            url=state.token_url,
            form=password_grant,
        ),
        Row(
            "Command line",
            f"nufi login --server {state.nufi_url}  (then e.g. nufi devices list; docs/cli.md)",
        ),
        Row("Prometheus", state.prometheus_url, url=f"{state.prometheus_url}/-/ready"),
        Row(
            "Alerts",
            f"{state.alertmanager_url}  (Alertmanager; NuFi's rules in {_shown(state.alert_rules_dir)}/)",
            url=f"{state.alertmanager_url}/-/ready",
        ),
        Row(
            "Kubernetes",
            f"{state.kube_api_url}  (KUBECONFIG={_shown(state.kubeconfig)})",
            url=f"{state.kube_api_url}/readyz",
        ),
        Row(
            "Images",
            ", ".join(f"{kind} {image}" for kind, image in state.images.items())
            + "  (run as local processes)",
        ),
        Row("State", f"{_shown(state_file)}, logs in {_shown(logs)}/"),
    ]


async def answering(rows: Sequence[Row]) -> tuple[list[Row], list[tuple[Row, str]]]:
    """The rows whose address answers, and the others with what went wrong."""
    shown: list[Row] = []
    missing: list[tuple[Row, str]] = []
    # Redirects are followed: the dashboard answers a signed-out browser by sending it to sign in.
    async with httpx.AsyncClient(timeout=_ASK_TIMEOUT, follow_redirects=True) as client:
        for row in rows:
            if row.url is None:
                shown.append(row)
                continue
            try:
                if row.form is None:
                    response = await client.get(row.url)
                else:
                    response = await client.post(row.url, data=dict(row.form))
            except httpx.HTTPError as exc:
                missing.append((row, f"did not answer ({type(exc).__name__})"))
                continue
            if response.status_code == 200:
                shown.append(row)
            else:
                missing.append((row, f"answered HTTP {response.status_code}"))
    return shown, missing


async def registered_lpu(nufi_url: str, token_url: str) -> str | None:
    """The id under which NuFi knows the LPU when an earlier run registered it; None when it is
    not registered, or NuFi could not be asked."""
    form = {"grant_type": "password", "client_id": "nufi-cli", "username": "admin", "password": "admin"}
    try:
        async with httpx.AsyncClient(timeout=5.0) as client:
            tokens = (await client.post(token_url, data=form)).json()
            headers = {"Authorization": f"Bearer {tokens['access_token']}"}
            listed = (await client.get(f"{nufi_url}/api/v1/devices", headers=headers)).json()
    except (httpx.HTTPError, ValueError, KeyError):
        return None
    for item in listed.get("items", []) if isinstance(listed, dict) else []:
        if isinstance(item, dict) and item.get("resource_key") == LPU_RESOURCE:
            return str(item.get("id"))
    return None


def print_ready(
    console: Console,
    rows: Sequence[Row],
    *,
    missing: Sequence[tuple[Row, str]] = (),
    seconds: float,
    registered_lpu: str | None,
) -> None:
    console.print()
    console.print(f"[bold green]NuFi sandbox ready[/] in {seconds:.1f} s")
    width = max((len(row.label) for row in rows), default=0)
    for row in rows:
        # soft_wrap: URLs are printed whole, never folded or cut at the terminal's width.
        console.print(f"  [bold]{row.label:<{width}}[/] {escape(row.value)}", soft_wrap=True)
    for row, why in missing:
        console.print(
            f"  [dim](not listed: {escape(row.label)} at {escape(row.url or '')} {why})[/]", soft_wrap=True
        )
    console.print()
    console.print("Built and running here:")
    for built in BUILT:
        folded = textwrap.fill(
            built.text, width=_BUILT_WIDTH, initial_indent="  • ", subsequent_indent="    "
        )
        console.print(escape(folded), soft_wrap=True)
    console.print()
    if registered_lpu is None:
        console.print(
            "The LPU (hyperaccel.ai/lpu) is on lpu-node-1 and lpu-node-2 but not registered in NuFi yet:",
            soft_wrap=True,
        )
        console.print(
            "registering it is your first step, in the dashboard (Admin → Devices → Add Device) "
            'or through the API (README, "First steps").',
            soft_wrap=True,
        )
    else:
        console.print(
            f"The LPU is registered in NuFi as `{registered_lpu}` (kept from an earlier run; "
            "--fresh starts from empty state).",
            soft_wrap=True,
        )
    console.print("Press Ctrl-C to stop.")
