"""The page-build budget is always the limit a page meets, never NiceGUI's own."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from nufi.config import Settings
from nufi.ui.page_budget import NICEGUI_RESPONSE_TIMEOUT_SECONDS


def test_no_budget_the_settings_allow_reaches_nicegui_s_limit() -> None:
    with pytest.raises(ValidationError, match="dashboard_page_build_timeout_seconds"):
        Settings(dashboard_page_build_timeout_seconds=NICEGUI_RESPONSE_TIMEOUT_SECONDS - 1)
    assert Settings().dashboard_page_build_timeout_seconds < NICEGUI_RESPONSE_TIMEOUT_SECONDS
