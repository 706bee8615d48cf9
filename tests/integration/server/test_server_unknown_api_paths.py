"""`nufi serve` with the dashboard mounted at `/`: an `/api/...` path no route serves is a problem+json
404 for every method, and a known API path asked with a method it does not serve is a problem+json 405
naming the methods it does serve. The dashboard's HTML page never answers under `/api`."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from support.nufi_serve import nufi_serve

PROBLEM = "application/problem+json"
METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]


@pytest.fixture(scope="module")
def base_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with nufi_serve(tmp_path_factory.mktemp("serve")) as (host, port):
        yield f"http://{host}:{port}"


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize(
    "path", ["/api", "/api/", "/api/v1/nothing-here", "/api/v2/devices", "/api/v1/devices/x/y/z"]
)
def test_an_unknown_api_path_is_a_problem_404(base_url: str, method: str, path: str) -> None:
    answer = httpx.request(method, base_url + path, timeout=30)
    assert answer.status_code == 404, answer.text[:200]
    assert answer.headers["content-type"].startswith(PROBLEM)
    problem = answer.json()
    assert problem["status"] == 404
    assert path in problem["detail"]


def test_head_on_an_unknown_api_path_is_404(base_url: str) -> None:
    assert httpx.head(base_url + "/api/v1/nothing-here", timeout=30).status_code == 404


@pytest.mark.parametrize("method", ["PUT", "DELETE", "PATCH", "POST"])
def test_a_known_api_path_with_another_method_is_a_problem_405(base_url: str, method: str) -> None:
    answer = httpx.request(method, base_url + "/api/v1/version", timeout=30)
    assert answer.status_code == 405, answer.text[:200]
    assert answer.headers["content-type"].startswith(PROBLEM)
    assert answer.headers["allow"].split(", ")[0] == "GET"
    assert method not in answer.headers["allow"]
    assert answer.json()["status"] == 405


def test_the_dashboard_still_answers_its_own_paths(base_url: str) -> None:
    # A path outside /api still reaches the dashboard (its sign-in redirect or page), not the API's 404.
    answer = httpx.get(base_url + "/no-such-dashboard-page", timeout=30)
    assert not answer.headers.get("content-type", "").startswith(PROBLEM)
