"""The docs checker reports each name that resolves to nothing, and only those."""

from __future__ import annotations

from pathlib import Path

import pytest

from support.doc_refs import Missing, Route, World, make_targets, missing_in, route_exists

ROUTES = [
    Route("/api/v1/devices", frozenset({"GET"})),
    Route("/api/v1/devices/{id}", frozenset({"GET", "PUT"})),
    Route("/api/v1/projects/{project}/labs/{name}/stop", frozenset({"POST"})),
]
MODULES = {"nufi.api", "nufi.api.create_app"}


@pytest.fixture
def world(tmp_path: Path) -> World:
    (tmp_path / "docs").mkdir()
    (tmp_path / "src" / "nufi" / "api").mkdir(parents=True)
    (tmp_path / "src" / "nufi" / "api" / "app.py").write_text("")
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_a.py").write_text("def test_one() -> None:\n    pass\n")
    (tmp_path / "docs" / "guide.md").write_text("")
    targets = make_targets("run: setup ## start\ntest: setup\nVENV := .venv\n")
    return World(tmp_path, targets, ROUTES, module_exists=MODULES.__contains__)


def names(missing: list[Missing]) -> list[tuple[str, str]]:
    return [(item.kind, item.name) for item in missing]


def test_each_name_that_does_not_exist_is_reported(world: World) -> None:
    text = (
        "See `src/nufi/api/gone.py`, `api/lost.py`, `tests/test_a.py::test_two`, `make deploy`,\n"
        "`nufi.api.vanished`, `GET /api/v1/nowhere`, `DELETE /api/v1/devices/{id}` and [a](missing.md).\n"
    )
    assert names(missing_in("docs/guide.md", text, world)) == [
        ("path", "src/nufi/api/gone.py"),
        ("path", "api/lost.py"),
        ("path", "tests/test_a.py::test_two"),
        ("make target", "deploy"),
        ("module", "nufi.api.vanished"),
        ("route", "GET /api/v1/nowhere"),
        ("route", "DELETE /api/v1/devices/{id}"),
        ("link", "missing.md"),
    ]


def test_names_that_exist_are_not_reported(world: World) -> None:
    text = (
        "See `src/nufi/api/app.py`, `api/app.py`, `tests/test_a.py::test_one`, `make run` and `make test`,\n"
        "`nufi.api.create_app`, `GET /api/v1/devices`, `PUT /api/v1/devices/<id>`, `/api/v1/projects/...`,\n"
        "`GET /api/v1/devices/nvidia-gpu?x=1` and [the guide](guide.md), [up](../docs/guide.md#part).\n"
    )
    assert missing_in("docs/guide.md", text, world) == []


def test_a_path_that_is_removed_is_then_reported(world: World) -> None:
    text = "The app lives in `src/nufi/api/app.py`.\n"
    assert missing_in("docs/guide.md", text, world) == []
    (world.repo / "src" / "nufi" / "api" / "app.py").unlink()
    assert names(missing_in("docs/guide.md", text, world)) == [("path", "src/nufi/api/app.py")]


def test_examples_fenced_blocks_and_other_systems_names_are_not_names_of_the_repository(
    world: World,
) -> None:
    text = (
        "`deploy/kustomize/overlays/<name>/`, `DIR/cluster.json`, `hyperaccel.ai/lpu`, `apps/v1`,\n"
        "`kubectl -n nufi logs deploy/nufi`, `nufi.example.com`, `https://nufi.example.com/x.py`,\n"
        "`.sandbox/sandbox.json`, [uv](https://docs.astral.sh/uv/)\n"
        "```sh\ncat src/nufi/none.py  # a shell block's files are the reader's, not the repository's\n```\n"
    )
    assert missing_in("docs/guide.md", text, world) == []


def test_what_a_shell_block_runs_against_the_repository_is_checked(world: World) -> None:
    text = (
        "```sh\nmake run\nmake nothing\n.venv/bin/python -m nufi.gone\npython3 -m json.tool\n"
        'curl -s "$NUFI/api/v1/devices/lpu" "$NUFI/api/v1/elsewhere?x=1"\n```\n'
    )
    assert names(missing_in("docs/guide.md", text, world)) == [
        ("make target", "nothing"),
        ("module", "nufi.gone"),
        ("route", "/api/v1/elsewhere?x=1"),
    ]


def test_an_allowed_span_is_skipped_and_nothing_else(world: World) -> None:
    text = "`GET /api/v1/namespaces/<ns>/pods/<pod>/log` and `GET /api/v1/namespaces`\n"
    allowed = {"GET /api/v1/namespaces/<ns>/pods/<pod>/log"}
    assert names(missing_in("docs/guide.md", text, world, allowed=allowed)) == [
        ("route", "GET /api/v1/namespaces")
    ]


@pytest.mark.parametrize(
    ("method", "path", "served"),
    [
        (None, "/api/v1/devices/", True),
        ("GET", "/api/v1/devices/{device_type}", True),
        ("POST", "/api/v1/devices/{id}", False),
        ("POST", "/api/v1/projects/{p}/labs/{n}/stop", True),
        (None, "/api/v1/projects", False),
        (None, "/api/v1/projects/…", True),
        (None, "/api/v1/devices/{id}/extra", False),
    ],
)
def test_route_templates_match_by_segment(method: str | None, path: str, served: bool) -> None:
    assert route_exists(method, path, ROUTES) is served
