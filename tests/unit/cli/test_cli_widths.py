"""Tables at 80 columns and through a pipe: what a reader copies back into a command stays whole, only
free text wraps, and live monitoring writes each snapshot to a pipe as it comes."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import httpx
import pytest
from hypothesis import given
from hypothesis import strategies as st
from rich.cells import cell_len

from nufi.cli.output import column_widths, fold, table_width
from nufi.cli.say import say
from unit.cli.conftest import FakeServer, answer_by_path

pytestmark = pytest.mark.unit

TYPES = {
    "items": [
        {
            "id": device_id,
            "name": name,
            "vendor": name.split()[0],
            "kind": "official",
            "resource_key": key,
            "enabled": True,
            "revision": 1,
        }
        for device_id, name, key in [
            ("furiosa-rngd", "FuriosaAI RNGD", "furiosa.ai/rngd"),
            ("rebellions-atom-plus", "Rebellions ATOM+", "rebellions.ai/ATOM"),
            ("lpu", "HyperAccel LPU", "hyperaccel.ai/lpu"),
        ]
    ]
}
POD = "chat-5b7d8c9f4-x2k4p"


def snapshot(time: str = "2026-12-07T11:50:09.000Z", health: str = "unknown") -> dict[str, Any]:
    device = {
        "utilization_percent": 12.5,
        "memory_used_bytes": 34359738,
        "memory_total_bytes": 17179869184,
        "temperature_celsius": 61.5,
        "health": health,
    }
    nodes = [
        {
            "node": f"lpu-node-{n}",
            "devices": [
                {**device, "device": f"lpu{i}", "pod": POD if i == 0 else None, "namespace": "team-ko"}
                for i in range(4)
            ],
        }
        for n in (1, 2)
    ]
    return {"device_type": "lpu", "time": time, "summary": {"nodes": 2, "devices": 8}, "nodes": nodes}


LPU = {**TYPES["items"][2], "metrics": {"utilization": "lpu_utilization_percent"}}
REASON = (
    "project team-a has no room for 2 more HyperAccel LPU: its quota allows 3 and 2 are in use, "
    "so at most 1 more fits; lower the replicas or ask an administrator for a larger quota"
)
DEPLOYMENT = {
    "name": "chat-cli",
    "image": "nufi-mock:0.1.0",
    "accelerator": {"device_type": "lpu", "resource_key": "hyperaccel.ai/lpu", "count": 1},
    "replicas": 2,
    "ready_replicas": 0,
    "status": "Pending",
    "reason": REASON,
}


@pytest.fixture(autouse=True)
def eighty_columns(monkeypatch: pytest.MonkeyPatch) -> None:
    # CliRunner's stdout is a pipe, not a terminal: every test here is the piped case at 80 columns.
    monkeypatch.setenv("COLUMNS", "80")


def _cells(output: str) -> set[str]:
    return {word for line in output.splitlines() for word in line.replace("│", " ").split()}


def test_ids_resource_keys_nodes_and_pods_stay_whole(server: FakeServer, run: Callable[..., Any]) -> None:
    server.handler = answer_by_path(
        {"/api/v1/devices": TYPES, "/api/v1/devices/lpu": LPU, "/api/v1/monitoring/lpu": snapshot()}
    )
    listed = run("devices", "list")
    assert listed.exit_code == 0, listed.output
    for device in TYPES["items"]:
        assert {device["id"], device["resource_key"]} <= _cells(listed.stdout)
    watched = run("monitor", "lpu", "--once")
    assert watched.exit_code == 0, watched.output
    assert {"lpu-node-1", "lpu-node-2", f"team-ko/{POD}"} <= _cells(watched.stdout)
    assert "…" not in listed.stdout + watched.stdout


def test_only_free_text_wraps_to_fit_80_columns(server: FakeServer, run: Callable[..., Any]) -> None:
    server.handler = answer_by_path({"/api/v1/projects/team-a/deployments": {"items": [DEPLOYMENT]}})
    result = run("deployments", "list", "-p", "team-a")
    assert result.exit_code == 0, result.output
    assert max(cell_len(line) for line in result.stdout.splitlines()) <= 80
    assert {DEPLOYMENT["name"], DEPLOYMENT["image"], "lpu:1", "0/2"} <= _cells(result.stdout)
    # The reason is all there, a few words a line.
    assert set(REASON.split()) <= _cells(result.stdout)
    assert len(result.stdout.splitlines()) > 4


@given(
    st.lists(st.tuples(st.integers(0, 40), st.integers(0, 40)), min_size=1, max_size=9),
    st.integers(1, 200),
)
def test_columns_get_their_floor_and_share_what_is_left(pairs: list[tuple[int, int]], room: int) -> None:
    natural = [max(a, b) for a, b in pairs]
    floor = [min(a, b) for a, b in pairs]
    widths = column_widths(natural, floor, room)
    assert all(least <= width <= want for least, width, want in zip(floor, widths, natural, strict=True))
    if table_width(natural) <= room:
        assert widths == natural
    elif table_width(floor) <= room:
        # Too wide for all: the room is used to its last column, never more.
        assert table_width(widths) == room
    else:
        assert widths == floor


def test_live_monitoring_writes_every_snapshot_to_a_pipe(
    server: FakeServer, run: Callable[..., Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TZ", "UTC")
    first, second = snapshot("2026-12-07T11:50:09.000Z"), snapshot("2026-12-07T11:50:11.000Z")
    stream = "".join(f"event: snapshot\ndata: {json.dumps(body)}\n\n" for body in (first, second))
    stream += 'event: end\ndata: {"title": "gone"}\n\n'

    def answer(request: httpx.Request) -> httpx.Response:
        if request.url.path == "/api/v1/devices/lpu":
            return httpx.Response(200, json=LPU)
        return httpx.Response(200, text=stream, headers={"content-type": "text/event-stream"})

    server.handler = answer
    result = run("monitor", "lpu")
    assert result.exit_code == 0, result.output
    titles = [line for line in result.stdout.splitlines() if line.startswith("lpu at ")]
    assert [title.split()[3] for title in titles] == ["11:50:09", "11:50:11"]
    # Each snapshot names a node once, above its devices.
    assert result.stdout.count("lpu-node-2") == 2


NODE = "ip-10-0-12-34.ap-northeast-2.compute.internal"
# A namespace and a pod name of 63 characters, the most a generated one has.
LONG_POD = (
    "team-korea-research-inference",
    "llama-3-1-70b-instruct-chat-completions-serving-5b7d8c9f4-x2k4p",
)


def _pods(output: str) -> list[str]:
    """The POD cells of the monitor's pod tables, each joined across the lines it folded onto."""
    pods: list[str] = []
    for line in output.splitlines():
        cells = [text.strip() for text in line.split("│")]
        if len(cells) == 2 and cells[0]:
            pods.append(cells[1])
        elif len(cells) == 2:
            pods[-1] += cells[1]
    return pods


