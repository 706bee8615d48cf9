"""The lab wrapper starts a real JupyterLab under the pod's NB_PREFIX, and a kernel started through
its REST and WebSocket API sees the pod's environment (its LPU devices)."""

from __future__ import annotations

from pathlib import Path

import httpx

from nufi.workloads.labs.model import PROFILES
from nufi_sandbox.processes import ManagedProcess
from support.jupyter_kernel import run_in_kernel

from .runtime_support import start_runtime

PREFIX = "/labs/team-a/my-lab/"


def wait_serving(process: ManagedProcess, url: str) -> None:
    process.wait_ready(
        lambda: httpx.get(f"{url}api/status", timeout=2.0).status_code == 200,
        30.0,
        f"answering {url}api/status",
    )


async def test_jupyterlab_serves_under_the_prefix_and_its_kernels_see_the_pod_env(
    tmp_path: Path, logs_dir: Path
) -> None:
    workdir = tmp_path / "work"
    env = {"NB_PREFIX": PREFIX.rstrip("/"), "LPU_VISIBLE_DEVICES": "lpu1,lpu2"}
    # The args NuFi's manifest gives the upstream image: its start script is dropped, and options that
    # would move the server (ip, port, base_url) are not passed on.
    args = PROFILES["jupyter"].args()
    process, port = start_runtime("jupyter", workdir, logs_dir, env, *args)
    base = f"http://127.0.0.1:{port}{PREFIX}"
    try:
        wait_serving(process, base)
        async with httpx.AsyncClient(base_url=base, timeout=20.0) as client:
            status = (await client.get("api/status")).json()
            assert status["kernels"] == 0
            # Outside the prefix there is nothing: the proxy in front routes by it.
            assert (await client.get(f"http://127.0.0.1:{port}/api/status")).status_code == 404
            lab = await client.get("lab")
            assert lab.status_code == 200 and "JupyterLab" in lab.text
            # The XSRF check stays on: a POST without the cookie's token in a header is refused.
            assert (await client.post("api/kernels", json={"name": "python3"})).status_code == 403
            xsrf = client.cookies["_xsrf"]
            (workdir / "hello.txt").write_text("hi")
            contents = (await client.get("api/contents")).json()
            assert "hello.txt" in [item["name"] for item in contents["content"]]
            created = await client.post(
                "api/kernels", json={"name": "python3"}, headers={"X-XSRFToken": xsrf}
            )
            assert created.status_code == 201, created.text
            kernel = created.json()["id"]
            ws_url = f"ws://127.0.0.1:{port}{PREFIX}api/kernels/{kernel}/channels"
            code = "import os; print(os.environ['LPU_VISIBLE_DEVICES'], os.getcwd())"
            printed = await run_in_kernel(ws_url, code)
            assert printed.split() == ["lpu1,lpu2", str(workdir)]
            stopped = await client.delete(f"api/kernels/{kernel}", headers={"X-XSRFToken": xsrf})
            assert stopped.status_code == 204
        assert (workdir / ".jupyter" / "runtime").is_dir()
    finally:
        process.stop()
