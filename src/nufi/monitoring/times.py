"""Instants and durations as monitoring's callers write them, and as it writes them back.

Instants are RFC 3339 with a time zone (`2026-05-01T12:00:00Z`, `...+09:00`) or Unix seconds (`1777636800`,
`1777636800.5`), as Prometheus accepts them. Durations are seconds (`30`, `0.5`) or Prometheus-style
units (`30s`, `5m`, `1h30m`, `500ms`). Every rejection names the parameter.
"""

from __future__ import annotations

import math
import re
from datetime import UTC, datetime

from nufi.errors import ValidationFailed

_UNIX = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?", re.ASCII)
# RFC 3339: a full date, `T` (or a space), a time, and an offset or `Z`.
_RFC3339 = re.compile(
    r"\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?(?:[Zz]|[+-]\d{2}:\d{2})", re.ASCII
)
_DURATION_PART = re.compile(r"(\d+)(ms|s|m|h|d|w)", re.ASCII)
_UNIT_SECONDS = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0, "d": 86400.0, "w": 604800.0}
# Prometheus' own range of representable times, in seconds around the epoch.
_MAX_ABS_SECONDS = 9_223_372_036.0


def rfc3339(timestamp: float) -> str:
    """Unix seconds as RFC 3339 UTC with milliseconds, e.g. `2026-05-01T12:00:00.000Z`."""
    moment = datetime.fromtimestamp(timestamp, tz=UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def parse_instant(text: str, *, field: str) -> float:
    """Unix seconds from RFC 3339 or Unix-seconds text; ValidationFailed naming `field` otherwise."""
    value = text.strip()
    if _UNIX.fullmatch(value):
        seconds = float(value)
    elif _RFC3339.fullmatch(value):
        seconds = _from_rfc3339(value, field)
    else:
        raise ValidationFailed(code="monitoring.time_invalid", field=field, params={"value": text})
    if not math.isfinite(seconds) or abs(seconds) > _MAX_ABS_SECONDS:
        raise ValidationFailed(code="monitoring.time_out_of_range", field=field, params={"value": text})
    return seconds


def parse_duration(text: str, *, field: str) -> float:
    """Seconds from `30`, `0.5`, `30s`, `5m`, `1h30m` or `500ms`; it must be positive."""
    value = text.strip()
    seconds: float | None = None
    if _UNIX.fullmatch(value):
        seconds = float(value)
    elif value and _duration_parts_cover(value):
        seconds = sum(int(n) * _UNIT_SECONDS[unit] for n, unit in _DURATION_PART.findall(value))
    if seconds is None or not math.isfinite(seconds) or seconds <= 0:
        raise ValidationFailed(code="monitoring.duration_invalid", field=field, params={"value": text})
    return seconds


def _duration_parts_cover(value: str) -> bool:
    return "".join(match.group(0) for match in _DURATION_PART.finditer(value)) == value


def _from_rfc3339(value: str, field: str) -> float:
    normalised = value.replace("z", "Z").replace("t", "T").replace(" ", "T")
    date, _, rest = normalised.partition("T")
    # Python keeps microseconds; nanosecond digits beyond them are dropped.
    clock, offset = (rest[:-1], "+00:00") if rest.endswith("Z") else (rest[:-6], rest[-6:])
    if "." in clock:
        whole, fraction = clock.split(".")
        clock = f"{whole}.{fraction[:6].ljust(6, '0')}"
    try:
        return datetime.fromisoformat(f"{date}T{clock}{offset}").timestamp()
    except (ValueError, OverflowError) as exc:
        # Python's own words for what is wrong with the date, shown verbatim inside the sentence.
        raise ValidationFailed(
            code="monitoring.datetime_invalid", field=field, params={"value": value, "reason": str(exc)}
        ) from None
