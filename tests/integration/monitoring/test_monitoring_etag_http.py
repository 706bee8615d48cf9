"""The pollers' ETag against the real Prometheus and cluster: the tag is the hash of the body without its
age, a tag that no longer names the body gets the body, `*` a 304, and an error never carries a tag."""

from __future__ import annotations

import base64
import hashlib
import json
from typing import Any

import httpx
import pytest

PATHS = ["/api/v1/monitoring/overview", "/api/v1/monitoring/lpu"]


def body_tag(body: bytes) -> str:
    """The weak tag of a body: the SHA-256 of its compact JSON without any `age_seconds`."""
    unaged = json.dumps(_without_age(json.loads(body)), separators=(",", ":"), ensure_ascii=False)
    digest = base64.urlsafe_b64encode(hashlib.sha256(unaged.encode()).digest()).rstrip(b"=").decode()
    return f'W/"{digest}"'


def _without_age(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _without_age(v) for k, v in value.items() if k != "age_seconds"}
    if isinstance(value, list):
        return [_without_age(v) for v in value]
    return value


@pytest.mark.parametrize("path", PATHS)
async def test_the_etag_is_the_hash_of_the_body(
    nufi: httpx.AsyncClient, user: dict[str, str], path: str
) -> None:
    response = await nufi.get(path, headers=user)
    assert response.status_code == 200, response.text
    assert response.headers["etag"] == body_tag(response.content)
    assert response.headers["cache-control"] == "private, no-cache"

    stale = await nufi.get(path, headers=user | {"If-None-Match": '"an-old-tag"'})
    assert stale.status_code == 200 and stale.headers["etag"] == body_tag(stale.content)

    anything = await nufi.get(path, headers=user | {"If-None-Match": "*"})
    assert anything.status_code == 304 and anything.content == b""
    assert anything.headers["etag"].startswith('W/"')


async def test_an_unknown_type_is_a_404_without_a_tag(nufi: httpx.AsyncClient, user: dict[str, str]) -> None:
    response = await nufi.get("/api/v1/monitoring/no-such-type", headers=user | {"If-None-Match": "*"})
    assert response.status_code == 404
    assert "etag" not in response.headers
