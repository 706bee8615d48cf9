"""The wheels of the product and of the mock LPU carry their own import package and nothing else.

The `nufi` wheel is what a production install gets: no sandbox (whose dev identity provider knows
admin/admin), no mock LPU, no dependency on either. Built offline with the hatchling in .venv.
"""

from __future__ import annotations

import re
import subprocess
import sys
import zipfile
from email.parser import Parser
from pathlib import Path

import pytest
import yaml

from support.uv import uv_command

REPO_ROOT = Path(__file__).resolve().parents[3]
DEV_USERS = REPO_ROOT / "packages" / "nufi-sandbox" / "src" / "nufi_sandbox" / "idp" / "dev-users.yaml"
IMPORTS_OF_THE_OTHERS = re.compile(r"^\s*(?:from|import)\s+nufi_(?:mock|sandbox)\b", re.MULTILINE)


def build_wheel(package: str, out: Path) -> zipfile.ZipFile:
    result = subprocess.run(
        [
            *uv_command(),
            "build",
            "--wheel",
            "--package",
            package,
            "--out-dir",
            str(out),
            # The backend comes from .venv (the dev group has hatchling), so no index is needed.
            "--no-build-isolation",
            "--python",
            sys.executable,
            "--offline",
        ],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, f"uv build --package {package} failed:\n{result.stderr}"
    [wheel] = out.glob(f"{package.replace('-', '_')}-*.whl")
    return zipfile.ZipFile(wheel)


@pytest.fixture(scope="module")
def nufi_wheel(tmp_path_factory: pytest.TempPathFactory) -> zipfile.ZipFile:
    return build_wheel("nufi", tmp_path_factory.mktemp("nufi-wheel"))


@pytest.fixture(scope="module")
def mock_wheel(tmp_path_factory: pytest.TempPathFactory) -> zipfile.ZipFile:
    return build_wheel("nufi-mock", tmp_path_factory.mktemp("mock-wheel"))


def top_level(wheel: zipfile.ZipFile) -> set[str]:
    return {name.split("/")[0] for name in wheel.namelist()}


def metadata(wheel: zipfile.ZipFile) -> tuple[str, list[str]]:
    [path] = [n for n in wheel.namelist() if n.endswith(".dist-info/METADATA")]
    parsed = Parser().parsestr(wheel.read(path).decode())
    requires = [
        re.split(r"[\s<>=!~;\[(]", r, maxsplit=1)[0].lower() for r in parsed.get_all("Requires-Dist", [])
    ]
    return parsed["Name"], requires


def texts(wheel: zipfile.ZipFile) -> dict[str, str]:
    found = {}
    for name in wheel.namelist():
        try:
            found[name] = wheel.read(name).decode()
        except UnicodeDecodeError:
            continue
    return found


def dev_secrets() -> list[str]:
    """Every password and client secret of the sandbox's dev users, as the realm file spells them."""
    realm = yaml.safe_load(DEV_USERS.read_text())
    secrets = [f"password: {user['password']}" for user in realm["users"]]
    secrets += [client["secret"] for client in realm["clients"] if "secret" in client]
    assert secrets, f"{DEV_USERS} names no passwords any more: update this test"
    return secrets


def test_the_nufi_wheel_holds_the_nufi_package_alone(nufi_wheel: zipfile.ZipFile) -> None:
    assert top_level(nufi_wheel) == {"nufi", "nufi-0.1.0.dist-info"}, sorted(top_level(nufi_wheel))
    names = nufi_wheel.namelist()
    assert "nufi/cli/__init__.py" in names and "nufi/db/alembic.ini" in names
    for name in names:
        assert not re.search(r"(^|/)(nufi_sandbox|nufi_mock|idp)(/|$)", name), name
        assert not name.endswith(("realm.yaml", "dev-users.yaml")), name


def test_the_nufi_wheel_depends_on_neither_the_mock_nor_the_sandbox(nufi_wheel: zipfile.ZipFile) -> None:
    name, requires = metadata(nufi_wheel)
    assert name == "nufi"
    assert requires, "the METADATA lists no Requires-Dist at all"
    assert {"nufi-mock", "nufi-sandbox", "nufi_mock", "nufi_sandbox"}.isdisjoint(requires), requires
    assert "fastapi" in requires


def test_no_file_of_the_nufi_wheel_knows_a_dev_user_or_imports_the_others(
    nufi_wheel: zipfile.ZipFile,
) -> None:
    secrets = dev_secrets()
    for name, text in texts(nufi_wheel).items():
        for secret in secrets:
            assert secret not in text, f"{name} carries the sandbox's dev credential {secret!r}"
        assert not IMPORTS_OF_THE_OTHERS.search(text), f"{name} imports nufi_mock or nufi_sandbox"


def test_the_mock_wheel_holds_the_nufi_mock_package_alone(mock_wheel: zipfile.ZipFile) -> None:
    assert top_level(mock_wheel) == {"nufi_mock", "nufi_mock-0.1.0.dist-info"}, sorted(top_level(mock_wheel))
    # The generated kubelet gRPC modules are part of it: the DaemonSets cannot run without them.
    assert "nufi_mock/kubelet_api/deviceplugin_v1beta1_pb2_grpc.py" in mock_wheel.namelist()
    name, requires = metadata(mock_wheel)
    assert name == "nufi-mock"
    assert {"nufi", "nufi-sandbox", "nufi_sandbox"}.isdisjoint(requires), requires
    for entry, text in texts(mock_wheel).items():
        assert not re.search(r"^\s*(?:from|import)\s+nufi(?:_sandbox)?\b", text, re.MULTILINE), entry
