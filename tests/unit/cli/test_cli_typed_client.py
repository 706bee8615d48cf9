"""The command line reads the API through typed views: commands render typed fields, a wrong answer
fails where it is parsed, and deployments and labs are listed, shown and deleted by the same parts."""

from __future__ import annotations

import ast
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from hypothesis import given
from hypothesis import strategies as st

import nufi.cli
from nufi.cli import deployments
from nufi.cli.client import Api
from nufi.cli.typed_client import NufiClient
from nufi.models.answers import Deployment, DeviceTypeRow, Lab
from nufi.packs.diff import ApplyOutcome
from unit.cli.conftest import SERVER, FakeServer

pytestmark = pytest.mark.unit

CLI_DIR = Path(nufi.cli.__file__).parent
# These read the identity provider's answers (OAuth and OpenID discovery), not NuFi's API, or run the
# server itself.
_NOT_API_READERS = {"login.py", "loopback.py", "tokens.py", "server.py", "pkce.py", "client.py"}
# Mappings that are no API answer: request headers and the environment.
_PLAIN_MAPPINGS = {"headers", "environ"}

LPU = {"id": "lpu", "name": "LPU", "resource_key": "acme.com/lpu", "vendor": "Acme", "enabled": True}
ACCELERATOR = {"device_type": "lpu", "resource_key": "acme.com/lpu", "count": 2}
DEPLOYMENT = {
    "name": "solo",
    "image": "vllm:1",
    "accelerator": ACCELERATOR,
    "replicas": 2,
    "ready_replicas": 1,
    "port": 8000,
    "status": "Pending",
    "reason": None,
    "urls": {"cluster": "solo.p.svc", "api_proxy": "/api/v1/namespaces/p/services/solo:8000/proxy/"},
}
LAB = {"name": "nb", "kind": "jupyter", "accelerator": ACCELERATOR, "status": "Running", "url": "/labs/p/nb/"}


