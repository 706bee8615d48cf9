"""The sandbox's start banner says what NuFi has built (every page of the dashboard and every area of
the API has its entry) and sends an admin to the Add Device wizard at the path the dashboard serves it."""

from __future__ import annotations

import io
import re
from pathlib import Path

from rich.console import Console

from nufi_sandbox.sandbox.banner import BUILT, WIZARD_PATH, banner_rows, print_ready
from nufi_sandbox.sandbox.state_file import SandboxState

SOURCE = Path(__file__).resolve().parents[3] / "src" / "nufi" / "ui"
API = SOURCE.parent / "api"
# API areas that are no feature to try: signing in, the version, the probes, and admin's own tag
# (every admin route also sits in the area it serves or under a page).
NOT_FEATURES = {"meta", "health", "admin"}

STATE = SandboxState(
    nufi_url="http://127.0.0.1:8080",
    prometheus_url="http://127.0.0.1:9090",
    kube_api_url="http://127.0.0.1:6443",
    kubeconfig=Path("/tmp/kubeconfig"),
    oidc_issuer="http://127.0.0.1:8180/realms/super-llm",
    token_url="http://127.0.0.1:8180/realms/super-llm/protocol/openid-connect/token",
    exporters={"lpu-node-1": "http://127.0.0.1:9850/metrics"},
    alertmanager_url="http://127.0.0.1:9093",
    alert_rules_dir=Path("/tmp/state/alert-rules"),
)


def printed(registered_lpu: str | None) -> str:
    out = io.StringIO()
    rows = banner_rows(STATE, state_file=Path("/tmp/sandbox.json"), logs=Path("/tmp/logs"))
    print_ready(Console(file=out, width=100), rows, seconds=1.0, registered_lpu=registered_lpu)
    return out.getvalue()


def test_the_banners_wizard_path_is_the_one_the_dashboard_serves() -> None:
    # The sandbox never imports nufi, so the path is read from the dashboard's source.
    declared = {
        match
        for file in SOURCE.rglob("*.py")
        for match in re.findall(r'"(/admin/devices/new)"', file.read_text(encoding="utf-8"))
    }
    assert declared == {WIZARD_PATH}


def test_the_banner_points_to_add_device_and_says_what_is_built() -> None:
    text = printed(registered_lpu=None)
    assert f"Add Device   http://127.0.0.1:8080{WIZARD_PATH}  (Admin → Devices → Add Device" in text
    assert "Admin → Devices → Add Device) or through the API" in text
    flat = " ".join(text.split())
    for built in ["inference deployments", "Jupyter / VS Code labs", "traffic control", "audit log"]:
        assert built in flat, built
    for built in ["alerts", "quotas", "unhealthy devices", "circuit breaker", "device packs", "nufi command"]:
        assert built in flat, built
    assert "Next" not in text
    # Each entry once, under its bullet, folded within 100 columns.
    bullets = [line.removeprefix("  • ") for line in text.splitlines() if line.startswith("  • ")]
    assert all(built.text.startswith(bullet) for bullet, built in zip(bullets, BUILT, strict=True))
    listed = text.split("Built and running here:\n", 1)[1].split("\n\n", 1)[0]
    assert max(len(line) for line in listed.splitlines()) <= 100, listed


def test_every_page_of_the_dashboard_is_in_the_built_list() -> None:
    pages = {
        match
        for file in (SOURCE / "pages").glob("*.py")
        for match in re.findall(r'^PATH = "([^"]+)"', file.read_text(encoding="utf-8"), flags=re.M)
    }
    assert len(pages) >= 8, pages
    assert pages == {page for built in BUILT for page in built.pages}


def test_every_area_of_the_api_is_in_the_built_list() -> None:
    areas = {
        match
        for file in API.glob("*.py")
        for match in re.findall(r'tags=\["([^"]+)"\]', file.read_text(encoding="utf-8"))
    }
    assert {"alerts", "device packs", "thermal", "projects"} <= areas
    assert areas - NOT_FEATURES == {area for built in BUILT for area in built.api}


def test_with_the_lpu_registered_the_banner_names_it_and_still_says_what_is_built() -> None:
    text = printed(registered_lpu="hyperaccel-lpu")
    assert "registered in NuFi as `hyperaccel-lpu`" in text
    assert "Admin → Devices → Add Device" in text
    assert "traffic control" in text


def test_the_banner_lists_alertmanager_where_it_answers_and_where_nufis_rules_go() -> None:
    rows = {row.label: row for row in banner_rows(STATE, state_file=Path("/s.json"), logs=Path("/l"))}
    alerts = rows["Alerts"]
    assert alerts.url == "http://127.0.0.1:9093/-/ready"
    assert alerts.value.startswith("http://127.0.0.1:9093  (Alertmanager")
    assert "/tmp/state/alert-rules/" in alerts.value
