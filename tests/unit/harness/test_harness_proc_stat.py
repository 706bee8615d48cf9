"""Reading /proc/<pid>/stat lines, which the leak guard and process control rely on."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from nufi_sandbox.processes import ProcStat, parse_proc_stat


@given(
    pid=st.integers(min_value=1, max_value=4_194_304),
    comm=st.text(alphabet=st.characters(exclude_characters="\0"), max_size=32),
    state=st.sampled_from("RSDZTtWXIP"),
    ppid=st.integers(min_value=0, max_value=4_194_304),
    pgrp=st.integers(min_value=0, max_value=4_194_304),
)
def test_parse_proc_stat_survives_any_command_name(
    pid: int, comm: str, state: str, ppid: int, pgrp: int
) -> None:
    line = f"{pid} ({comm}) {state} {ppid} {pgrp} {pgrp} 0 -1 4194560 1 2 3\n"
    assert parse_proc_stat(line) == ProcStat(pid, comm, state, ppid, pgrp)


@pytest.mark.parametrize("line", ["", "garbage", "12 (x)", "abc (x) S 1 2"])
def test_parse_proc_stat_rejects_what_is_not_a_stat_line(line: str) -> None:
    with pytest.raises(ValueError, match="not a /proc/<pid>/stat line"):
        parse_proc_stat(line)
