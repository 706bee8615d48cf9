"""The NuFi image recipe, checked statically: multi-stage, non-root, no compilers, `nufi` alone shipped."""

from __future__ import annotations

import json
import re

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from .deploy_dockerfile import (
    Dockerfile,
    dockerignore_excludes,
    env_pairs,
    only_package,
    parse_dockerfile,
    uv_syncs,
)
from .deploy_manifests import DEPLOY_DIR, REPO_ROOT, Rendered

DOCKERFILE = DEPLOY_DIR / "docker" / "nufi.Dockerfile"
DOCKERIGNORE = REPO_ROOT / ".dockerignore"


@pytest.fixture(scope="module")
def recipe() -> Dockerfile:
    return parse_dockerfile(DOCKERFILE.read_text())


def _numeric_user(recipe: Dockerfile) -> tuple[int, int]:
    user = recipe.stages[-1].last("USER")
    assert user is not None, "the runtime stage sets no USER, so it runs as root"
    uid, _, gid = user.partition(":")
    assert uid.isdigit(), "Kubernetes can only check runAsNonRoot against a numeric USER"
    return int(uid), int(gid or uid)


def test_a_builder_stage_and_a_runtime_stage_share_one_base(recipe: Dockerfile) -> None:
    assert [stage.name for stage in recipe.stages] == ["builder", "runtime"]
    assert {stage.base for stage in recipe.stages} == {"${PYTHON_IMAGE}"}
    assert re.fullmatch(r"python:3\.11-slim(-\w+)?", recipe.global_args["PYTHON_IMAGE"])


def test_the_builder_syncs_the_locked_runtime_dependencies(recipe: Dockerfile) -> None:
    syncs = uv_syncs(recipe.stage("builder"))
    assert syncs, "the builder never runs uv sync"
    for sync in syncs:
        assert "--frozen" in sync and "--no-dev" in sync, sync
    # The final sync installs NuFi itself as a package, so the runtime needs no source tree.
    assert "--no-editable" in syncs[-1]


def test_every_sync_installs_the_nufi_distribution_alone(recipe: Dockerfile) -> None:
    for sync in uv_syncs(recipe.stage("builder")):
        assert only_package(sync) == "nufi", f"uv sync {' '.join(sync)} may install more than nufi"


def test_the_builder_copies_no_member_sources(recipe: Dockerfile) -> None:
    for copy in recipe.stage("builder").all("COPY"):
        *sources, _destination = copy.split()
        for source in sources:
            # uv reads the members' metadata to use the workspace lock; their code stays out.
            if source.startswith("packages/"):
                assert source.endswith("/pyproject.toml"), f"COPY {source}: a member's sources"
            else:
                assert source in {"pyproject.toml", "uv.lock", "README.md", "src/nufi"}, source


def test_the_runtime_gets_only_the_virtual_environment(recipe: Dockerfile) -> None:
    builder, runtime = recipe.stage("builder"), recipe.stage("runtime")
    venv = next(
        env_pairs(e)["UV_PROJECT_ENVIRONMENT"] for e in builder.all("ENV") if "UV_PROJECT_ENVIRONMENT" in e
    )
    assert runtime.all("COPY") == [f"--from=builder {venv} {venv}"]
    path = next(env_pairs(e)["PATH"] for e in runtime.all("ENV") if "PATH=" in e)
    assert path.startswith(f"{venv}/bin:")


def test_the_runtime_installs_no_compilers_or_packages(recipe: Dockerfile) -> None:
    for run in recipe.stage("runtime").all("RUN"):
        for tool in ("apt-get", "apk", "pip", "uv ", "gcc", "build-essential", "make"):
            assert tool not in run, f"the runtime stage runs {tool}: {run}"


def test_the_runtime_runs_as_a_non_root_user_the_pod_also_asks_for(
    recipe: Dockerfile, production: Rendered
) -> None:
    uid, gid = _numeric_user(recipe)
    assert uid != 0 and gid != 0
    created = " ".join(recipe.stage("runtime").all("RUN"))
    assert f"--uid {uid}" in created and f"--gid {gid}" in created
    security = production.pod_spec["securityContext"]
    assert (security["runAsUser"], security["runAsGroup"]) == (uid, gid)


def test_the_image_serves_on_8080_without_its_own_healthcheck(recipe: Dockerfile) -> None:
    runtime = recipe.stage("runtime")
    assert runtime.all("EXPOSE") == ["8080"]
    assert all(not stage.all("HEALTHCHECK") for stage in recipe.stages), "Kubernetes probes do this"
    entrypoint = json.loads(runtime.last("ENTRYPOINT") or "null")
    command = json.loads(runtime.last("CMD") or "null")
    assert entrypoint + command == ["nufi", "serve", "--host", "0.0.0.0"]


