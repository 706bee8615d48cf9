"""Exit codes scripts rely on, output formats equal to the API's bodies, problems shown in ko/en."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import httpx
import pytest
import yaml

from unit.cli.conftest import SERVER, FakeServer, answer_by_path

pytestmark = pytest.mark.unit

DEVICES = {
    "items": [
        {
            "id": "lpu",
            "name": "LPU",
            "vendor": "Acme",
            "kind": "custom",
            "resource_key": "acme.com/lpu",
            "enabled": True,
            "revision": 3,
        },
    ]
}
LPU_TYPE = {**DEVICES["items"][0], "metrics": {"utilization": "lpu_util", "health": "lpu_health"}}
SNAPSHOT = {
    "device_type": "lpu",
    "time": "2026-01-01T00:00:00Z",
    "age_seconds": 0.4,
    "summary": {"nodes": 1, "devices": 1},
    "nodes": [
        {
            "node": "n1",
            "devices": [
                {"device": "0", "utilization_percent": 50.0, "temperature_celsius": 61.5, "health": "ok"}
            ],
        }
    ],
    "stale": [],
    "not_reporting": [],
    "errors": [],
    "matched_nodes": 1,
    "continue": None,
}


def _problem(status: int, **extra: object) -> Callable[[httpx.Request], httpx.Response]:
    body = {"type": "x", "title": f"Title {status}", "status": status, "detail": f"Detail {status}", **extra}
    return lambda request: httpx.Response(
        status, json=body, headers={"content-type": "application/problem+json"}
    )


@pytest.mark.parametrize(
    ("status", "code"), [(404, 1), (409, 1), (422, 1), (400, 1), (401, 3), (403, 3), (500, 3), (503, 3)]
)
def test_a_problem_exits_with_its_class(
    server: FakeServer, run: Callable[..., Any], status: int, code: int
) -> None:
    server.handler = _problem(status)
    result = run("devices", "get", "lpu")
    assert result.exit_code == code
    assert f"Title {status}" in result.stderr and f"Detail {status}" in result.stderr


def test_success_exits_0(server: FakeServer, run: Callable[..., Any]) -> None:
    server.handler = lambda request: httpx.Response(200, json=DEVICES)
    assert run("devices", "list").exit_code == 0


def test_an_unreachable_server_exits_3(server: FakeServer, run: Callable[..., Any]) -> None:
    def refuse(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("connection refused", request=request)

    server.handler = refuse
    result = run("devices", "list")
    assert result.exit_code == 3
    assert f"cannot reach {SERVER}/api/v1/devices" in result.stderr


@pytest.mark.parametrize(
    "args",
    [
        ("devices", "list", "--no-such-option"),
        ("deployments", "create", "x", "-p", "p", "--image", "i", "--accelerator", "lpu"),
        ("devices", "apply", "-f", "/no/such/file.yaml"),
        ("devices", "list", "-o", "xml"),
    ],
)
def test_a_wrong_command_line_exits_2_without_calling_the_server(
    server: FakeServer, run: Callable[..., Any], args: tuple[str, ...]
) -> None:
    result = run(*args)
    assert result.exit_code == 2, result.output
    assert server.requests == []


def test_json_and_yaml_print_the_apis_body(server: FakeServer, run: Callable[..., Any]) -> None:
    server.handler = lambda request: httpx.Response(200, json=DEVICES)
    assert json.loads(run("devices", "list", "-o", "json").stdout) == DEVICES
    assert yaml.safe_load(run("devices", "list", "-o", "yaml").stdout) == DEVICES


def test_the_table_shows_the_rows(server: FakeServer, run: Callable[..., Any]) -> None:
    server.handler = lambda request: httpx.Response(200, json=DEVICES)
    table = run("devices", "list").stdout
    assert "RESOURCE KEY" in table and "acme.com/lpu" in table and "lpu" in table


def test_monitor_once_prints_the_get_body(server: FakeServer, run: Callable[..., Any]) -> None:
    server.handler = lambda request: httpx.Response(200, json=SNAPSHOT)
    result = run("monitor", "lpu", "--once", "-o", "json", "--sort", "temperature")
    assert json.loads(result.stdout) == SNAPSHOT
    (request,) = server.requests
    assert request.url.path == "/api/v1/monitoring/lpu" and request.url.params["sort"] == "temperature"
    server.handler = answer_by_path({"/api/v1/devices/lpu": LPU_TYPE, "/api/v1/monitoring/lpu": SNAPSHOT})
    assert "61.5" in run("monitor", "lpu", "--once").stdout


def test_monitor_follows_the_stream_until_the_type_ends(server: FakeServer, run: Callable[..., Any]) -> None:
    stream = (
        f"event: snapshot\ndata: {json.dumps(SNAPSHOT)}\n\n: heartbeat\n\n"
        'event: end\ndata: {"title": "gone"}\n\n'
    )
    server.handler = lambda request: httpx.Response(
        200, text=stream, headers={"content-type": "text/event-stream"}
    )
    result = run("monitor", "lpu", "-o", "json")
    assert result.exit_code == 0
    assert [json.loads(line) for line in result.stdout.splitlines()] == [SNAPSHOT]
    assert server.requests[0].url.path == "/api/v1/monitoring/lpu/stream"


@pytest.mark.parametrize(
    ("lang", "accept", "labels"),
    [
        ("ko_KR.UTF-8", "ko", ("오류:", "코드: device.not_found", "필드: name", "해결:")),
        ("en_US.UTF-8", "en", ("error:", "code: device.not_found", "field: name", "fix:")),
    ],
)
def test_problems_are_asked_and_shown_in_the_operators_language(
    server: FakeServer,
    run: Callable[..., Any],
    monkeypatch: pytest.MonkeyPatch,
    lang: str,
    accept: str,
    labels: tuple[str, ...],
) -> None:
    monkeypatch.setenv("LANG", lang)
    server.handler = _problem(422, code="device.not_found", field="name", request_id="r-1")
    result = run("devices", "get", "lpu")
    assert server.requests[0].headers["Accept-Language"].startswith(accept)
    for label in labels:
        assert label in result.stderr
    assert "r-1" in result.stderr


def test_a_403_says_an_administrator_is_needed(server: FakeServer, run: Callable[..., Any]) -> None:
    server.handler = _problem(403)
    assert "administrator" in run("devices", "delete", "lpu", "--yes").stderr


@pytest.mark.parametrize(
    ("lang", "header"),
    [
        ("ko_KR.UTF-8", "리더: nufi-0  갱신: 2026-01-01 09:00:00 KST"),
        ("en_US.UTF-8", "leader: nufi-0  updated: -"),
    ],
)
def test_thermal_status_heads_its_table_in_the_operators_language(
    server: FakeServer, run: Callable[..., Any], monkeypatch: pytest.MonkeyPatch, lang: str, header: str
) -> None:
    monkeypatch.setenv("LANG", lang)
    monkeypatch.setenv("TZ", "Asia/Seoul")
    updated = "2026-01-01T00:00:00Z" if lang.startswith("ko") else None
    server.handler = lambda request: httpx.Response(
        200, json={"holder": "nufi-0", "updated_at": updated, "types": [], "problems": []}
    )
    result = run("thermal", "status")
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[0] == header


def test_serve_refuses_both_faces_off_in_the_operators_language(
    run: Callable[..., Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LANG", "ko_KR.UTF-8")
    monkeypatch.delenv("LC_ALL", raising=False)
    monkeypatch.delenv("LC_MESSAGES", raising=False)
    result = run("serve", "--api-only", "--ui-only")
    assert result.exit_code == 2
    assert result.stderr.strip() == "오류: --api-only와 --ui-only는 함께 줄 수 없습니다. 하나만 주세요"
