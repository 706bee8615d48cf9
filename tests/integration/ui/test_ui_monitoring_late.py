"""The monitoring page while the metrics engine shows a type's data late (VictoriaMetrics'
`-search.latencyOffset`, monitoring/snapshots/lag.py): a banner above the table says how late, that thermal
control waits, and what to check, in the page's language; it goes once the data is in time again, and
late data is not listed among the data that could not be read."""

from __future__ import annotations

import re
import time

import pytest
from nicegui import ElementFilter, ui
from nicegui.testing import User

from nufi.auth import Principal
from nufi.devices.presets import OFFICIAL_PRESETS
from nufi.monitoring.snapshots.lag import lagging
from nufi.monitoring.snapshots.overview import Overview, OverviewRow
from nufi.monitoring.snapshots.paging import PageQuery, SnapshotPage
from nufi.monitoring.snapshots.snapshot import Snapshot, Summary
from support.polling import eventually

from .wizard_world import as_, attached_services

WITHIN = 15.0
KIND = "nvidia-gpu"


def snapshot(lag_seconds: float, *, late: bool) -> Snapshot:
    return Snapshot(
        device_type=KIND,
        time=time.time(),
        summary=Summary.of(()),
        nodes=(),
        stale=(),
        errors=(lagging(KIND, lag_seconds, 3.0),) if late else (),
        age_seconds=lag_seconds + 0.2,
        lag_seconds=lag_seconds,
    )


@pytest.fixture
def engine(offline: User, monkeypatch: pytest.MonkeyPatch) -> list[Snapshot]:
    """What the page reads of the NVIDIA type: the test sets the snapshot."""
    now = [snapshot(31.0, late=True)]
    monitoring = attached_services().monitoring

    async def overview(principal: Principal | None) -> Overview:
        return Overview((OverviewRow(OFFICIAL_PRESETS[KIND], now[0]),))

    async def snapshot_page(
        principal: Principal | None, device_type_id: str, query: PageQuery
    ) -> SnapshotPage:
        return SnapshotPage(now[0], matched_nodes=0, continue_token=None)

    monkeypatch.setattr(monitoring, "overview", overview)
    monkeypatch.setattr(monitoring, "snapshot_page", snapshot_page)
    return now


def banner(user: User) -> ui.element:
    """The banner, shown or hidden."""
    with user:
        (found,) = ElementFilter(marker="metrics-late")
    return found


def said(user: User) -> list[str]:
    return [part.text for part in banner(user).descendants() if isinstance(part, ui.label)]


@pytest.mark.parametrize(
    ("language", "headline", "advice"),
    [
        (
            "ko",
            "메트릭 데이터가 31초 늦게 들어오고 있습니다.",
            "-search.latencyOffset을 스크레이프 간격 이하로",
        ),
        (
            "en",
            "Metrics are arriving 31 s late.",
            "set -search.latencyOffset no larger than the scrape interval",
        ),
    ],
)
async def test_late_data_is_said_above_the_table_until_it_is_in_time(
    offline: User, engine: list[Snapshot], language: str, headline: str, advice: str
) -> None:
    await as_(offline, "user", language).open("/")
    await eventually(lambda: banner(offline), within=WITHIN)
    assert banner(offline).visible
    first, why = said(offline)
    assert first.startswith(headline) and advice in why
    if language == "ko":
        # Korean throughout: the engine's flag is the only Latin text.
        assert not re.search(r"\b(the|is|late|data)\b", first + why), (first, why)
    # Not also among the data that could not be read.
    with offline:
        assert list(ElementFilter(kind=ui.expansion)) == []
    engine[0] = snapshot(0.4, late=False)

    def gone() -> None:
        assert not banner(offline).visible

    await eventually(gone, within=WITHIN)
