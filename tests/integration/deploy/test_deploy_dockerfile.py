"""The NuFi image recipe, checked statically: multi-stage, non-root, no compilers, nothing extra shipped."""

from __future__ import annotations

import json
import re

import pytest
from deploy_dockerfile import Dockerfile, dockerignore_excludes, env_pairs, parse_dockerfile
from deploy_manifests import DEPLOY_DIR, REPO_ROOT, Rendered
from hypothesis import given
from hypothesis import strategies as st

pytestmark = pytest.mark.integration

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
    builder = recipe.stage("builder")
    syncs = [run for run in builder.all("RUN") if "uv sync" in run]
    assert syncs, "the builder never runs uv sync"
    for run in syncs:
        assert "--frozen" in run and "--no-dev" in run, run
    # The final sync installs NuFi itself as a package, so the runtime needs no source tree.
    assert "--no-editable" in syncs[-1]


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
    package=st.sampled_from(["nufi", "nufi_mock", "nufi_sandbox"]),
    rest=st.lists(_segment, max_size=3),
    name=_segment,
)
def test_every_source_file_enters_the_context(package: str, rest: list[str], name: str) -> None:
    path = "/".join(["src", package, *rest, f"{name}.py"])
    assert not dockerignore_excludes(DOCKERIGNORE.read_text(), path)


def test_the_ignore_rules_are_read_as_docker_reads_them() -> None:
    rules = "*\n!src/\n**/__pycache__\n"
    assert dockerignore_excludes(rules, "README.md")
    assert not dockerignore_excludes(rules, "src/a/b.py")
    assert dockerignore_excludes(rules, "src/a/__pycache__/b.pyc")
    # The last matching rule wins.
    assert not dockerignore_excludes("**/__pycache__\n!src/\n", "src/__pycache__/x")