@pytest.mark.parametrize("lang", ["en_US.UTF-8", "ko_KR.UTF-8"])
def test_monitor_fits_80_columns_with_nodes_and_pods_whole(
    server: FakeServer, run: Callable[..., Any], monkeypatch: pytest.MonkeyPatch, lang: str
) -> None:
    monkeypatch.setenv("LANG", lang)
    body = snapshot()
    body["nodes"][0]["node"] = NODE
    body["nodes"][0]["devices"][0].update(namespace=LONG_POD[0], pod=LONG_POD[1])
    body["nodes"].append({"node": "lpu-node-3", "devices": []})
    server.handler = answer_by_path({"/api/v1/devices/lpu": LPU, "/api/v1/monitoring/lpu": body})
    result = run("monitor", "lpu", "--once")
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert max(cell_len(line) for line in lines) <= 80, result.stdout
    assert {NODE, "lpu-node-2"} <= _cells(result.stdout)
    assert _pods(result.stdout) == ["/".join(LONG_POD), f"team-ko/{POD}"], result.stdout
    # 34359738 bytes in use of 16 GiB: the used part in its own unit.
    assert sum("32.8 MiB / 16.0 GiB" in line for line in lines) == 8, result.stdout
    # A node without readings says so under its heading, in the operator's words.
    assert lines[-2:] == [say("cli.monitor.node", node="lpu-node-3"), say("cli.monitor.no_devices")]


@given(st.text(st.sampled_from("ab-./가"), max_size=90), st.integers(2, 80))
def test_a_folded_id_keeps_every_character_within_the_width(text: str, width: int) -> None:
    lines = fold(text, width)
    assert "".join(lines) == text
    assert all(cell_len(line) <= width for line in lines)
    assert len(lines) == 1 or cell_len(text) > width
    # A line is cut inside a piece only when no `/`, `-` or `.` fits on it.
    assert all(line[-1] in "/-." or not set(line) & set("/-.") for line in lines[:-1])
