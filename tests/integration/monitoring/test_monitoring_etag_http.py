"""The pollers' ETag against the real Prometheus and cluster: the tag is the hash of the body without its
age, a tag that no longer names the body gets the body, `*` a 304, and an error never carries a tag."""

from __future__ import annotations

import httpx
import pytest

from support.etag import weak_tag

PATHS = ["/api/v1/monitoring/overview", "/api/v1/monitoring/lpu"]


@pytest.mark.parametrize("path", PATHS)
async def test_the_etag_is_the_hash_of_the_body(
    nufi: httpx.AsyncClient, user: dict[str, str], path: str
) -> None:
    response = await nufi.get(path, headers=user)
    assert response.status_code == 200, response.text
    assert response.headers["etag"] == weak_tag(response.content)
    assert response.headers["cache-control"] == "private, no-cache"

    stale = await nufi.get(path, headers=user | {"If-None-Match": '"an-old-tag"'})
    assert stale.status_code == 200 and stale.headers["etag"] == weak_tag(stale.content)

    anything = await nufi.get(path, headers=user | {"If-None-Match": "*"})
    assert anything.status_code == 304 and anything.content == b""
    assert anything.headers["etag"].startswith('W/"')


async def test_an_unknown_type_is_a_404_without_a_tag(nufi: httpx.AsyncClient, user: dict[str, str]) -> None:
    response = await nufi.get("/api/v1/monitoring/no-such-type", headers=user | {"If-None-Match": "*"})
    assert response.status_code == 404
    assert "etag" not in response.headers