def _dict_reads(source: str) -> list[str]:
    """`x.get("key")` and `x["key"]` reads in `source`, but for headers and the environment."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get":
            owner = node.func.value
            plain = isinstance(owner, ast.Attribute) and owner.attr in _PLAIN_MAPPINGS
            if node.args and isinstance(node.args[0], ast.Constant) and not plain:
                found.append(f"{node.lineno}: {ast.unparse(node)}")
        if not isinstance(node, ast.Subscript) or not isinstance(node.ctx, ast.Load):
            continue
        if isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, str):
            found.append(f"{node.lineno}: {ast.unparse(node)}")
    return found


def test_the_dict_read_finder_finds_both_forms() -> None:
    assert len(_dict_reads('body.get("items")\nrow["name"]\nrequest.headers.get("x")\nbody["a"] = 1')) == 2


@pytest.mark.parametrize(
    "module", sorted(p.name for p in CLI_DIR.glob("*.py") if p.name not in _NOT_API_READERS)
)
def test_no_command_reads_an_api_answer_as_a_dict(module: str) -> None:
    assert _dict_reads((CLI_DIR / module).read_text(encoding="utf-8")) == []


def _answer(server: FakeServer, body: object) -> None:
    server.handler = lambda request: httpx.Response(200, json=body)


def test_a_wrong_answer_fails_loudly_naming_the_field(server: FakeServer, run: Callable[..., Any]) -> None:
    _answer(server, {"items": [{"id": "lpu", "name": "LPU"}]})
    result = run("devices", "list")
    assert result.exit_code == 3
    assert (
        f"{SERVER}/api/v1/devices answered with something NuFi does not expect at items.0.resource_key"
        in (result.stderr)
    )


@given(st.one_of(st.none(), st.integers(), st.text(), st.lists(st.integers()), st.just({"items": "x"})))
def test_an_answer_of_the_wrong_shape_is_never_a_listing(data: object) -> None:
    api = Api(SERVER, token="t")
    api.http.close()
    api.http = httpx.Client(transport=httpx.MockTransport(lambda request: httpx.Response(200, json=data)))
    with api, pytest.raises(nufi.cli.exits.CliFailure) as failure:
        NufiClient(api).devices.list()
    assert failure.value.exit_code == 3


def test_the_client_returns_typed_views(server: FakeServer) -> None:
    applied = {"dry_run": True, "results": [{"name": "lpu", "action": "updated", "changes": []}]}
    answers = iter([{"items": [LPU]}, applied, DEPLOYMENT])
    server.handler = lambda request: httpx.Response(200, json=next(answers))
    with Api(SERVER, token="t") as api:
        nufi = NufiClient(api)
        listing = nufi.devices.list(enabled=True)
        outcome = nufi.packs.apply([], dry_run=True, force=False, prune=False)
        deployment = nufi.deployments.get("p", "solo")
    assert (
        listing.items == [DeviceTypeRow.model_validate(LPU)]
        and listing.items[0].resource_key == "acme.com/lpu"
    )
    assert isinstance(outcome, ApplyOutcome) and outcome.results[0].action == "updated"
    assert isinstance(deployment, Deployment) and deployment.accelerator.count == 2
    assert [r.url.path for r in server.requests] == [
        "/api/v1/devices",
        "/api/v1/admin/device-packs/apply",
        "/api/v1/projects/p/deployments/solo",
    ]
    assert server.requests[0].url.params["enabled"] == "true"


@pytest.mark.parametrize(
    ("group", "body", "shown"),
    [
        ("deployments", DEPLOYMENT, ["solo", "lpu:2", "1/2", "Pending"]),
        ("labs", LAB, ["nb", "lpu:2", "jupyter"]),
    ],
)
def test_both_kinds_are_listed_shown_and_deleted_alike(
    server: FakeServer, run: Callable[..., Any], group: str, body: dict[str, Any], shown: list[str]
) -> None:
    _answer(server, {"items": [body]})
    listed = run(group, "list", "-p", "p")
    assert listed.exit_code == 0, listed.output
    assert all(word in listed.stdout for word in shown)
    assert json.loads(run(group, "list", "-p", "p", "-o", "json").stdout) == {"items": [body]}
    _answer(server, body)
    got = run(group, "get", body["name"], "-p", "p")
    assert got.exit_code == 0 and all(word in got.stdout for word in shown)
    server.handler = lambda request: httpx.Response(204)
    deleted = run(group, "delete", body["name"], "-p", "p", "--yes")
    assert deleted.exit_code == 0 and deleted.stdout.strip() == f"Deleted {group[:-1]} {body['name']}."
    paths = [(r.method, r.url.path) for r in server.requests]
    base = f"/api/v1/projects/p/{group}"
    assert paths == [
        ("GET", base),
        ("GET", base),
        ("GET", f"{base}/{body['name']}"),
        ("DELETE", f"{base}/{body['name']}"),
    ]


def test_a_lab_opens_at_its_address_on_the_server(server: FakeServer, run: Callable[..., Any]) -> None:
    _answer(server, LAB)
    assert run("labs", "open", "nb", "-p", "p").stdout.strip() == f"{SERVER}/labs/p/nb/"
    assert isinstance(Lab.model_validate(LAB), Lab)


def test_create_waits_until_the_deployment_is_ready(
    server: FakeServer, run: Callable[..., Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(deployments, "_POLL_SECONDS", 0.0)
    answers = iter([DEPLOYMENT, DEPLOYMENT, {**DEPLOYMENT, "status": "Ready", "ready_replicas": 2}])
    server.handler = lambda request: httpx.Response(200, json=next(answers))
    result = run(
        "deployments",
        "create",
        "solo",
        "-p",
        "p",
        "--image",
        "vllm:1",
        "--accelerator",
        "lpu:2",
        "--wait",
        "30",
    )
    assert result.exit_code == 0, result.output
    assert "Created deployment solo." in result.stdout and "2/2" in result.stdout
    assert json.loads(server.requests[0].content)["accelerator"] == {"device_type": "lpu", "count": 2}
