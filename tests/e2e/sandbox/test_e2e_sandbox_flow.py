"""The seed's story against a running sandbox, through the API only; the DRA node's LPUs through
kubectl, a pod and the exporter; then Ctrl-C, and a restart in the same state directory that keeps the
registered LPU and ends in a crash."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
import yaml

from e2e.e2e_sandbox_support import (
    LPU,
    LPU_REGISTRATION,
    SandboxRun,
    bearer,
    token,
)
from nufi_sandbox.processes import describe_pid, free_port
from support.lpu_type import LPU_LABELS, LPU_METRICS
from support.polling import poll

from .sandbox_dra_support import (
    DRA_NODE,
    kubectl,
    pinned_pod,
    ready_pod,
    served_by,
    service,
    slices_of,
    wait_attributed,
)

GIB = 1024**3
LPU_NODES = ["lpu-node-1", "lpu-node-2"]
# The third LPU node hands its LPUs out by DRA alone: not in capacity, so not in NuFi's inventory yet,
# but its exporter reports them like the others (4 devices of 32 GiB).
ALL_LPU_NODES = [*LPU_NODES, DRA_NODE]
STATE_KEYS = {
    "nufi_url",
    "prometheus_url",
    "kube_api_url",
    "kubeconfig",
    "oidc_issuer",
    "token_url",
    "alertmanager_url",
    "alert_rules_dir",
    "exporters",
    "exporter_base_urls",
    "kube_token",
    "exporter_control_token",
    "users",
    "images",
}


def test_sandbox_json_says_where_everything_runs(sandbox: SandboxRun) -> None:
    state = sandbox.state
    assert set(state) == STATE_KEYS
    assert state["nufi_url"] == f"http://127.0.0.1:{sandbox.port}"
    assert state["users"] == {"admin": "admin", "user": "user"}
    assert state["images"] == {
        "inference": "nufi-mock:0.1.0",
        "jupyter": "quay.io/jupyter/base-notebook:latest",
        "vscode": "codercom/code-server:latest",
    }
    assert state["oidc_issuer"].endswith("/realms/super-llm")
    assert set(state["exporters"]) == {"gpu-node-1", "npu-node-1", "npu-node-2", *ALL_LPU_NODES}
    assert Path(state["alert_rules_dir"]) == sandbox.state_dir.resolve() / "alert-rules"
    assert Path(state["alert_rules_dir"]).is_dir()
    for url in [
        state["kube_api_url"] + "/readyz",
        state["prometheus_url"] + "/-/ready",
        state["alertmanager_url"] + "/-/ready",
    ]:
        assert httpx.get(url, timeout=5).status_code == 200, url
    families = {
        "gpu-node-1": "DCGM_FI_DEV_GPU_UTIL",
        "npu-node-1": "furiosa_npu_core_utilization",
        "npu-node-2": "rbln_npu_utilization",
        "lpu-node-1": "lpu_utilization_percent",
        "lpu-node-2": "lpu_utilization_percent",
        DRA_NODE: "lpu_utilization_percent",
    }
    for node, url in state["exporters"].items():
        assert families[node] in httpx.get(url, timeout=5).text, node
    assert set(state["exporter_base_urls"]) == set(state["exporters"])
    for node, base in state["exporter_base_urls"].items():
        # The base the README steers the exporter with: its control endpoint answers below it, to the
        # holder of the control token alone.
        control = {"Authorization": f"Bearer {state['exporter_control_token']}"}
        assert "overrides" in httpx.get(f"{base}/control/override", headers=control, timeout=5).json(), node
        assert httpx.get(f"{base}/control/override", timeout=5).status_code == 401, node
    # The kubeconfig names the API's https port (kubectl sends a token over TLS only) and its token.
    kubeconfig = yaml.safe_load(Path(state["kubeconfig"]).read_text())
    assert kubeconfig["clusters"][0]["cluster"]["server"].startswith("https://127.0.0.1:")
    assert kubeconfig["users"][0]["user"]["token"] == state["kube_token"]
    refused = httpx.get(state["kube_api_url"] + "/api/v1/nodes", timeout=5)
    assert refused.status_code == 401 and refused.json()["reason"] == "Unauthorized"


def test_nodes_advertise_the_seed_topology(sandbox: SandboxRun) -> None:
    kube = {"Authorization": f"Bearer {sandbox.state['kube_token']}"}
    listed = httpx.get(sandbox.state["kube_api_url"] + "/api/v1/nodes", headers=kube, timeout=5)
    nodes = listed.json()["items"]
    capacity = {
        n["metadata"]["name"]: {k: v for k, v in n["status"]["capacity"].items() if "/" in k} for n in nodes
    }
    assert capacity == {
        "gpu-node-1": {"nvidia.com/gpu": "8"},
        "npu-node-1": {"furiosa.ai/rngd": "8"},
        "npu-node-2": {"rebellions.ai/ATOM": "4"},
        "lpu-node-1": {LPU: "4"},
        "lpu-node-2": {LPU: "4"},
        DRA_NODE: {},  # DRA-backed devices never appear in node capacity
    }


def test_dcgm_is_scraped_like_a_service_monitor(sandbox: SandboxRun) -> None:
    """honor_labels false with the exporter pod as target labels: a workload's own pod label would
    arrive as exported_pod, as in real clusters."""
    prom = sandbox.state["prometheus_url"]
    response = httpx.get(f"{prom}/api/v1/query", params={"query": "DCGM_FI_DEV_GPU_UTIL"}, timeout=5)
    series = [item["metric"] for item in response.json()["data"]["result"]]
    assert len(series) == 8
    assert {s["pod"] for s in series} == {"nvidia-dcgm-exporter-gpu-node-1"}
    assert {s["Hostname"] for s in series} == {"gpu-node-1"}
    # NuFi starts after Prometheus, so its own target may still show its first, failed scrape.
    targets = poll(lambda: _targets_if_all_up(prom), 30, 0.5, "every target up")
    assert sorted(t["labels"]["job"] for t in targets) == sorted(
        [
            "dcgm-exporter",
            "furiosa-metrics-exporter",
            "rbln-metrics-exporter",
            *["mock-lpu-exporter"] * 3,
            # NuFi itself: the capacity its generated alerting rules compare with (docs/alerts.md).
            "nufi",
        ]
    )
    assert {t["scrapeInterval"] for t in targets if "scrapeInterval" in t} <= {"1s"}


def _targets_if_all_up(prom: str) -> list[dict[str, Any]] | None:
    answer = httpx.get(f"{prom}/api/v1/targets", timeout=5).json()
    targets: list[dict[str, Any]] = answer["data"]["activeTargets"]
    return targets if targets and all(t["health"] == "up" for t in targets) else None


def _assert_the_lpu_is_found(api: httpx.Client, admin: dict[str, str]) -> None:
    """Before registering: the resource key is on both LPU nodes and every metric has a series per device."""
    check = api.post("/api/v1/admin/devices/check-resource-key", json={"resource_key": LPU}, headers=admin)
    assert check.status_code == 200, check.text
    assert check.json()["found"] is True
    assert check.json()["nodes"] == [{"name": node, "capacity": 4, "allocatable": 4} for node in LPU_NODES]

    metrics = api.post(
        "/api/v1/admin/devices/check-metrics",
        json={"labels": LPU_LABELS, "metrics": LPU_METRICS},
        headers=admin,
    )
    assert metrics.status_code == 200, metrics.text
    assert metrics.json()["ok"] is True, metrics.text
    # The DRA node's exporter reports its 4 LPUs too.
    assert {name: r["series"] for name, r in metrics.json()["results"].items()} == {
        "utilization": 12,
        "memory_used": 12,
        "memory_total": 12,
        "temperature": 12,
    }


def _assert_every_admin_route_is_refused(api: httpx.Client, user: dict[str, str]) -> None:
    admin_routes: list[tuple[str, str, dict[str, Any] | None]] = [
        ("POST", "/api/v1/admin/devices/check-resource-key", {"resource_key": LPU}),
        ("POST", "/api/v1/admin/devices/check-metrics", {"labels": LPU_LABELS, "metrics": LPU_METRICS}),
        ("POST", "/api/v1/admin/devices", {**LPU_REGISTRATION, "id": "lpu-2"}),
        ("DELETE", "/api/v1/admin/devices/lpu", None),
        ("GET", "/api/v1/admin/audit", None),
        ("GET", "/api/v1/admin/devices/lpu/pack", None),
        ("POST", "/api/v1/admin/device-packs/apply", {"documents": [], "dry_run": True}),
    ]
    for method, path, body in admin_routes:
        refused = api.request(method, path, json=body, headers=user)
        assert refused.status_code == 403, (method, path, refused.text)
        assert refused.headers["content-type"].startswith("application/problem+json")


def test_seed_flow_through_the_api(sandbox: SandboxRun) -> None:
    state = sandbox.state
    admin, user = bearer(token(state, "admin", "admin")), bearer(token(state, "user", "user"))
    with httpx.Client(base_url=state["nufi_url"], timeout=20) as api:
        me = api.get("/api/v1/me", headers=admin)
        assert me.status_code == 200 and me.json()["is_admin"] is True

        # The LPU is in the cluster but not in NuFi: registering it is the user's first task.
        assert api.get("/api/v1/devices/lpu", headers=admin).status_code == 404

        _assert_the_lpu_is_found(api, admin)

        created = api.post("/api/v1/admin/devices", json=LPU_REGISTRATION, headers=admin)
        assert created.status_code == 201, created.text
        assert created.json()["kind"] == "custom"
        assert created.headers["location"] == "/api/v1/devices/lpu"

        snapshot = api.get("/api/v1/monitoring/lpu", headers=admin)
        assert snapshot.status_code == 200, snapshot.text
        _assert_lpu_snapshot(snapshot.json())

        overview = api.get("/api/v1/monitoring/overview", headers=admin)
        assert overview.status_code == 200, overview.text
        rows = {row["device_type"]: row["summary"] for row in overview.json()["items"]}
        assert {name: (row["nodes"], row["devices"]) for name, row in rows.items()} == {
            "nvidia-gpu": (1, 8),
            "furiosa-rngd": (1, 8),
            "rebellions-atom": (1, 4),
            "lpu": (3, 12),
        }

        audit = api.get("/api/v1/admin/audit", params={"target_id": "lpu"}, headers=admin).json()
        assert [(item["actor"], item["target_id"]) for item in audit["items"]][:1] == [("admin", "lpu")]

        # Without the nufi-admin role: every admin route is refused, monitoring stays readable.
        _assert_every_admin_route_is_refused(api, user)
        as_user = api.get("/api/v1/monitoring/lpu", headers=user)
        assert as_user.status_code == 200, as_user.text
        assert as_user.json()["summary"]["devices"] == 12
        assert api.get("/api/v1/devices/lpu", headers=admin).status_code == 200  # the DELETE was refused


def _assert_lpu_snapshot(body: dict[str, Any]) -> None:
    device_type = body["device_type"]
    assert (device_type["id"] if isinstance(device_type, dict) else device_type) == "lpu"
    assert body["summary"]["nodes"] == 3
    assert body["summary"]["devices"] == 12
    assert body["summary"]["memory_total_bytes"] == (8 * 16 + 4 * 32) * GIB
    assert body["summary"]["power_watts"] is None
    assert [node["node"] for node in body["nodes"]] == ALL_LPU_NODES
    for node in body["nodes"]:
        # NuFi counts capacity by the resource key; the DRA node's devices are read, not counted.
        counted = 0 if node["node"] == DRA_NODE else 4
        assert node["capacity"] == counted and node["allocatable"] == counted
        assert sorted(d["device"] for d in node["devices"]) == ["lpu0", "lpu1", "lpu2", "lpu3"]
        for device in node["devices"]:
            where = f"{node['node']}/{device['device']}"
            size = (32 if node["node"] == DRA_NODE else 16) * GIB
            assert 0 <= device["utilization_percent"] <= 100, where
            assert 0 < device["memory_used_bytes"] <= device["memory_total_bytes"] == size, where
            assert 20 <= device["temperature_celsius"] <= 100, where
            assert device["power_watts"] is None, where


def test_the_dra_node_serves_lpus_by_claim_and_the_same_pod_runs_on_either_kind_of_node(
    sandbox: SandboxRun,
) -> None:
    state, home = sandbox.state, str(sandbox.work)
    table = kubectl(state, home, "get", "resourceslices")
    assert DRA_NODE in table and "lpu.hyperaccel.ai" in table, table
    [published] = [s for s in slices_of(state, home) if s["spec"]["nodeName"] == DRA_NODE]
    devices = published["spec"]["devices"]
    assert [d["name"] for d in devices] == ["lpu0", "lpu1", "lpu2", "lpu3"]
    assert {d["capacity"]["memory"]["value"] for d in devices} == {"32Gi"}
    assert kubectl(state, home, "get", "deviceclass", "lpu.hyperaccel.ai", "-o", "name").strip()
    kube_headers = {"Authorization": f"Bearer {state['kube_token']}"}
    with httpx.Client(base_url=state["kube_api_url"], headers=kube_headers, timeout=20) as kube:
        for name, node in (("dra-infer", DRA_NODE), ("plugin-infer", "lpu-node-1")):
            assert kube.post("/api/v1/namespaces/default/services", json=service(name)).status_code == 201
            created = kube.post("/api/v1/namespaces/default/pods", json=pinned_pod(name, node, 2))
            assert created.status_code == 201, created.text
        for name, node in (("dra-infer", DRA_NODE), ("plugin-infer", "lpu-node-1")):
            pod = ready_pod(kube, name)
            served = served_by(kube, name)
            assert served["node"] == node and len(served["devices"]) == 2, served
            bridged = pod["status"].get("extendedResourceClaimStatus")
            # On the DRA node the scheduler made the pod's special claim; the plugin node needs none.
            assert (bridged is not None) is (node == DRA_NODE), pod["status"]
            wait_attributed(state["exporters"][node], name, set(served["devices"]))
        for name in ("dra-infer", "plugin-infer"):
            kube.delete(f"/api/v1/namespaces/default/pods/{name}")
            kube.delete(f"/api/v1/namespaces/default/services/{name}")


def test_the_logs_hold_no_token_cookie_or_secret(sandbox: SandboxRun) -> None:
    state = sandbox.state
    admin_token, user_token = token(state, "admin", "admin"), token(state, "user", "user")
    cookie = "nufi_session=s3cr3t-cookie-value"
    with httpx.Client(base_url=state["nufi_url"], timeout=20) as api:
        for headers in (bearer(admin_token), bearer(user_token), bearer(admin_token[:-4] + "AAAA")):
            api.get("/api/v1/me", headers={**headers, "Cookie": cookie})
            api.post("/api/v1/admin/devices/check-resource-key", json={"resource_key": 1}, headers=headers)
            api.get("/api/v1/devices/no-such-type", headers=headers)
    logs = [path for path in sandbox.state_dir.rglob("*.log") if path.is_file()]
    # The requests were logged (so the scan below reads what they left), just not their credentials.
    assert any("/api/v1/devices/no-such-type" in path.read_text(errors="replace") for path in logs), logs
    secrets = {
        "an access token": admin_token.split(".")[2][:24],
        "another access token": user_token.split(".")[2][:24],
        "a cookie": "s3cr3t-cookie-value",
        "a password grant": "password=admin",
    }
    for path in logs:
        text = path.read_text(errors="replace")
        for what, value in secrets.items():
            assert value not in text, f"{path.name} logs {what}"


def test_a_second_sandbox_on_the_same_state_dir_is_refused(sandbox: SandboxRun) -> None:
    port = free_port()
    second = subprocess.run(
        [sys.executable, "-m", "nufi_sandbox", "--state-dir", str(sandbox.state_dir), "--port", str(port)],
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    assert second.returncode == 1
    assert f"another sandbox (pid {sandbox.process.pid})" in second.stdout, second.stdout
    assert "--state-dir" in second.stdout
    # The running sandbox is untouched: still ready, its state file still there.
    assert httpx.get(f"{sandbox.state['nufi_url']}/readyz", timeout=5).status_code == 200
    assert (sandbox.state_dir / "sandbox.json").exists()


def test_ctrl_c_stops_every_program(sandbox: SandboxRun) -> None:
    # The dev cluster, identity provider, Alertmanager, Prometheus, 2 device plugins, a DRA driver, 6
    # exporters and NuFi.
    assert len(sandbox.children) == 14, sandbox.children
    assert sandbox.leftovers() != []
    sandbox.interrupt(signal.SIGINT)
    assert sandbox.wait_exit() == 0, sandbox.text()
    assert sandbox.leftovers() == []
    assert not (sandbox.state_dir / "sandbox.json").exists()
    assert "stopped" in sandbox.text()


def test_a_restart_keeps_the_lpu_and_a_crash_stops_everything(sandbox: SandboxRun) -> None:
    """Runs after the tests above: the LPU was registered, then the sandbox stopped."""
    sandbox.cleanup()  # nothing to do unless the Ctrl-C test failed
    assert (sandbox.state_dir / "nufi.db").exists()
    again = SandboxRun.start(sandbox.work, port=sandbox.port, args=("--stop-on-failure",))
    try:
        state = again.wait_ready()
        assert "The LPU is registered in NuFi as `lpu`" in again.text(), again.text()
        admin = bearer(token(state, "admin", "admin"))
        snapshot = httpx.get(f"{state['nufi_url']}/api/v1/monitoring/lpu", headers=admin, timeout=20)
        assert snapshot.status_code == 200, snapshot.text
        # The exporters came back on new ports: no device may appear twice through old series.
        devices = [(n["node"], d["device"]) for n in snapshot.json()["nodes"] for d in n["devices"]]
        assert len(devices) == len(set(devices)) == 12

        # One program dies: with --stop-on-failure the sandbox says which, stops all the others and
        # fails (without, it restarts the program: test_e2e_sandbox_supervision).
        exporter = next(pid for pid in again.children if "exporter --profile lpu" in describe_pid(pid))
        os.kill(exporter, signal.SIGKILL)
        assert again.wait_exit() == 1, again.text()
        assert re.search(r"exporter-lpu-node-\d exited unexpectedly", again.text()), again.text()
        assert again.leftovers() == []
        assert not (again.state_dir / "sandbox.json").exists()
    finally:
        again.cleanup()
