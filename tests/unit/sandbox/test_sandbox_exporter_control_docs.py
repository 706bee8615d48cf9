"""The README's exporter control commands, as pasted: the `sandbox.json` field they read plus the paths
they name reach the mock exporter's control endpoint, which adds, lists and removes the override."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import httpx

from nufi_mock.exporter import ExporterConfig
from nufi_mock.exporter.app import build_engine, create_app
from nufi_sandbox.sandbox.state_file import SandboxState, exporter_base_url

README = Path(__file__).resolve().parents[3] / "README.md"
# `EXPORTER=$(python3 -c '... json.load(open(".sandbox/sandbox.json"))["<field>"]["<node>"])')`
_READS = re.compile(
    r'EXPORTER=\$\(python3 -c .*json\.load\(open\("\.sandbox/sandbox\.json"\)\)\["(\w+)"\]\["([\w-]+)"\]'
)
# `CONTROL="Authorization: Bearer $(python3 -c '... json.load(open(".sandbox/sandbox.json"))["<field>"])')"`
_TOKEN = re.compile(
    r'CONTROL="Authorization: Bearer \$\(python3 -c '
    r'.*json\.load\(open\("\.sandbox/sandbox\.json"\)\)\["(\w+)"\]\)'
)


def control_block() -> str:
    """The README's fenced shell block that steers the exporter."""
    blocks = re.findall(r"^```sh\n(.*?)^```", README.read_text(encoding="utf-8"), re.S | re.M)
    steering = [block for block in blocks if "/control/override" in block]
    assert len(steering) == 1, "the README has one block of exporter control commands"
    return str(steering[0])


def curl_requests(block: str) -> list[tuple[str, str, str | None, list[str]]]:
    """`(method, URL as written, body, headers as written)` of each curl command in the block."""
    found = []
    for command in block.replace("\\\n", " ").splitlines():
        words = shlex.split(command, posix=True)
        if not words or words[0] != "curl":
            continue
        body = words[words.index("-d") + 1] if "-d" in words else None
        method = words[words.index("-X") + 1] if "-X" in words else ("POST" if body else "GET")
        url = next(word for word in words[1:] if word.startswith("$EXPORTER"))
        headers = [words[i + 1] for i, word in enumerate(words) if word == "-H"]
        found.append((method, url, body, headers))
    return found


async def test_the_readme_commands_add_list_and_remove_an_override_on_the_sandbox_exporter() -> None:
    block = control_block()
    reads = _READS.search(block)
    assert reads, "the README reads the exporter's address from sandbox.json"
    field, node = reads.groups()
    token_read = _TOKEN.search(block)
    assert token_read, "the README reads the exporter's control token from sandbox.json"
    (token_field,) = token_read.groups()
    base = exporter_base_url(9850)
    state = SandboxState(
        nufi_url="http://127.0.0.1:8080",
        prometheus_url="http://127.0.0.1:9090",
        kube_api_url="http://127.0.0.1:6443",
        kubeconfig=Path("kubeconfig"),
        oidc_issuer="http://127.0.0.1:8180/realms/super-llm",
        token_url="http://127.0.0.1:8180/token",
        exporters={node: f"{base}/metrics"},
        alertmanager_url="http://127.0.0.1:9093",
        alert_rules_dir=Path("alert-rules"),
        exporter_base_urls={node: base},
        exporter_control_token="a-control-token",
    )
    written = json.loads(json.dumps(state.as_json()))
    exporter, token = written[field][node], written[token_field]
    requests = curl_requests(block)
    assert [method for method, _, _, _ in requests] == ["POST", "GET", "DELETE"]
    assert all(headers == ["$CONTROL"] for _, _, _, headers in requests)

    # The exporter as the sandbox starts it for an LPU node, served in process (its lifespan not run:
    # the control endpoint needs no ticking).
    config = ExporterConfig(profile="lpu", nodes=(node,), devices_per_node=4, control_token=token)
    engine = build_engine(config)
    transport = httpx.ASGITransport(app=create_app(engine))
    control = {"Authorization": f"Bearer {token}"}
    async with httpx.AsyncClient(transport=transport) as client:
        answers = []
        for method, url, body, _ in requests:
            target = url.replace("$EXPORTER", exporter)
            # Without the header the README adds, the exporter refuses and nothing is forced.
            assert (await client.request(method, target, content=body)).status_code == 401
            answers.append(await client.request(method, target, content=body, headers=control))
    added, listed, removed = answers
    assert added.status_code == 201, added.text
    assert listed.status_code == 200
    assert [item["metric"] for item in listed.json()["overrides"]] == ["temperature"]
    assert removed.status_code == 200
    assert [(item["node"], item["value"]) for item in removed.json()["removed"]] == [(node, 95.0)]
    assert engine.overrides.active(engine.clock()) == []
