"""`nufi labs list` says when each lab was last active, as the Labs page does: the instant its server
gave on the operator's clock, or what NuFi knows instead, and each lab's status, in the operator's
language; scripts keep the API's own activity in `-o json`."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from unit.cli.conftest import FakeServer, answer_by_path

pytestmark = pytest.mark.unit

USED = "2026-12-07T14:50:09Z"
READ = "2026-12-07T14:53:19Z"


def lab(name: str, status: str, activity: dict[str, Any] | None) -> dict[str, Any]:
    body: dict[str, Any] = {
        "name": name,
        "kind": "vscode",
        "accelerator": {"device_type": "lpu", "count": 1},
        "status": status,
        "url": f"/labs/team-a/{name}/",
    }
    if activity is not None:
        body["activity"] = {"source": "code-server", "read_at": READ, **activity}
    return body


LABS = {
    "items": [
        lab("used", "Ready", {"state": "idle", "last_active": USED}),
        lab("busy", "Ready", {"state": "busy", "last_active": READ}),
        lab("fresh", "Ready", {"state": "alive", "last_active": None}),
        lab("silent", "Ready", {"state": "unreachable", "last_active": None}),
        lab("parked", "Stopped", None),
    ]
}
SAID = {
    "ko": {
        "used": "2026-12-07 23:50:09 KST",
        "busy": "지금 코드 실행 중",
        "fresh": "시작 후 활동 없음",
        "silent": "알 수 없음",
        "parked": "—",
    },
    "en": {
        "used": "2026-12-07 15:50:09 CET",
        "busy": "running code now",
        "fresh": "not since it started",
        "silent": "unknown",
        "parked": "—",
    },
}
HEADING = {"ko": "마지막 활동", "en": "LAST ACTIVE"}
# Ready and Stopped, as the Labs page words them.
STATUS = {"ko": ("준비됨", "중지됨"), "en": ("Ready", "Stopped")}


@pytest.mark.parametrize(("lang", "zone"), [("ko", "Asia/Seoul"), ("en", "Europe/Berlin")])
def test_each_lab_says_when_it_was_last_active_in_the_operators_words(
    server: FakeServer, run: Callable[..., Any], monkeypatch: pytest.MonkeyPatch, lang: str, zone: str
) -> None:
    monkeypatch.setenv("LANG", "ko_KR.UTF-8" if lang == "ko" else "en_US.UTF-8")
    monkeypatch.setenv("TZ", zone)
    monkeypatch.setenv("COLUMNS", "200")
    server.handler = answer_by_path({"/api/v1/projects/team-a/labs": LABS})
    result = run("labs", "list", "-p", "team-a")
    assert result.exit_code == 0, result.output
    assert HEADING[lang] in result.stdout
    rows = {line.split("│")[0].strip(): line for line in result.stdout.splitlines() if "│" in line}
    for name, said in SAID[lang].items():
        assert said in rows[name], (name, rows[name])
    assert STATUS[lang][0] in rows["used"] and STATUS[lang][1] in rows["parked"]
    assert "unreachable" not in result.stdout and "T14:" not in result.stdout


def test_scripts_read_the_apis_activity(server: FakeServer, run: Callable[..., Any]) -> None:
    server.handler = answer_by_path({"/api/v1/projects/team-a/labs": LABS})
    listed = json.loads(run("labs", "list", "-p", "team-a", "-o", "json").stdout)
    assert [item.get("activity") for item in listed["items"]] == [
        item.get("activity") for item in LABS["items"]
    ]
