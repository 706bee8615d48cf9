"""The README's "First steps" commands, pasted into bash as they are, against a fresh sandbox, each
printing what the README shows; then its `nufi` commands in a terminal; then SIGTERM."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
from pathlib import Path

import pytest

from e2e.e2e_sandbox_support import SandboxRun, sign_in_at
from e2e.sandbox.readme_console import README_SERVER, Terminal, console_commands
from nufi.packs import parse_packs

ROOT = Path(__file__).resolve().parents[3]
# What each command block must print, in the order of the blocks: one fragment of the block itself
# (so a reordered document fails clearly) and what its output must contain.
EXPECTED: list[tuple[str, list[str]]] = [
    ("/api/v1/me", ['"is_admin": true', '"username": "admin"']),
    (
        "lpu_temperature_celsius",
        ["'hyperaccel.ai/lpu': '4'", "lpu-node-1 4\n", "lpu-node-2 4\n", "lpu-node-3 4\n"],
    ),
    ("check-resource-key", []),  # the README quotes its whole answer
    ("check-metrics", ['"ok": true', '"series": 12']),
    ("/api/v1/admin/devices", ["HTTP 201", '"kind":"custom"']),
    ("/api/v1/devices", ["lpu custom hyperaccel.ai/lpu", "nvidia-gpu official nvidia.com/gpu"]),
    (
        "/api/v1/monitoring/lpu",
        ["lpu 3 nodes 12 devices", "nvidia-gpu 1 nodes 8 devices", '"devices": 12', '"device": "lpu3"'],
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


def quoted_answers(markdown: str) -> dict[int, object]:
    """The JSON the README shows right under a block, by the block's index."""
    blocks = re.findall(r"^```sh\n.*?^```\n+(?:```json\n(.*?)^```)?", markdown, flags=re.M | re.S)
    return {index: json.loads(quoted) for index, quoted in enumerate(blocks) if quoted}


def plain(output: str) -> str:
    """What a terminal shows: no colour codes."""
    return re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", output)


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
    quoted = quoted_answers(first_steps_text())
    assert list(quoted) == [2]
    for index, answer in quoted.items():
        assert json.loads(outputs[index]) == answer, f"block {index} printed:\n{outputs[index]}"


@pytest.fixture(scope="module")
def terminal(sandbox: SandboxRun, tmp_path_factory: pytest.TempPathFactory) -> Terminal:
    """A terminal in the directory holding .sandbox/, with the repository's .venv beside it. BROWSER
    opens nothing: the test signs in where a person's browser would."""
    (sandbox.work / ".venv").symlink_to(ROOT / ".venv", target_is_directory=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NUFI_", "LC_"))}
    config = tmp_path_factory.mktemp("nufi-config")
    return Terminal(
        sandbox.work, {**env, "NUFI_CONFIG_DIR": str(config), "LANG": "en_US.UTF-8", "BROWSER": "true"}
    )


def _signs_in(output: str) -> bool:
    url = re.search(r"https?://\S+code_challenge=\S+", output)
    if url is not None:
        sign_in_at(url.group(0), "admin", "admin")
    return url is not None


def test_the_nufi_commands_print_what_the_readme_shows(sandbox: SandboxRun, terminal: Terminal) -> None:
    """After the blocks above (the LPU registered, team-a made), as the README orders them."""
    server = str(sandbox.state["nufi_url"])
    commands = console_commands(first_steps_text())
    assert [c.text.split()[1] for c in commands][:2] == ["login", "whoami"], commands
    for command in commands:
        text = command.text.replace(README_SERVER, server)
        if command.live:
            code, output = terminal.run(text, until=lambda seen: "lpu-node-2" in seen)
            assert code in (0, 130), output
        else:
            code, output = terminal.run(text, on_output=_signs_in if " login " in text else None)
            assert code == 0, f"{text}\n{output}"
        for line in command.shown:
            assert line.replace(README_SERVER, server) in plain(output), f"{text}\n{output}"
    # Where the pack went; whatever lands beside .sandbox/ must be ignored by git (the next test).
    (exported,) = [c.text.rsplit("> ", 1)[1].split()[0] for c in commands if " export " in c.text]
    (pack,) = parse_packs((sandbox.work / exported).read_text())
    assert pack["metadata"]["name"] == "lpu"


def test_what_the_steps_leave_behind_is_ignored_by_git(sandbox: SandboxRun) -> None:
    # The test's own record of the sandbox's output aside; a folder as git sees one, with its slash.
    left = [p.name + "/" * p.is_dir() for p in sandbox.work.iterdir() if not p.name.startswith("sandbox-")]
    assert ".sandbox/" in left
    ignored = subprocess.run(
        ["git", "check-ignore", "--no-index", *left], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert sorted(ignored.stdout.split()) == sorted(left), ignored


def test_sigterm_stops_every_program(sandbox: SandboxRun) -> None:
    # 2 device plugins and a DRA driver among them, with an exporter per node (6).
    assert len(sandbox.children) == 14, sandbox.children
    sandbox.interrupt(signal.SIGTERM)
    assert sandbox.wait_exit() == 0, sandbox.text()
    assert sandbox.leftovers() == []
    assert "SIGTERM received" in sandbox.text()
