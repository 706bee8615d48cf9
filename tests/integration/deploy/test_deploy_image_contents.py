"""What each image's virtual environment holds, from its builder stage replayed with the real uv.

The NuFi image carries the `nufi` distribution alone: no mock LPU, no sandbox (whose dev identity
provider knows admin/admin), no development tools. The mock image carries `nufi-mock` alone.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from .deploy_dockerfile import parse_dockerfile
from .deploy_image import installed_distributions, replay_builder, top_level_modules
from .deploy_manifests import DEPLOY_DIR

OURS = {"nufi", "nufi-mock", "nufi-sandbox"}
DEV_TOOLS = {"pytest", "mypy", "ruff", "hypothesis", "import-linter", "hatchling", "grpcio-tools"}


def _build(name: str, root: Path) -> tuple[Path, Path]:
    recipe = parse_dockerfile((DEPLOY_DIR / "docker" / f"{name}.Dockerfile").read_text())
    paths = replay_builder(recipe, root)
    return paths["UV_PROJECT_ENVIRONMENT"], root / "src"


@pytest.fixture(scope="module")
def nufi_image(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    return _build("nufi", tmp_path_factory.mktemp("nufi-image"))


@pytest.fixture(scope="module")
def mock_image(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    return _build("mock", tmp_path_factory.mktemp("mock-image"))


def _sources(tree: Path) -> list[str]:
    return [path.relative_to(tree).as_posix() for path in tree.rglob("*") if path.is_file()]


def test_the_nufi_image_installs_nufi_alone(nufi_image: tuple[Path, Path]) -> None:
    venv, _ = nufi_image
    installed = installed_distributions(venv)
    assert installed & OURS == {"nufi"}
    assert not installed & DEV_TOOLS, f"development tools in the product image: {installed & DEV_TOOLS}"
    assert {"nufi_mock", "nufi_sandbox"}.isdisjoint(top_level_modules(venv))


def test_the_nufi_image_runs_nufi_from_its_own_environment(nufi_image: tuple[Path, Path]) -> None:
    venv, _ = nufi_image
    # Installed as a package, not as a link back to the sources the runtime stage leaves behind.
    assert (venv / "lib" / "python3.11" / "site-packages" / "nufi" / "db" / "alembic.ini").is_file()
    result = subprocess.run(
        [str(venv / "bin" / "nufi"), "--help"], capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr
    assert "serve" in result.stdout


def test_no_sandbox_source_enters_the_nufi_builder(nufi_image: tuple[Path, Path]) -> None:
    _, tree = nufi_image
    sources = _sources(tree)
    assert "src/nufi/cli/__init__.py" in sources
    others = {s for s in sources if not s.startswith("src/nufi/")}
    # The workspace's metadata, which uv needs to read the lock, and nothing of the members' sources.
    assert others == {
        "pyproject.toml",
        "uv.lock",
        "README.md",
        "packages/nufi-mock/pyproject.toml",
        "packages/nufi-sandbox/pyproject.toml",
    }


def test_the_mock_image_installs_nufi_mock_alone(mock_image: tuple[Path, Path]) -> None:
    venv, tree = mock_image
    installed = installed_distributions(venv)
    assert installed & OURS == {"nufi-mock"}
    assert not installed & DEV_TOOLS
    # NuFi's own dependencies stay out too: the mock needs none of the server's stack.
    assert {"fastapi", "sqlalchemy", "alembic"}.isdisjoint(installed)
    assert not any(s.startswith(("src/", "packages/nufi-sandbox/src")) for s in _sources(tree))


def test_the_mock_image_runs_its_command_with_the_generated_grpc_modules(
    mock_image: tuple[Path, Path],
) -> None:
    venv, _ = mock_image
    result = subprocess.run(
        [str(venv / "bin" / "python"), "-c", "import nufi_mock.kubelet_api.deviceplugin_v1beta1_pb2_grpc"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    result = subprocess.run(
        [str(venv / "bin" / "nufi-mock"), "--help"], capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr
    assert "exporter" in result.stdout