def test_python_writes_nothing_to_the_read_only_root(recipe: Dockerfile) -> None:
    env: dict[str, str] = {}
    for line in recipe.stage("runtime").all("ENV"):
        env |= env_pairs(line)
    assert env["PYTHONDONTWRITEBYTECODE"] == "1"
    assert env["HOME"] == "/tmp"


def test_every_copied_source_exists_and_is_in_the_build_context(recipe: Dockerfile) -> None:
    rules = DOCKERIGNORE.read_text()
    for copy in recipe.stage("builder").all("COPY"):
        *sources, _destination = copy.split()
        for source in sources:
            assert (REPO_ROOT / source).exists(), f"COPY {source}: no such file in the repository"
            assert not dockerignore_excludes(rules, source), f".dockerignore leaves out {source}"
    assert not dockerignore_excludes(rules, "src/nufi/db/migrations/env.py")
    assert not dockerignore_excludes(rules, "src/nufi/db/alembic.ini")


@pytest.mark.parametrize(
    "path",
    [
        ".venv/bin/python",
        ".git/config",
        ".sandbox/sandbox.json",
        "tests/conftest.py",
        "nufi.db",
        "deploy/kustomize/overlays/example/secrets.env",
        "src/nufi/__pycache__/cli.cpython-311.pyc",
    ],
)
def test_local_state_and_credentials_stay_out_of_the_context(path: str) -> None:
    assert dockerignore_excludes(DOCKERIGNORE.read_text(), path)


_segment = st.text(alphabet="abcdefghijklmnopqrstuvwxyz_-0123456789", min_size=1, max_size=8)


@given(
    top=st.sampled_from([".venv", ".git", ".sandbox", "tests", "bench", "deploy", "docs"]),
    rest=st.lists(_segment, max_size=4),
)
def test_nothing_outside_the_sources_enters_the_context(top: str, rest: list[str]) -> None:
    assert dockerignore_excludes(DOCKERIGNORE.read_text(), "/".join([top, *rest]))


@given(
    sources=st.sampled_from(["src/nufi", "packages/nufi-mock/src/nufi_mock"]),
    rest=st.lists(_segment, max_size=3),
    name=_segment,
)
def test_every_source_file_of_an_image_enters_the_context(sources: str, rest: list[str], name: str) -> None:
    path = "/".join([sources, *rest, f"{name}.py"])
    assert not dockerignore_excludes(DOCKERIGNORE.read_text(), path)


@given(
    top=st.sampled_from(["packages/nufi-sandbox/src", "packages/nufi-sandbox", "src/nufi_sandbox", "src"]),
    rest=st.lists(_segment, min_size=1, max_size=4),
)
def test_no_sandbox_file_enters_the_context(top: str, rest: list[str]) -> None:
    path = "/".join([top, *rest])
    # The product's own sources share the src/ prefix.
    assume(tuple(path.split("/")[:2]) != ("src", "nufi"))
    assert dockerignore_excludes(DOCKERIGNORE.read_text(), path), path


@pytest.mark.parametrize(
    "path",
    [
        "packages/nufi-sandbox/src/nufi_sandbox/idp/dev-users.yaml",
        "packages/nufi-sandbox/src/nufi_sandbox/idp/realm.py",
        "packages/nufi-mock/tests/test_x.py",
        "packages/nufi-mock/README.md",
    ],
)
def test_named_sandbox_and_member_files_stay_out(path: str) -> None:
    assert dockerignore_excludes(DOCKERIGNORE.read_text(), path)


def test_the_members_metadata_enters_the_context() -> None:
    for member in ("nufi-mock", "nufi-sandbox"):
        assert not dockerignore_excludes(DOCKERIGNORE.read_text(), f"packages/{member}/pyproject.toml")


def test_the_ignore_rules_are_read_as_docker_reads_them() -> None:
    rules = "*\n!src/\n**/__pycache__\n"
    assert dockerignore_excludes(rules, "README.md")
    assert not dockerignore_excludes(rules, "src/a/b.py")
    assert dockerignore_excludes(rules, "src/a/__pycache__/b.pyc")
    # The last matching rule wins.
    assert not dockerignore_excludes("**/__pycache__\n!src/\n", "src/__pycache__/x")
