"""The suite's Hypothesis profiles never fail a test on wall-clock time, and a wrong name is refused."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from hypothesis import settings

from support.hypothesis_profiles import PROFILES, register_profiles


@pytest.fixture
def restore_profile() -> Iterator[None]:
    before = settings.get_current_profile_name()
    yield
    settings.load_profile(before)


@pytest.mark.usefixtures("restore_profile")
@pytest.mark.parametrize("name", PROFILES)
def test_every_profile_has_no_deadline_and_prints_the_reproduction_blob(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HYPOTHESIS_PROFILE", name)
    assert register_profiles() == name
    assert settings().deadline is None
    assert settings().print_blob is True


@pytest.mark.usefixtures("restore_profile")
@pytest.mark.parametrize(("ci", "expected"), [("true", "ci"), ("", "dev")])
def test_ci_is_chosen_from_the_environment(ci: str, expected: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("HYPOTHESIS_PROFILE", raising=False)
    monkeypatch.setenv("CI", ci)
    assert register_profiles() == expected


@pytest.mark.usefixtures("restore_profile")
def test_an_unknown_profile_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HYPOTHESIS_PROFILE", "fast")
    with pytest.raises(ValueError, match="expected one of ci, dev, thorough"):
        register_profiles()
