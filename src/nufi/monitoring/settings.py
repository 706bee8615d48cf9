"""How monitoring judges freshness: the scrape interval of the device exporters.

Read from `NUFI_MONITORING_*` environment variables. A metric is stale once it has been silent for
more than `STALE_AFTER_INTERVALS` scrape intervals, and it drops out of snapshots once it has been
silent for more than `FORGET_AFTER_INTERVALS` (Prometheus itself forgets a silent series at once,
or after its 5-minute lookback). Every interval of that window is one more evaluation of each
expression per snapshot, which is why it is not longer.
"""

from __future__ import annotations

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

STALE_AFTER_INTERVALS = 3
FORGET_AFTER_INTERVALS = 10


class MonitoringSettings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="NUFI_MONITORING_", env_ignore_empty=True, frozen=True)

    # The `scrape_interval` of the Prometheus jobs that scrape device exporters. Every staleness
    # judgement and the finest default step of a time range are multiples of it.
    scrape_interval_seconds: float = Field(default=15.0, gt=0, le=3600)

    @property
    def stale_after_seconds(self) -> float:
        return STALE_AFTER_INTERVALS * self.scrape_interval_seconds

    @property
    def window_seconds(self) -> float:
        return FORGET_AFTER_INTERVALS * self.scrape_interval_seconds
