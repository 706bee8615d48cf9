"""`nufi` in the operator's words: Korean headings, values and pack actions under a Korean locale, times
on the operator's clock, the inventory as rows, deletions asked about, and the sign-in page in the
browser's language."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import httpx
import pytest

from nufi.cli import confirm
from nufi.cli.loopback import LoopbackReceiver
from nufi.packs import dump_packs
from unit.cli.conftest import FakeServer, answer_by_path
from unit.cli.test_cli_packs import APPLIED, DOC
from unit.cli.test_cli_widths import LPU, snapshot

pytestmark = pytest.mark.unit

LPU_DETAIL = {
    **LPU,
    "fetcher": "generic",
    "inventory": {
        "nodes": 2,
        "capacity": 8,
        "allocatable": 8,
        "allocated": 3,
        "per_node": [
            {"node": "lpu-node-1", "capacity": 4, "allocatable": 4, "allocated": 1},
            {"node": "lpu-node-2", "capacity": 4, "allocatable": 4, "allocated": 2},
        ],
    },
}
WITH_HEALTH = {**LPU, "metrics": {"utilization": "lpu_utilization_percent", "health": "lpu_health"}}


@pytest.fixture
def korean(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LANG", "ko_KR.UTF-8")
    monkeypatch.setenv("TZ", "Asia/Seoul")


def _lines(output: str) -> list[list[str]]:
    return [line.replace("│", " ").replace("┃", " ").split() for line in output.splitlines()]


@pytest.mark.parametrize("variable", ["LANG", "LC_MESSAGES", "LC_ALL"])
def test_a_korean_locale_heads_the_monitor_and_says_health_is_not_mapped(
    server: FakeServer, run: Callable[..., Any], monkeypatch: pytest.MonkeyPatch, variable: str
) -> None:
    monkeypatch.setenv(variable, "ko_KR.UTF-8")
    server.handler = answer_by_path({"/api/v1/devices/lpu": LPU, "/api/v1/monitoring/lpu": snapshot()})
    result = run("monitor", "lpu", "--once")
    assert result.exit_code == 0, result.output
    node, head = (" ".join(line) for line in _lines(result.stdout)[1:3])
    assert (node, head) == ("노드 lpu-node-1", "장치 사용률 % 메모리 온도 °C 전력 W 헬스")
    assert "장치 파드" in [" ".join(line) for line in _lines(result.stdout)]
    assert result.stdout.count("매핑 안 됨") == 8
    assert "unknown" not in result.stdout and "HEALTH" not in result.stdout


@pytest.mark.parametrize(("lang", "word"), [("ko_KR.UTF-8", "정상"), ("en_US.UTF-8", "ok")])
def test_a_mapped_health_is_worded(
    server: FakeServer, run: Callable[..., Any], monkeypatch: pytest.MonkeyPatch, lang: str, word: str
) -> None:
    monkeypatch.setenv("LANG", lang)
    server.handler = answer_by_path(
        {"/api/v1/devices/lpu": WITH_HEALTH, "/api/v1/monitoring/lpu": snapshot(health="ok")}
    )
    devices = {f"lpu{i}" for i in range(4)}
    # A device's row of readings (a row of the pods' table has two cells).
    rows = [line for line in _lines(run("monitor", "lpu", "--once").stdout) if line[0] in devices]
    rows = [row for row in rows if len(row) > 2]
    assert len(rows) == 8 and all(word in row for row in rows)


def test_times_are_on_the_operators_clock_and_scripts_keep_the_apis(
    server: FakeServer, run: Callable[..., Any], korean: None
) -> None:
    server.handler = answer_by_path({"/api/v1/devices/lpu": LPU, "/api/v1/monitoring/lpu": snapshot()})
    assert run("monitor", "lpu", "--once").stdout.splitlines()[0] == (
        "lpu · 2026-12-07 20:50:09 KST (노드 2개, 장치 8개)"
    )
    assert json.loads(run("monitor", "lpu", "--once", "-o", "json").stdout)["time"] == snapshot()["time"]


def test_pack_actions_are_korean_under_a_korean_locale(
    server: FakeServer, run: Callable[..., Any], korean: None, tmp_path: Any
) -> None:
    pack = tmp_path / "lpu.yaml"
    pack.write_text(dump_packs([DOC]))
    server.handler = lambda request: httpx.Response(200, json=APPLIED)
    lines = run("devices", "diff", "-f", str(pack)).stdout.splitlines()
    assert "~ lpu: 변경" in lines and "= npu: 그대로" in lines
    assert not any("updated" in line or "unchanged" in line for line in lines)


def test_devices_get_shows_the_inventory_as_rows(
    server: FakeServer, run: Callable[..., Any], korean: None
) -> None:
    server.handler = answer_by_path({"/api/v1/devices/lpu": LPU_DETAIL})
    result = run("devices", "get", "lpu")
    assert result.exit_code == 0, result.output
    assert "인벤토리: 노드 2개에 장치 8개, 할당 가능 8개, 사용 중 3개" in result.stdout
    rows = _lines(result.stdout)
    assert ["노드", "용량", "할당", "가능", "사용", "중"] in rows
    assert ["lpu-node-1", "4", "4", "1"] in rows and ["lpu-node-2", "4", "4", "2"] in rows
    assert "{" not in result.stdout and "per_node" not in result.stdout


def test_a_deployment_shows_its_address_in_the_cluster_not_an_api_path(
    server: FakeServer, run: Callable[..., Any]
) -> None:
    urls = {
        "cluster": "http://chat.team-a.svc.cluster.local:8000",
        "api_proxy": "/api/v1/namespaces/team-a/services/chat:8000/proxy/",
    }
    body = {"name": "chat", "accelerator": {"device_type": "lpu", "count": 1}, "urls": urls}
    server.handler = answer_by_path({"/api/v1/projects/team-a/deployments/chat": body})
    result = run("deployments", "get", "chat", "-p", "team-a")
    assert ["ADDRESS", "IN", "THE", "CLUSTER", urls["cluster"]] in _lines(result.stdout)
    assert "/api/v1/" not in result.stdout


DELETIONS = [
    (("devices", "delete", "lpu"), "/api/v1/admin/devices/lpu", "its alert thresholds"),
    (("deployments", "delete", "chat", "-p", "p"), "/api/v1/projects/p/deployments/chat", "pods and Service"),
    (("labs", "delete", "nb", "-p", "p"), "/api/v1/projects/p/labs/nb", "home volume"),
]


def _deletes(server: FakeServer) -> list[str]:
    return [request.url.path for request in server.requests if request.method == "DELETE"]


@pytest.mark.parametrize(("command", "path", "consequence"), DELETIONS)
def test_a_deletion_without_a_terminal_needs_yes(
    server: FakeServer, run: Callable[..., Any], command: tuple[str, ...], path: str, consequence: str
) -> None:
    server.handler = lambda request: httpx.Response(204)
    refused = run(*command)
    assert refused.exit_code == 2 and "--yes" in refused.stderr and _deletes(server) == []
    assert run(*command, "--yes").exit_code == 0 and _deletes(server) == [path]


@pytest.mark.parametrize(("command", "path", "consequence"), DELETIONS)
def test_a_deletion_on_a_terminal_asks_saying_what_goes_with_it(
    server: FakeServer,
    run: Callable[..., Any],
    monkeypatch: pytest.MonkeyPatch,
    command: tuple[str, ...],
    path: str,
    consequence: str,
) -> None:
    monkeypatch.setattr(confirm, "stdin_is_terminal", lambda: True)
    server.handler = lambda request: httpx.Response(204)
    kept = run(*command, input="n\n")
    assert kept.exit_code == 1 and consequence in kept.stderr and _deletes(server) == []
    assert "Nothing was deleted." in kept.stderr
    deleted = run(*command, input="y\n")
    assert deleted.exit_code == 0 and _deletes(server) == [path]


@pytest.mark.parametrize(
    ("terminal", "browser", "words"),
    [
        (
            "en_US.UTF-8",
            "ko-KR,ko;q=0.9,en;q=0.8",
            "NuFi에 로그인했습니다. 이 창을 닫고 터미널로 돌아가세요.",
        ),
        ("ko_KR.UTF-8", "en-US,en;q=0.9", "Signed in to NuFi. You can close this window"),
        ("ko_KR.UTF-8", "fr-FR", "NuFi에 로그인했습니다."),
    ],
)
def test_the_sign_in_page_speaks_the_browsers_language(
    monkeypatch: pytest.MonkeyPatch, terminal: str, browser: str, words: str
) -> None:
    monkeypatch.setenv("LANG", terminal)
    for name in ("LC_ALL", "LC_MESSAGES"):
        monkeypatch.delenv(name, raising=False)
    with LoopbackReceiver("s-1") as receiver:
        page = httpx.get(
            receiver.redirect_uri, params={"code": "c", "state": "s-1"}, headers={"Accept-Language": browser}
        )
    assert page.status_code == 200 and words in page.text


def test_thermal_status_words_states_in_korean(
    server: FakeServer, run: Callable[..., Any], korean: None
) -> None:
    nodes = [
        {
            "node": "lpu-node-1",
            "state": "hot",
            "temperature_celsius": 95.0,
            "hot": True,
            "deployments": ["chat"],
        },
        {"node": "lpu-node-2", "state": "normal", "temperature_celsius": 61.0, "hot": False},
    ]
    status = {
        "holder": "nufi-0",
        "types": [{"device_type": "lpu", "policy": {"trip_celsius": 85}, "nodes": nodes}],
    }
    server.handler = answer_by_path({"/api/v1/thermal/status": status})
    rows = _lines(run("thermal", "status").stdout)
    assert ["유형", "노드", "상태", "온도", "°C", "차단", "°C", "과열", "배포"] in rows
    assert ["lpu", "lpu-node-1", "과열", "95.0", "85", "예", "chat"] in rows
    assert ["lpu", "lpu-node-2", "정상", "61.0", "85", "아니요", "-"] in rows
