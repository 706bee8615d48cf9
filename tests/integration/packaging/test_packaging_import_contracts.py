"""The import-linter contracts in pyproject.toml bite: each rule of the layout fails when broken.

Every case copies the three import packages and the root pyproject.toml into a scratch directory,
adds one module that breaks one rule, and runs `lint-imports` there with only the copies importable.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[3]
PACKAGES = {
    "nufi": REPO_ROOT / "src" / "nufi",
    "nufi_mock": REPO_ROOT / "packages" / "nufi-mock" / "src" / "nufi_mock",
    "nufi_sandbox": REPO_ROOT / "packages" / "nufi-sandbox" / "src" / "nufi_sandbox",
}
LINT_IMPORTS = Path(sys.executable).parent / "lint-imports"
VERDICT = re.compile(r"^(?P<name>.+) (?P<verdict>KEPT|BROKEN)$", re.MULTILINE)


def contract_names() -> dict[str, str]:
    config = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]
    return {contract["id"]: contract["name"] for contract in config["contracts"]}


@dataclass(frozen=True)
class Run:
    returncode: int
    output: str

    def verdicts(self) -> dict[str, str]:
        return {m["name"]: m["verdict"] for m in VERDICT.finditer(self.output)}


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """A scratch copy of the import packages and the contracts."""
    for name, source in PACKAGES.items():
        shutil.copytree(source, tmp_path / "src" / name, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copyfile(REPO_ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    return tmp_path


def lint_imports(tree: Path) -> Run:
    env = dict(os.environ)
    # Ahead of the editable installs in site-packages, so the copies are what gets analysed; a wide
    # terminal keeps each contract's verdict on one line.
    env["PYTHONPATH"] = str(tree / "src")
    env["COLUMNS"] = "500"
    result = subprocess.run(
        [str(LINT_IMPORTS), "--no-cache", "--no-logo"],
        cwd=tree,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    return Run(result.returncode, result.stdout + result.stderr)


def add_module(tree: Path, module: str, source: str) -> None:
    """Write `module` with `source`; packages it names that do not exist yet (nufi.ui, nufi.workloads)
    are created empty, as their first line would be."""
    *packages, name = module.split(".")
    for depth in range(1, len(packages) + 1):
        init = tree / "src" / Path(*packages[:depth]) / "__init__.py"
        if not init.exists():
            init.parent.mkdir(parents=True, exist_ok=True)
            init.write_text('"""A package added by the test."""\n')
    (tree / "src" / Path(*packages) / f"{name}.py").write_text(f'"""Added by the test."""\n\n{source}\n')
    for imported in re.findall(r"^(?:from|import) ([\w.]+)", source, re.MULTILINE):
        target = tree / "src" / Path(*imported.split("."))
        if imported.startswith("nufi.") and not target.exists() and not target.with_suffix(".py").exists():
            target.mkdir(parents=True)
            (target / "__init__.py").write_text('"""A package added by the test."""\n')


def test_the_unmodified_tree_keeps_every_contract(tree: Path) -> None:
    run = lint_imports(tree)
    assert run.returncode == 0, run.output
    assert run.verdicts() == {name: "KEPT" for name in contract_names().values()}, run.output


def test_the_analysis_reads_the_copies_not_the_installed_packages(tree: Path) -> None:
    """Otherwise every case below would pass for the wrong reason."""
    add_module(tree, "nufi.devices.only_in_the_copy", "import nufi.monitoring")
    run = lint_imports(tree)
    assert "nufi.devices.only_in_the_copy" in run.output, run.output


@pytest.mark.parametrize(
    ("module", "source", "broken", "evidence"),
    [
        pytest.param(
            "nufi.devices.sandbox_users",
            "import nufi_sandbox.idp",
            "nufi-alone",
            "nufi.devices.sandbox_users -> nufi_sandbox.idp",
            id="nufi-imports-the-sandbox",
        ),
        pytest.param(
            "nufi.api.lpu",
            "from nufi_mock import inventory",
            "nufi-alone",
            "nufi.api.lpu -> nufi_mock.inventory",
            id="nufi-imports-the-mock",
        ),
        pytest.param(
            "nufi_mock.settings",
            "from nufi.config import Settings",
            "mock-alone",
            "nufi_mock.settings -> nufi.config",
            id="mock-imports-nufi",
        ),
        pytest.param(
            "nufi_sandbox.in_process",
            "from nufi.config import Settings",
            "sandbox-alone",
            "nufi_sandbox.in_process -> nufi.config",
            id="sandbox-imports-nufi",
        ),
        pytest.param(
            "nufi.ui.rows",
            "from nufi.db.tables import ThermalEventRow",
            "faces-no-db",
            "nufi.ui.rows -> nufi.db.tables",
            id="a-page-reads-rows",
        ),
        pytest.param(
            "nufi.api.rows",
            "import nufi.db",
            "faces-no-db",
            "nufi.api.rows -> nufi.db",
            id="a-route-imports-the-database",
        ),
        pytest.param(
            "nufi.devices.upward",
            "from nufi.monitoring import service",
            "nufi-layers",
            "nufi.devices is not allowed to import nufi.monitoring",
            id="devices-imports-monitoring",
        ),
        pytest.param(
            "nufi.cluster.faces",
            "import nufi.api",
            "nufi-layers",
            "nufi.cluster is not allowed to import nufi.api",
            id="gateway-imports-a-face",
        ),
        pytest.param(
            "nufi.prom.tables",
            "import nufi.db",
            "nufi-layers",
            "nufi.prom is not allowed to import nufi.db",
            id="gateways-are-independent",
        ),
        pytest.param(
            "nufi.ui.pages",
            "import nufi.api.app",
            "nufi-layers",
            "nufi.ui is not allowed to import nufi.api",
            id="a-new-ui-imports-the-api",
        ),
        pytest.param(
            "nufi.workloads.deployments.service",
            "import nufi.thermal",
            "nufi-layers",
            "nufi.workloads is not allowed to import nufi.thermal",
            id="a-new-domain-imports-one-above-it",
        ),
        pytest.param(
            "nufi.stray",
            "import nufi.config",
            "nufi-layers",
            "- nufi.stray",
            id="an-unplaced-top-level-module",
        ),
    ],
)
def test_a_broken_rule_breaks_its_contract_alone(
    tree: Path, module: str, source: str, broken: str, evidence: str
) -> None:
    add_module(tree, module, source)
    run = lint_imports(tree)
    names = contract_names()
    assert run.returncode != 0, f"lint-imports passed with {module}: {source}\n{run.output}"
    expected = {name: "KEPT" for name in names.values()} | {names[broken]: "BROKEN"}
    assert run.verdicts() == expected, run.output
    assert evidence in run.output, run.output
