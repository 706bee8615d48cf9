"""The README's "First steps" commands, pasted into bash as they are, against a fresh sandbox; then
SIGTERM."""

from __future__ import annotations

import re
import signal
import subprocess
from pathlib import Path

from e2e.e2e_sandbox_support import SandboxRun

ROOT = Path(__file__).resolve().parents[3]
# What each command block must print, in the order of the blocks: one fragment of the block itself
# (so a reordered document fails clearly) and what its output must contain.
EXPECTED: list[tuple[str, list[str]]] = [
    ("/api/v1/me", ['"is_admin": true', '"username": "admin"']),
    ("lpu_temperature_celsius", ["'hyperaccel.ai/lpu': '4'", "lpu-node-1 4\n", "lpu-node-2 4\n"]),
    ("check-resource-key", ["✓ Resource detected in the cluster.", '"found": true', '"name": "lpu-node-2"']),
    ("check-metrics", ['"ok": true', '"series": 8']),
    ("/api/v1/admin/devices", ["HTTP 201", '"kind":"custom"']),
    ("/api/v1/devices", ["lpu custom hyperaccel.ai/lpu", "nvidia-gpu official nvidia.com/gpu"]),
    (
        "/api/v1/monitoring/lpu",
        ["lpu 2 nodes 8 devices", "nvidia-gpu 1 nodes 8 devices", '"devices": 8', '"device": "lpu3"'],
    ),
    ("USER_TOKEN", ['"status": 403', "HTTP 200"]),
    ("team-a", ['"members": [\n        "user"\n    ]', "chat is Ready", "      3 chat-"]),
]


def first_steps_text() -> str:
    """The "First steps" section of the README."""
    readme = (ROOT / "README.md").read_text()
    found = re.search(r"^(#+) First steps\b.*?(?=^\1 |\Z)", readme, flags=re.M | re.S)
    assert found is not None, "README.md has no First steps section"
    return found.group(0)


def sh_blocks(markdown: str) -> list[str]:
    return re.findall(r"^```sh\n(.*?)^```", markdown, flags=re.M | re.S)


def test_the_document_has_the_expected_blocks() -> None:
    blocks = sh_blocks(first_steps_text())
    assert len(blocks) == len(EXPECTED)
    for block, (fragment, _) in zip(blocks, EXPECTED, strict=True):
        assert fragment in block, f"expected a block with {fragment!r}, got:\n{block}"


def test_first_steps_work_when_pasted(sandbox: SandboxRun) -> None:
    blocks = sh_blocks(first_steps_text())
    script = "set -eo pipefail\n" + "".join(
        f"echo '@@ block {index}'\n{block}" for index, block in enumerate(blocks)
    )
    # Run from the directory holding .sandbox/, as a user does from the repository.
    done = subprocess.run(
        ["bash", "-c", script], cwd=sandbox.work, capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, f"{done.stdout}\n{done.stderr}"
    outputs = re.split(r"^@@ block \d+\n", done.stdout, flags=re.M)[1:]
    assert len(outputs) == len(EXPECTED), done.stdout
    for index, (output, (fragment, wanted)) in enumerate(zip(outputs, EXPECTED, strict=True)):
        for text in wanted:
            assert text in output, f"block {index} ({fragment}) did not print {text!r}:\n{output}"


def test_sigterm_stops_every_program(sandbox: SandboxRun) -> None:
    assert len(sandbox.children) == 12, sandbox.children
    sandbox.interrupt(signal.SIGTERM)
    assert sandbox.wait_exit() == 0, sandbox.text()
    assert sandbox.leftovers() == []
    assert "SIGTERM received" in sandbox.text()
