"""A page that cannot be built in time answers a message to retry (503 with Retry-After), in the
person's language, not NiceGUI's 500: `sample_page.SLOW_PAGE` waits on a dependency that never
answers, under a budget of half a second."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from nicegui.testing import User

from nufi.ui.page_budget import RETRY_AFTER_SECONDS

from .sample_page import SLOW_PATH
from .wizard_world import as_, dashboard, dashboard_env

BUDGET_SECONDS = 0.5


@pytest.fixture
async def hurried(tmp_path: Path) -> AsyncIterator[User]:
    env = dashboard_env(tmp_path) | {"NUFI_TEST_PAGE_BUILD_TIMEOUT_SECONDS": str(BUDGET_SECONDS)}
    async with dashboard(env) as user:
        yield user


@pytest.mark.parametrize(
    ("language", "title", "retry"),
    [
        ("en", "This page is taking longer than usual", "Try again"),
        ("ko", "페이지를 여는 데 평소보다 오래 걸리고 있습니다", "다시 시도"),
    ],
)
async def test_a_page_past_its_budget_says_to_retry_with_503_and_retry_after(
    hurried: User, language: str, title: str, retry: str
) -> None:
    as_(hurried, "admin", language)
    answer = await hurried.http_client.get(f"{SLOW_PATH}?hold=1")
    assert answer.status_code == 503, answer.text[:500]
    assert answer.headers["retry-after"] == str(RETRY_AFTER_SECONDS)
    assert title in answer.text
    assert retry in answer.text
    # What the build drew before it ran out is gone; the frame stays.
    assert "drawn before the wait" not in answer.text
    assert "drawn after the wait" not in answer.text
    assert f'"href":"{SLOW_PATH}?hold=1"' in answer.text  # "try again" opens the same page
    assert '"href":"/admin/devices"' in answer.text  # the sidebar


async def test_a_page_built_within_its_budget_is_served_whole(hurried: User) -> None:
    as_(hurried, "admin", "en")
    answer = await hurried.http_client.get(SLOW_PATH)
    assert answer.status_code == 200, answer.text[:500]
    assert "retry-after" not in answer.headers
    assert "drawn before the wait" in answer.text
    assert "drawn after the wait" in answer.text
    assert "This page is taking longer than usual" not in answer.text
