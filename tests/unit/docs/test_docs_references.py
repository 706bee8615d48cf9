"""Every path, `make` target, module and API route that README.md and docs/*.md name exists."""

from __future__ import annotations

import pytest
from pydantic import SecretStr

from nufi.api import create_app
from nufi.config import Settings
from support.doc_refs import REPO, Missing, Route, World, make_targets, missing_in
from support.nufi_app import MEMORY_DATABASE

DOCS = ["README.md", *sorted(f"docs/{p.name}" for p in (REPO / "docs").glob("*.md"))]

# Spans that look like names but are examples or belong to something else; each says why.
ALLOWED = frozenset(
    {
        # An entry-point group, not a module: third-party fetchers register under it.
        "nufi.device_fetchers",
        # Kubernetes API paths (the API server's, not NuFi's), shown for the service proxy and logs.
        "GET /api/v1/namespaces/<ns>/pods/<pod>/log",
        "/api/v1/namespaces/<ns>/services/<id>/proxy[/<path>]",
        # Prometheus' API path listing the rule groups it loaded (where NuFi's rules show up).
        "/api/v1/rules",
    }
)


@pytest.fixture(scope="module")
def world() -> World:
    # Built, never started: its OpenAPI document lists the routes without a server, database or cluster.
    app = create_app(Settings(database_url=SecretStr(MEMORY_DATABASE)))
    routes = [
        Route(path, frozenset(method.upper() for method in operations))
        for path, operations in app.openapi()["paths"].items()
    ]
    return World(REPO, make_targets((REPO / "Makefile").read_text(encoding="utf-8")), routes)


@pytest.mark.parametrize("doc", DOCS)
def test_every_name_in_the_doc_exists(doc: str, world: World) -> None:
    missing: list[Missing] = missing_in(doc, (REPO / doc).read_text(encoding="utf-8"), world, allowed=ALLOWED)
    assert not missing, "\n".join(str(item) for item in missing)
