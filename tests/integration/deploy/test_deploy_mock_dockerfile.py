"""The mock LPU image recipe, checked statically: it installs `nufi-mock` alone, from its member folder."""

from __future__ import annotations

import json

import pytest

from .deploy_dockerfile import Dockerfile, dockerignore_excludes, env_pairs, only_package, parse_dockerfile
from .deploy_manifests import DEPLOY_DIR, REPO_ROOT

DOCKERFILE = DEPLOY_DIR / "docker" / "mock.Dockerfile"
DOCKERIGNORE = REPO_ROOT / ".dockerignore"
MEMBER = "packages/nufi-mock"


@pytest.fixture(scope="module")
def recipe() -> Dockerfile:
    return parse_dockerfile(DOCKERFILE.read_text())


def _copied_sources(recipe: Dockerfile) -> list[str]:
    sources: list[str] = []
    for copy in recipe.stage("builder").all("COPY"):
        sources.extend(copy.split()[:-1])
    return sources


def test_every_sync_installs_the_nufi_mock_distribution_alone(recipe: Dockerfile) -> None:
    syncs = [run.split()[2:] for run in recipe.stage("builder").all("RUN") if run.startswith("uv sync")]
    assert syncs, "the builder never runs uv sync"
    for sync in syncs:
        assert "--frozen" in sync, sync
        assert only_package(sync) == "nufi-mock", f"uv sync {' '.join(sync)} may install more than nufi-mock"
    assert "--no-editable" in syncs[-1], "the runtime stage has no source tree to link back to"


def test_the_builder_copies_the_mock_sources_and_the_workspace_metadata_only(recipe: Dockerfile) -> None:
    assert sorted(_copied_sources(recipe)) == sorted(
        [
            "pyproject.toml",
            "uv.lock",
            f"{MEMBER}/pyproject.toml",
            "packages/nufi-sandbox/pyproject.toml",
            f"{MEMBER}/src",
        ]
    )


def test_every_copied_source_exists_and_is_in_the_build_context(recipe: Dockerfile) -> None:
    rules = DOCKERIGNORE.read_text()
    for source in _copied_sources(recipe):
        assert (REPO_ROOT / source).exists(), f"COPY {source}: no such file in the repository"
        assert not dockerignore_excludes(rules, source), f".dockerignore leaves out {source}"
    # The generated gRPC modules are committed and must reach the image.
    for generated in ("deviceplugin_v1beta1_pb2.py", "podresources_v1_pb2_grpc.py"):
        assert not dockerignore_excludes(rules, f"{MEMBER}/src/nufi_mock/kubelet_api/{generated}")


def test_the_mock_sources_land_where_the_member_pyproject_expects_them(recipe: Dockerfile) -> None:
    pairs = [copy.split() for copy in recipe.stage("builder").all("COPY")]
    copies = {pair[0]: pair[1] for pair in pairs if len(pair) == 2}
    workdir = recipe.stage("builder").last("WORKDIR")
    assert workdir == "/src"
    # Relative to the workspace root, as in the repository: the workspace's members list says so.
    assert copies[f"{MEMBER}/src"] == f"./{MEMBER}/src"


def test_the_runtime_gets_only_the_virtual_environment_and_runs_as_non_root(recipe: Dockerfile) -> None:
    builder, runtime = recipe.stage("builder"), recipe.stage("runtime")
    venv = next(
        env_pairs(e)["UV_PROJECT_ENVIRONMENT"] for e in builder.all("ENV") if "UV_PROJECT_ENVIRONMENT" in e
    )
    assert runtime.all("COPY") == [f"--from=builder {venv} {venv}"]
    user = runtime.last("USER") or ""
    assert user.partition(":")[0].isdigit() and int(user.partition(":")[0]) != 0
    assert json.loads(runtime.last("ENTRYPOINT") or "null") == ["nufi-mock"]
