"""A refused policy is told in the reader's words through the API's problem body: an own condition's
PromQL that does not parse reads as a type's metric does, and nothing of Python's notation (a message's
or a mapping's repr, `True`) reaches `detail` or an error's message, however the body is nested."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

from nufi.api import create_app
from nufi.config import Settings
from nufi.thermal.policy import ThermalPolicy
from support.asgi import serving
from support.env import clear_nufi_env

PYTHON_NOTATION = ("Message(", "{'", "True", "False", "None")
UNPARSABLE = {"enabled": True, "name": "x", "expression": "sum(", "trip_at": 1, "resume_at": 0}


@pytest.fixture
async def client(monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[httpx.AsyncClient]:
    clear_nufi_env(monkeypatch)
    app = create_app(Settings())

    # The admin route's body, without its sign-in: the refusal is the model's and the handler's.
    @app.put("/policy")
    async def put(policy: ThermalPolicy) -> dict[str, bool]:
        return {"enabled": policy.enabled}

    async with serving(app) as http:
        yield http


async def _refused(client: httpx.AsyncClient, body: object, language: str) -> dict[str, Any]:
    answer = await client.put("/policy", json=body, headers={"Accept-Language": language})
    assert answer.status_code == 422, answer.text
    refused: dict[str, Any] = answer.json()
    return refused


@pytest.mark.parametrize(
    ("language", "said"),
    [
        ("en", "cannot parse 'sum(': unclosed left parenthesis (fix the PromQL expression)"),
        ("ko", "PromQL 식 sum(을(를) 해석할 수 없습니다"),
    ],
)
async def test_an_own_condition_that_does_not_parse_is_worded_like_a_type_metric(
    client: httpx.AsyncClient, language: str, said: str
) -> None:
    body = await _refused(client, {"enabled": True, "custom": UNPARSABLE}, language)
    assert said in body["detail"], body["detail"]
    assert said in body["errors"][0]["message"]
    assert body["errors"][0]["code"] == "device_type.promql_unparsable"
    assert not [mark for mark in PYTHON_NOTATION if mark in body["detail"]], body["detail"]


@pytest.mark.parametrize(
    "body",
    [
        {"enabled": True, "custom": UNPARSABLE},
        {"custom": {**UNPARSABLE, "expression": None}},
        {"custom": {**UNPARSABLE, "trip_at": 0, "resume_at": 5}},
        {"custom": {**UNPARSABLE, "enabled": "yes"}},
        {"custom": [UNPARSABLE, True]},
        {"unhealthy": {"enabled": None, "trip_hold_seconds": False}},
        {"breaker": {"max_node_share": [0.5, {"a": True}]}},
        {"trip_celsius": 60, "resume_celsius": 70, "custom": UNPARSABLE},
        {"scope": {"rack": True}},
        [{"enabled": True}],
    ],
)
@pytest.mark.parametrize("language", ["en", "ko"])
async def test_no_python_notation_reaches_a_reader_of_a_nested_bad_body(
    client: httpx.AsyncClient, body: object, language: str
) -> None:
    refused = await _refused(client, body, language)
    said = [refused["detail"], *(error["message"] for error in refused["errors"])]
    assert not [(mark, text) for text in said for mark in PYTHON_NOTATION if mark in text], said
