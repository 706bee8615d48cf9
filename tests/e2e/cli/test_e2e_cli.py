"""The `nufi` command line against a running sandbox, as an operator uses it: `nufi login` through the
dev identity provider's sign-in page (authorization code + PKCE to a loopback redirect), `whoami`,
`monitor --once` equal to the API's snapshot, live `monitor` through a pipe in Korean, device packs
exported, deleted, applied back byte for byte and diffed, and a deployment on an LPU created until
Ready.

The tests of this module run in order and share one sandbox and one signed-in config directory.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlsplit

import httpx
import pytest
from rich.cells import cell_len
from typer.testing import CliRunner, Result

from e2e.e2e_sandbox_support import LPU_REGISTRATION, SandboxRun, bearer, sign_in_at, token
from nufi.cli import app
from nufi.packs import dump_packs, parse_packs
from support.polling import poll

NUFI = str(Path(sys.executable).with_name("nufi"))
PROJECT = "team-cli"
URL = re.compile(r"^https?://\S+$")


@dataclass
class Operator:
    sandbox: SandboxRun
    home: Path  # the operator's config directory and files
    admin: httpx.Client  # setup and cross-checks through the API

    @property
    def server(self) -> str:
        return str(self.sandbox.state["nufi_url"])

    def env(self) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("NUFI_", "LC_"))}
        return {**env, "NUFI_CONFIG_DIR": str(self.home / "config"), "LANG": "en_US.UTF-8"}

    def nufi(self, *args: str) -> Result:
        """The command, run in this process (`nufi login` runs as its own process)."""
        done = CliRunner().invoke(app, list(args), env=self.env())
        assert done.exit_code == 0, f"nufi {' '.join(args)}: {done.exit_code}\n{done.output}"
        return done


@pytest.fixture(scope="module")
def operator(sandbox: SandboxRun, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Operator]:
    state = sandbox.state
    with httpx.Client(
        base_url=state["nufi_url"], headers=bearer(token(state, "admin", "admin")), timeout=30.0
    ) as admin:
        # The LPU nodes get their devices from the mock device plugins a moment after the sandbox is up.
        poll(
            lambda: admin.post("/api/v1/admin/devices", json=LPU_REGISTRATION).status_code == 201,
            60,
            every=1.0,
            what="the LPU registered",
        )
        created = admin.post("/api/v1/admin/projects", json={"name": PROJECT, "members": []})
        assert created.status_code == 201, created.text
        yield Operator(sandbox, tmp_path_factory.mktemp("operator"), admin)


def test_login_signs_in_through_the_browser_and_whoami_says_who(operator: Operator) -> None:
    login = subprocess.Popen(
        [NUFI, "login", "--server", operator.server, "--no-browser", "--timeout", "60"],
        env=operator.env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert login.stderr is not None
        url = next(line.strip() for line in login.stderr if URL.match(line.strip()))
        query = dict(parse_qsl(urlsplit(url).query))
        assert (query["client_id"], query["code_challenge_method"]) == ("nufi-cli", "S256")
        sign_in_at(url, "admin", "admin")
        out, err = login.communicate(timeout=30)
    finally:
        if login.poll() is None:
            login.kill()
    assert login.returncode == 0, err
    assert f"Signed in to {operator.server} as admin" in out
    tokens = list((operator.home / "config" / "tokens").iterdir())
    assert len(tokens) == 1 and tokens[0].stat().st_mode & 0o777 == 0o600

    # The server of the login is remembered: no --server from here on.
    assert operator.nufi("whoami").stdout.strip() == f"admin at {operator.server} (administrator)"
    assert json.loads(operator.nufi("whoami", "-o", "json").stdout)["is_admin"] is True


def test_monitor_once_prints_the_apis_snapshot(operator: Operator) -> None:
    # In this process, so that the command and the plain GET read the same evaluation of the type.
    runner = CliRunner()

    def same() -> bool:
        run = runner.invoke(app, ["monitor", "lpu", "--once", "-o", "json"], env=operator.env())
        assert run.exit_code == 0, run.output
        printed = json.loads(run.stdout)
        answered = operator.admin.get("/api/v1/monitoring/lpu").json()
        # Two reads of one evaluation differ only in how old it is by then.
        printed.pop("age_seconds"), answered.pop("age_seconds")
        return bool(printed["nodes"]) and printed == answered

    poll(same, 30, every=0.2, what="`nufi monitor lpu --once -o json` equal to GET /api/v1/monitoring/lpu")


def test_live_monitor_through_a_pipe_prints_each_snapshot_in_korean_on_local_time(operator: Operator) -> None:
    env = {**operator.env(), "LANG": "ko_KR.UTF-8", "TZ": "Asia/Seoul", "COLUMNS": "80"}
    watch = subprocess.Popen([NUFI, "monitor", "lpu"], env=env, stdout=subprocess.PIPE, text=True)
    try:
        assert watch.stdout is not None
        # Two snapshots must arrive while the command still runs: each is written as it comes.
        blocks: list[list[str]] = [[]]
        for line in watch.stdout:
            if not line.strip():
                blocks.append([])
                if len(blocks) > 2:
                    break
            else:
                blocks[-1].append(line.rstrip())
        assert watch.poll() is None, "the monitor ended instead of following the stream"
    finally:
        watch.kill()
        watch.wait(10)
    first = blocks[0]
    assert re.fullmatch(
        r"lpu · \d{4}-\d\d-\d\d \d\d:\d\d:\d\d KST \(노드 3개, 장치 12개\)", first[0].strip()
    ), first
    # Each node a heading above its devices' readings, all within 80 columns.
    nodes = sorted(line.split()[1] for line in first if line.startswith("노드 "))
    # The third is the DRA node, whose exporter reports its LPUs like the others'.
    assert nodes == ["lpu-node-1", "lpu-node-2", "lpu-node-3"], first
    heads = [line.replace("┃", " ").split() for line in first if "┃" in line]
    assert heads[0] == ["장치", "사용률", "%", "메모리", "온도", "°C", "전력", "W", "헬스"], first
    assert max(cell_len(line) for line in first) <= 80, first
    rows = [line for line in first if line.count("│") == 5]
    # The sandbox's LPU registration maps no health expression: the column says so.
    assert len(rows) == 12 and all("매핑 안 됨" in row for row in rows), first


def test_a_pack_exported_deleted_and_applied_comes_back_byte_for_byte(operator: Operator) -> None:
    pack = operator.home / "packs" / "lpu.yaml"
    pack.parent.mkdir()
    # Thresholds of the admin's own, so that the pack carries them.
    put = operator.admin.put("/api/v1/admin/devices/lpu/alerts", json={"hot": {"celsius": 80.0}})
    assert put.status_code == 200, put.text
    exported = operator.nufi("devices", "export", "lpu").stdout
    pack.write_text(exported)
    operator.nufi("devices", "delete", "lpu", "--yes")
    assert operator.admin.get("/api/v1/devices/lpu").status_code == 404

    applied = operator.nufi("devices", "apply", "-f", str(pack.parent), "-o", "json").stdout
    assert [(r["name"], r["action"]) for r in json.loads(applied)["results"]] == [("lpu", "created")]
    assert operator.nufi("devices", "export", "lpu").stdout == exported

    audit = operator.admin.get("/api/v1/admin/audit").json()["total"]
    again = operator.nufi("devices", "apply", "-f", str(pack)).stdout
    assert "lpu: unchanged" in again and "0 created, 0 updated, 1 unchanged" in again
    assert operator.admin.get("/api/v1/admin/audit").json()["total"] == audit


def test_diff_shows_a_changed_alert_threshold_and_changes_nothing(operator: Operator) -> None:
    pack = operator.home / "packs" / "lpu.yaml"
    (document,) = parse_packs(pack.read_text())
    assert document["spec"]["alerts"]["hot"]["celsius"] == 80.0
    document["spec"]["alerts"]["hot"]["celsius"] = 77.0
    pack.write_text(dump_packs([document]))
    shown = operator.nufi("devices", "diff", "-f", str(pack)).stdout
    assert "lpu: updated" in shown and "spec.alerts.hot.celsius:" in shown, shown
    assert "- 80.0" in shown and "+ 77.0" in shown and "1 updated" in shown, shown
    assert operator.nufi("devices", "export", "lpu").stdout != pack.read_text()


def test_a_deployment_created_with_the_cli_becomes_ready(operator: Operator) -> None:
    image = operator.sandbox.state["images"]["inference"]
    created = operator.nufi(
        "deployments",
        "create",
        "llm",
        "-p",
        PROJECT,
        "--image",
        image,
        "--accelerator",
        "lpu:1",
        "--arg",
        "inference",
        "--port",
        "8000",
        "--readiness-path",
        "/health",
        "--wait",
        "120",
        "-o",
        "json",
    )
    body: dict[str, Any] = json.loads(created.stdout)
    assert (body["status"], body["ready_replicas"], body["accelerator"]["device_type"]) == ("Ready", 1, "lpu")
    listed = operator.nufi("deployments", "list", "-p", PROJECT).stdout
    assert "llm" in listed and "lpu:1" in listed and "Ready" in listed
    shown = operator.nufi("deployments", "get", "llm", "-p", PROJECT).stdout
    assert f"http://llm.{PROJECT}.svc.cluster.local:8000" in shown and "/api/v1/" not in shown, shown
    operator.nufi("deployments", "delete", "llm", "-p", PROJECT, "--yes")
