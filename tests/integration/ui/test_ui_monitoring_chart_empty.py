"""The monitoring page's chart when the range holds no point yet (data that has only just started
arriving has none on a long range's grid): it says so, and which range shows it sooner, in the page's
language, instead of an empty grid; with points, the chart is drawn."""

from __future__ import annotations

import time

import pytest
from nicegui import ElementFilter, ui
from nicegui.testing import User

from nufi.auth import Principal
from nufi.devices.presets import OFFICIAL_PRESETS
from nufi.monitoring.ranges.request import RangeQuery, RangeRequest
from nufi.monitoring.ranges.result import RangeResult, RangeSeries
from nufi.monitoring.snapshots.overview import Overview, OverviewRow
from nufi.monitoring.snapshots.paging import PageQuery, SnapshotPage
from nufi.monitoring.snapshots.snapshot import Snapshot, Summary
from support.polling import eventually

from .wizard_world import as_, attached_services

WITHIN = 15.0
KIND = "nvidia-gpu"
# The span of each range the chart asked for, in seconds before now.
asked: list[float] = []


@pytest.fixture
def points(offline: User, monkeypatch: pytest.MonkeyPatch) -> list[tuple[tuple[float, float], ...]]:
    """What the chart's range holds for the one node (the test sets it); the table is empty."""
    held: list[tuple[tuple[float, float], ...]] = [()]
    asked.clear()
    monitoring = attached_services().monitoring
    now = time.time()
    snapshot = Snapshot(KIND, now, Summary.of(()), (), (), (), age_seconds=0.5)

    async def overview(principal: Principal | None) -> Overview:
        return Overview((OverviewRow(OFFICIAL_PRESETS[KIND], snapshot),))

    async def snapshot_page(
        principal: Principal | None, device_type_id: str, query: PageQuery
    ) -> SnapshotPage:
        return SnapshotPage(snapshot, matched_nodes=0, continue_token=None)

    async def history(principal: Principal | None, device_type_id: str, query: RangeQuery) -> RangeResult:
        asked.append(now - float(query.start or now))
        request = RangeRequest("utilization", now - 3600, now, 30.0, by="node")
        return RangeResult(KIND, request, True, (RangeSeries("gpu-node-1", None, held[0]),))

    monkeypatch.setattr(monitoring, "overview", overview)
    monkeypatch.setattr(monitoring, "snapshot_page", snapshot_page)
    monkeypatch.setattr(monitoring, "history", history)
    return held


def empty_note(user: User) -> list[str]:
    with user:
        return [label.text for label in ElementFilter(kind=ui.label, marker="chart-empty")]


def charts(user: User) -> list[ui.echart]:
    with user:
        return list(ElementFilter(kind=ui.echart))


@pytest.mark.parametrize(
    ("language", "headline"),
    [("ko", "이 기간에는 아직 그릴 값이 없습니다."), ("en", "Nothing to draw in this range yet.")],
)
async def test_a_range_without_points_says_so_instead_of_an_empty_grid(
    offline: User, points: list[tuple[tuple[float, float], ...]], language: str, headline: str
) -> None:
    await as_(offline, "user", language).open("/")

    def noted() -> str:
        found = empty_note(offline)
        assert len(found) == 1, found
        return found[0]

    said = await eventually(noted, within=WITHIN)
    # The shortest range is named as the one that shows young data sooner.
    assert said.startswith(headline) and "15m" in said, said
    assert charts(offline) == []


async def test_a_range_with_points_is_drawn(
    offline: User, points: list[tuple[tuple[float, float], ...]]
) -> None:
    points[0] = ((time.time() - 30, 42.0),)
    await as_(offline, "user", "en").open("/")

    def drawn() -> None:
        assert len(charts(offline)) == 1

    await eventually(drawn, within=WITHIN)
    assert empty_note(offline) == []


async def test_data_a_minute_old_opens_on_the_shortest_range_not_a_sliver_of_an_hour(
    offline: User, points: list[tuple[tuple[float, float], ...]]
) -> None:
    points[0] = ((time.time() - 60, 42.0), (time.time() - 30, 43.0))
    await as_(offline, "user", "en").open("/")

    def fitted() -> None:
        with offline:
            (toggle,) = ElementFilter(kind=ui.toggle, marker="chart-range")
        assert toggle.value == "15m"
        assert len(asked) == 2 and abs(asked[0] - 3600) < 60 and abs(asked[1] - 900) < 60, asked

    await eventually(fitted, within=WITHIN)
    assert len(charts(offline)) == 1
