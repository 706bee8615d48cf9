"""The VS Code stand-in serves its page at / (where code-server serves, behind a proxy that takes the
lab's path off) and under the pod's NB_PREFIX, says in Korean and English what it is, shows the
devices the pod got, and answers /healthz."""

from __future__ import annotations

from pathlib import Path

import httpx

from nufi.workloads.labs.model import PROFILES
from nufi_sandbox.runtime.vscode import NOTICE_EN, NOTICE_KO

from .runtime_support import start_runtime


def test_the_stand_in_serves_under_its_prefix(tmp_path: Path, logs_dir: Path) -> None:
    env = {"NB_PREFIX": "/labs/team-a/code", "LPU_VISIBLE_DEVICES": "lpu3", "NODE_NAME": "lpu-node-2"}
    # code-server's own arguments, as NuFi's manifest for its image carries them, are ignored.
    args = PROFILES["vscode"].args()
    process, port = start_runtime("vscode", tmp_path / "work", logs_dir, env, *args)
    base = f"http://127.0.0.1:{port}"
    try:
        process.wait_ready(lambda: httpx.get(f"{base}/healthz", timeout=1.0).status_code == 200, 15.0)
        for path in ("/labs/team-a/code/", "/"):
            page = httpx.get(f"{base}{path}", timeout=5.0)
            assert page.status_code == 200
            assert page.headers["content-type"].startswith("text/html")
            assert NOTICE_EN in page.text and NOTICE_KO in page.text
            assert "<code>lpu3</code>" in page.text and "lpu-node-2" in page.text
        bare = httpx.get(f"{base}/labs/team-a/code", timeout=5.0)
        assert bare.status_code == 307 and bare.headers["location"] == "/labs/team-a/code/"
        assert httpx.get(f"{base}/labs/team-a/code/healthz", timeout=5.0).json() == {"status": "ok"}
        facts = httpx.get(f"{base}/labs/team-a/code/api/stand-in", timeout=5.0).json()
        assert facts["editor"] == "stand-in"
        assert facts["env"]["LPU_VISIBLE_DEVICES"] == "lpu3"
        assert facts["workdir"] == str(tmp_path / "work")
        assert httpx.get(f"{base}/other/", timeout=5.0).status_code == 404
    finally:
        process.stop()
