"""The REST API's refusals in the caller's language, walked through the error states a person meets:
a wrong resource key, a PromQL parse error, an unknown type, a bad name, a count no node can hold, an
unknown type for a deployment, a bad time range, a bad thermal policy, a missing role, no sign-in and an
unknown path. With `Accept-Language: ko` every `title`, `detail` and field message is a Korean sentence
(values and technical fragments in quotes aside); in English none holds Hangul; both carry the same
`code`."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import httpx
import pytest

from support.languages import HANGUL, english_sentences, korean_in
from support.lpu_type import LPU_METRICS, lpu_type
from support.world import World, deployment_body

# Values and technical fragments are quoted in both languages: the parser's or Kubernetes' own words,
# a name as typed. They stay as they are, so they are not held to the reader's language.
QUOTED = re.compile(r"“[^”]*”|'[^']*'|\"[^\"]*\"|`[^`]*`")


@dataclass(frozen=True)
class Refusal:
    name: str
    method: str
    path: str
    who: str  # admin, user or nobody
    status: int
    body: dict[str, Any] | None = None


def refusals(project: str) -> list[Refusal]:
    deployments = f"/api/v1/projects/{project}/deployments"
    broken_expression = lpu_type(id="lpu-walk", resource_key="example.com/walk")
    broken_expression["metrics"] = {**LPU_METRICS, "utilization": "sum(lpu_utilization_percent"}
    return [
        Refusal(
            "wrong key",
            "POST",
            "/api/v1/admin/devices/check-resource-key",
            "admin",
            422,
            {"resource_key": "Bad Key!"},
        ),
        Refusal("parse error", "POST", "/api/v1/admin/devices", "admin", 422, broken_expression),
        Refusal("unknown type", "GET", "/api/v1/devices/no-such-type", "user", 404),
        Refusal("bad name", "POST", deployments, "user", 422, deployment_body("Bad_Name")),
        Refusal(
            "too many",
            "POST",
            deployments,
            "user",
            422,
            deployment_body("big", accelerator={"device_type": "lpu", "count": 99}),
        ),
        Refusal(
            "no such type",
            "POST",
            deployments,
            "user",
            422,
            deployment_body("odd", accelerator={"device_type": "no-such-type", "count": 1}),
        ),
        Refusal("bad range", "GET", "/api/v1/monitoring/lpu/range?start=later&end=sooner", "user", 422),
        Refusal(
            "bad policy", "PUT", "/api/v1/admin/thermal/policies/lpu", "admin", 422, {"trip_celsius": "hot"}
        ),
        Refusal("missing role", "GET", "/api/v1/admin/audit", "user", 403),
        Refusal("no sign-in", "GET", "/api/v1/admin/audit", "nobody", 401),
        Refusal("unknown path", "GET", "/api/v1/no-such-thing", "user", 404),
    ]


def said(problem: dict[str, Any]) -> str:
    """Every sentence of a problem a person reads, the quoted fragments taken out."""
    texts = [problem["title"], problem["detail"]]
    texts += [
        str(error.get("message", "")) for error in problem.get("errors") or [] if isinstance(error, dict)
    ]
    return "\n".join(QUOTED.sub("", text) for text in texts)


async def answer(nufi: httpx.AsyncClient, world: World, refusal: Refusal, language: str) -> dict[str, Any]:
    headers = {"Accept-Language": language}
    if refusal.who != "nobody":
        headers.update(world.admin if refusal.who == "admin" else world.user)
    response = await nufi.request(refusal.method, refusal.path, json=refusal.body, headers=headers)
    assert response.status_code == refusal.status, (refusal.name, response.text)
    assert response.headers["content-type"] == "application/problem+json"
    body: dict[str, Any] = response.json()
    return body


async def test_every_refusal_speaks_korean_or_english_as_asked(
    nufi: httpx.AsyncClient, world: World, project: str
) -> None:
    for refusal in refusals(project):
        korean = await answer(nufi, world, refusal, "ko-KR,ko;q=0.9,en;q=0.5")
        english = await answer(nufi, world, refusal, "en-US")
        assert HANGUL.search(korean["detail"]), (refusal.name, korean)
        assert english_sentences(said(korean)) == [], (refusal.name, korean)
        assert korean_in(said(english)) == [], (refusal.name, english)
        # The same refusal as data in both: a client may word it itself.
        assert korean["code"] == english["code"] and korean["params"] == english["params"], refusal.name


@pytest.mark.parametrize("header", [None, "fr-FR", "*"])
async def test_a_caller_naming_no_language_nufi_speaks_reads_english(
    nufi: httpx.AsyncClient, world: World, header: str | None
) -> None:
    headers = dict(world.user) | ({"Accept-Language": header} if header else {})
    response = await nufi.get("/api/v1/admin/audit", headers=headers)
    assert response.status_code == 403
    assert response.json()["title"] == "Forbidden"
    assert not HANGUL.search(response.json()["detail"])
