"""Each part's own settings are read from the settings tree's fields that carry its prefix, every one of
them, with the environment variable names unchanged."""

from __future__ import annotations

import pytest

from nufi.cluster.cache import CacheSettings
from nufi.config import Settings, load_settings
from nufi.monitoring.settings import MonitoringSettings
from nufi.prom.gateway import AdminQueryLimits

pytestmark = pytest.mark.usefixtures("clean_env")


def test_each_part_reads_every_setting_of_its_own(monkeypatch: pytest.MonkeyPatch) -> None:
    given = {
        "NUFI_MONITORING_SCRAPE_INTERVAL_SECONDS": "7",
        "NUFI_MONITORING_MAX_RANGE_SECONDS": "7200",
        "NUFI_MONITORING_REFRESH_SECONDS": "3",
        "NUFI_MONITORING_STREAM_HEARTBEAT_SECONDS": "11",
        "NUFI_PROMQL_MAX_RANGE_SECONDS": "120",
        "NUFI_PROMQL_MIN_SUBQUERY_STEP_SECONDS": "2",
        "NUFI_PROMQL_MAX_SERIES": "42",
        "NUFI_PROMQL_SERIES_CHECK_TIMEOUT_SECONDS": "5",
        "NUFI_PROMQL_MAX_POINTS_PER_SERIES": "500",
        "NUFI_CLUSTER_CACHE_ENABLED": "false",
        "NUFI_CLUSTER_CACHE_RESYNC_SECONDS": "60",
        "NUFI_CLUSTER_CACHE_MAX_OUTAGE_SECONDS": "4",
        "NUFI_CLUSTER_CACHE_WATCH_SECONDS": "9",
    }
    for name, value in given.items():
        monkeypatch.setenv(name, value)
    settings: Settings = load_settings()
    assert MonitoringSettings.from_settings(settings) == MonitoringSettings(
        scrape_interval_seconds=7,
        max_range_seconds=7200,
        refresh_interval_seconds=3,
        stream_heartbeat_seconds=11,
    )
    assert AdminQueryLimits.from_settings(settings) == AdminQueryLimits(
        max_range_seconds=120,
        min_subquery_step_seconds=2,
        max_series=42,
        series_check_timeout_seconds=5,
        max_points_per_series=500,
    )
    cache = CacheSettings.from_settings(settings)
    assert cache == CacheSettings(enabled=False, resync_seconds=60, max_outage_seconds=4, watch_seconds=9)
