"""The reliability report keeps the figures a step printed and replaces only that step's block."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

# bench/ is a package of the repository root, which is not on the tests' import path.
_PATH = Path(__file__).resolve().parents[3] / "bench" / "reliability_report.py"
_SPEC = importlib.util.spec_from_file_location("reliability_report", _PATH)
assert _SPEC is not None and _SPEC.loader is not None
report = importlib.util.module_from_spec(_SPEC)
sys.modules["reliability_report"] = report
_SPEC.loader.exec_module(report)
figures_of, replace_step, steps = report.figures_of, report.replace_step, report.steps


def test_a_pytest_step_keeps_its_summary_and_printed_figures_and_drops_progress_and_logs() -> None:
    (faults,) = [s for s in steps(quick=True) if s.name == "faults"]
    output = "\n".join(
        [
            "......F..",
            '2026-12-02 13:34:58 [warning  ] request failed detail="x"',
            "..takeover seen by both processes 17.0 s after the leader was killed",
            "=================== 14 passed in 28.69s ===================",
        ]
    )
    assert figures_of(faults, output) == [
        "takeover seen by both processes 17.0 s after the leader was killed",
        "=================== 14 passed in 28.69s ===================",
    ]


def test_a_program_step_keeps_every_line_it_printed_but_log_lines() -> None:
    (bench,) = [s for s in steps(quick=False) if s.name == "bench"]
    output = "== bench.thermal_reaction\n  reaction median  3.59 s\n2026-12-02 13:00:00 [info ] started\n"
    assert figures_of(bench, output) == ["== bench.thermal_reaction", "  reaction median  3.59 s"]


def test_a_step_s_block_is_replaced_in_place_and_others_are_kept() -> None:
    section = "\n" + replace_step("\n", "fuzz", "old fuzz\n")
    section = replace_step(section, "load", "old load\n")
    updated = replace_step(section, "fuzz", "new fuzz\n")
    assert "old fuzz" not in updated and "new fuzz" in updated and "old load" in updated
    assert updated.index("new fuzz") < updated.index("old load")


def test_only_the_steps_quick_shortens_say_so() -> None:
    assert {s.name for s in steps(quick=True) if s.shortened} == {"fuzz", "load", "bench"}
    assert not any(s.shortened for s in steps(quick=False))


def test_quick_runs_ask_for_minutes_and_full_runs_for_the_documented_sizes() -> None:
    quick = {s.name: s for s in steps(quick=True)}
    full = {s.name: s for s in steps(quick=False)}
    assert quick["fuzz"].env == {"NUFI_FUZZ_EXAMPLES": "100"}
    assert full["fuzz"].env == {"NUFI_FUZZ_EXAMPLES": "1000"}
    assert full["load"].argv == ("make", "load") and full["bench"].argv == ("make", "bench")
    assert any(arg.startswith("LOAD_ARGS=") for arg in quick["load"].argv)


def test_every_test_path_a_step_runs_exists() -> None:
    # A moved test file would otherwise make the fault step run nothing, or fail, an hour in.
    root = _PATH.parents[1]
    named = [arg for step in steps(quick=True) for arg in step.argv if arg.startswith("tests/")]
    assert named
    assert [path for path in named if not (root / path.split("::")[0]).exists()] == []
