"""How domain values are written in response bodies: whole bytes, RFC 3339 instants."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

from pydantic import PlainSerializer, WithJsonSchema

from nufi.monitoring.times import rfc3339


def whole_bytes(value: float | None) -> int | None:
    return None if value is None else round(value)


_DATE_TIME = WithJsonSchema({"type": "string", "format": "date-time"}, mode="serialization")

# Unix seconds, written as RFC 3339 UTC with milliseconds (`2026-05-01T12:00:00.000Z`).
Instant = Annotated[float, PlainSerializer(rfc3339, return_type=str), _DATE_TIME]
# A byte count, written as a whole number.
Bytes = Annotated[float, PlainSerializer(round, return_type=int)]
# A byte count the device may not report (None), written as a whole number.
MaybeBytes = Annotated[float | None, PlainSerializer(whole_bytes, return_type=int | None)]
# A timezone-aware moment, written as ISO 8601 with its offset (`2026-05-01T12:00:00+00:00`).
Timestamp = Annotated[datetime, PlainSerializer(datetime.isoformat, return_type=str), _DATE_TIME]
