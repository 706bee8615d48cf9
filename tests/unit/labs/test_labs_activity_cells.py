"""The Labs page's "last active" cell in Korean and English: how long ago, in use now, no use since the
start, unknown when the lab could not be read (never a wrong "never"), and a dash for a lab not
running; the exact instant behind it goes to the tooltip."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from nufi.ui.i18n import Translator
from nufi.ui.pages.labs import activity_cells
from nufi.workloads.labs.activity import Activity


@pytest.mark.parametrize(
    ("language", "ago", "busy", "none", "unknown"),
    [
        ("ko", "3분 전", "지금 코드 실행 중", "시작 후 활동 없음", "알 수 없음"),
        ("en", "3 min ago", "Running code now", "Not since it started", "Unknown"),
    ],
)
def test_the_cell_says_when_in_the_readers_words(
    language: str, ago: str, busy: str, none: str, unknown: str
) -> None:
    t = Translator(language)  # type: ignore[arg-type]
    # Taken when the test runs (the cell counts from the clock), not when the module was imported.
    now = datetime.now(UTC)
    then = now - timedelta(minutes=3, seconds=10)
    used = activity_cells(t, Activity("code-server", "idle", then, now))
    assert used["last_active"] == ago
    assert used["active_at"] == then.isoformat() and used["active_utc"].endswith(" UTC")
    assert activity_cells(t, Activity("jupyter", "busy", now, now))["last_active"] == busy
    assert activity_cells(t, Activity("code-server", "idle", None, now))["last_active"] == none
    unreachable = activity_cells(t, Activity("jupyter", "unreachable", None, now))
    assert unreachable["last_active"] == unknown
    # When it was asked, in the tooltip: an unknown is not a time of use.
    assert unreachable["active_at"] == now.isoformat()
    assert unreachable["active_tip"] != used["active_tip"]
    not_running = activity_cells(t, None)
    assert not_running == {"last_active": "—", "active_tip": "", "active_at": "", "active_utc": ""}
