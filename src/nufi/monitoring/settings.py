"""How monitoring judges freshness and how often it evaluates: the scrape interval of the exporters.

Part of the server's one settings tree (`NUFI_MONITORING_SCRAPE_INTERVAL_SECONDS`, or
`monitoring_scrape_interval_seconds` in the settings file). A metric is stale once it has been silent
for more than `STALE_AFTER_INTERVALS` scrape intervals, and it drops out of snapshots once it has been
silent for more than `FORGET_AFTER_INTERVALS` (the refreshers remember silent series that long). A type
being read is evaluated once per refresh interval (`NUFI_MONITORING_REFRESH_SECONDS`, by default the
scrape interval: evaluating more often shows nothing new).
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from nufi.config import Settings, settings_part
from nufi.monitoring.ranges.request import DEFAULT_MAX_RANGE_SECONDS

STALE_AFTER_INTERVALS = 3
FORGET_AFTER_INTERVALS = 10


class MonitoringSettings(BaseModel):
    model_config = ConfigDict(frozen=True)

    scrape_interval_seconds: float = Field(default=15.0, gt=0, le=3600)
    # How often a type that is being read is evaluated; None: once per scrape interval.
    refresh_interval_seconds: float | None = Field(default=None, gt=0, le=3600)
    # A stream sends a comment line after this long without a snapshot, so proxies keep it open.
    stream_heartbeat_seconds: float = Field(default=15.0, gt=0, le=3600)
    # The longest time range one request may ask for.
    max_range_seconds: float = Field(default=DEFAULT_MAX_RANGE_SECONDS, ge=60, le=10 * 366 * 86400)

    @classmethod
    def from_settings(cls, settings: Settings) -> MonitoringSettings:
        renamed = {"refresh_interval_seconds": "monitoring_refresh_seconds"}
        return cls(**settings_part(settings, "monitoring_", cls.model_fields, **renamed))

    @property
    def refresh_seconds(self) -> float:
        return self.refresh_interval_seconds or self.scrape_interval_seconds

    @property
    def stale_after_seconds(self) -> float:
        return STALE_AFTER_INTERVALS * self.scrape_interval_seconds

    @property
    def window_seconds(self) -> float:
        return FORGET_AFTER_INTERVALS * self.scrape_interval_seconds
