"""UtcDateTime: one behaviour for timestamps on SQLite and PostgreSQL."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest
from hypothesis import given
from hypothesis import strategies as st
from sqlalchemy import make_url
from sqlalchemy.engine import Dialect

from nufi.db.types import UtcDateTime


def dialect_of(url: str) -> Dialect:
    return make_url(url).get_dialect()()


SQLITE = dialect_of("sqlite+aiosqlite://")
DIALECTS = [SQLITE, dialect_of("postgresql+asyncpg://")]
zones = st.integers(min_value=-14 * 60, max_value=14 * 60).map(lambda m: timezone(timedelta(minutes=m)))
aware = st.datetimes(min_value=datetime(1971, 1, 1), max_value=datetime(2200, 1, 1), timezones=zones)


@pytest.mark.parametrize("dialect", DIALECTS, ids=lambda d: d.name)
@given(moment=aware)
def test_any_aware_time_comes_back_as_the_same_instant_in_utc(dialect: Dialect, moment: datetime) -> None:
    column = UtcDateTime()
    stored = column.process_bind_param(moment, dialect)
    assert stored is not None
    back = column.process_result_value(stored, dialect)
    assert back == moment
    assert back is not None and back.utcoffset() == timedelta(0)


@given(moment=aware)
def test_sqlite_stores_naive_utc(moment: datetime) -> None:
    stored = UtcDateTime().process_bind_param(moment, SQLITE)
    assert stored is not None and stored.tzinfo is None
    assert stored == moment.astimezone(UTC).replace(tzinfo=None)


@pytest.mark.parametrize("dialect", DIALECTS, ids=lambda d: d.name)
def test_naive_times_are_refused(dialect: Dialect) -> None:
    with pytest.raises(ValueError, match="timezone-aware"):
        UtcDateTime().process_bind_param(datetime(2026, 5, 1, 12, 0), dialect)


@pytest.mark.parametrize("dialect", DIALECTS, ids=lambda d: d.name)
def test_null_stays_null(dialect: Dialect) -> None:
    column = UtcDateTime()
    assert column.process_bind_param(None, dialect) is None
    assert column.process_result_value(None, dialect) is None
