"""The workload forms' own parsing, no cluster needed: env lines, member lists and ages."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from hypothesis import given
from hypothesis import strategies as st

from nufi.ui.i18n import Translator
from nufi.ui.pages.deployments import parse_env
from nufi.ui.pages.projects import split_members
from nufi.ui.parts.workload_forms import age, as_int, chosen_project
from nufi.workloads.projects import Project

_NAMES = st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,20}", fullmatch=True)
_VALUES = st.text(st.characters(blacklist_categories=("Cc", "Cs", "Zl", "Zp")), max_size=30)

EN, KO = Translator("en"), Translator("ko")


@given(st.lists(st.tuples(_NAMES, _VALUES), max_size=8))
def test_env_lines_come_back_as_the_pairs_they_were_written_from(pairs: list[tuple[str, str]]) -> None:
    written = "\n".join(f"{name}={value}" for name, value in pairs)
    assert parse_env(written) == [{"name": name, "value": value} for name, value in pairs]


def test_env_blank_lines_are_skipped_and_a_value_may_hold_equals_signs() -> None:
    assert parse_env("\nA=1\n\n  \nB=x=y\n") == [{"name": "A", "value": "1"}, {"name": "B", "value": "x=y"}]


def test_an_env_line_without_a_name_or_an_equals_sign_is_named_by_its_number() -> None:
    assert parse_env("A=1\nJUSTAWORD") == "2: 'JUSTAWORD'"
    assert parse_env("=value") == "1: '=value'"


@given(st.lists(st.from_regex(r"[a-z][a-z0-9.-]{0,10}", fullmatch=True), max_size=6))
def test_members_may_be_separated_by_commas_spaces_or_new_lines(names: list[str]) -> None:
    assert split_members(", ".join(names)) == names
    assert split_members("\n".join(names)) == names
    assert split_members(" ,, ".join(names)) == names


def test_ages_as_kubectl_shows_them() -> None:
    now = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)

    def ago(delta: timedelta) -> str:
        return (now - delta).strftime("%Y-%m-%dT%H:%M:%SZ")

    assert age(ago(timedelta(seconds=45)), EN, now) == "45s"
    assert age(ago(timedelta(minutes=12, seconds=3)), EN, now) == "12m"
    assert age(ago(timedelta(hours=3)), KO, now) == "3시간"
    assert age(ago(timedelta(days=2, hours=5)), KO, now) == "2일"
    assert age(None, EN, now) == "—" and age("not a time", EN, now) == "—"
    # A clock a little behind the API server's is not a negative age.
    assert age(ago(timedelta(seconds=-5)), EN, now) == "0s"


def test_number_inputs_become_whole_numbers_and_anything_else_is_left_for_validation() -> None:
    assert as_int(3.0) == 3
    assert as_int(2.5) == 2.5
    assert as_int(None) is None


def test_the_url_project_is_kept_only_when_the_person_may_see_it() -> None:
    mine = [Project("alpha", ("user",)), Project("beta", ("user",))]
    assert chosen_project(mine, "beta") == "beta"
    assert chosen_project(mine, "theirs") == "alpha"
    assert chosen_project(mine, "") == "alpha"
    assert chosen_project([], "alpha") is None
