"""A test's marker is its folder: `-m unit` runs tests/unit only, and a test file elsewhere is refused."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

TESTS_DIR = Path(__file__).resolve().parents[2]
REPO_ROOT = TESTS_DIR.parent


def collect(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider", *args],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=120,
    )


def node_ids(completed: subprocess.CompletedProcess[str]) -> list[str]:
    assert completed.returncode == 0, completed.stdout + completed.stderr
    return [line for line in completed.stdout.splitlines() if "::" in line]


def test_minus_m_unit_selects_the_unit_folder_and_nothing_else() -> None:
    # A folder of each kind is enough to show the selection (a whole collection takes half a minute).
    folders = ("tests/unit/harness", "tests/integration/harness", "tests/e2e/sandbox")
    selected = node_ids(collect(REPO_ROOT, "-m", "unit", *folders))
    assert len(selected) > 10
    assert [node for node in selected if not node.startswith("tests/unit/harness/")] == []


def test_a_file_under_integration_is_marked_integration_and_not_unit() -> None:
    here = str(Path(__file__).relative_to(REPO_ROOT))
    assert node_ids(collect(REPO_ROOT, "-m", "integration", here))
    unit = collect(REPO_ROOT, "-m", "unit", here)
    assert unit.returncode == 5, unit.stdout + unit.stderr  # 5: every test deselected


def _scratch_suite(root: Path) -> None:
    """A suite with this repository's conftest, the helpers it imports and its settings, one trivial
    test in each place."""
    (root / "pyproject.toml").write_text((REPO_ROOT / "pyproject.toml").read_text())
    (root / "tests").mkdir()
    shutil.copy(TESTS_DIR / "conftest.py", root / "tests" / "conftest.py")
    shutil.copytree(TESTS_DIR / "support", root / "tests" / "support")
    for folder in ("unit", "integration", "e2e"):
        (root / "tests" / folder).mkdir()
        (root / "tests" / folder / f"test_in_{folder}.py").write_text("def test_it() -> None:\n    pass\n")


def test_each_folder_gives_its_own_marker(tmp_path: Path) -> None:
    _scratch_suite(tmp_path)
    for folder in ("unit", "integration", "e2e"):
        assert node_ids(collect(tmp_path, "-m", folder)) == [f"tests/{folder}/test_in_{folder}.py::test_it"]


def test_a_test_file_outside_the_three_folders_fails_the_collection(tmp_path: Path) -> None:
    _scratch_suite(tmp_path)
    (tmp_path / "tests" / "stray").mkdir()
    (tmp_path / "tests" / "stray" / "test_stray.py").write_text("def test_it() -> None:\n    pass\n")
    completed = collect(tmp_path, "-m", "unit")
    assert completed.returncode == 4, completed.stdout + completed.stderr  # 4: usage error
    assert "test files outside tests/{unit,integration,e2e}/" in completed.stderr
    assert "stray/test_stray.py" in completed.stderr
