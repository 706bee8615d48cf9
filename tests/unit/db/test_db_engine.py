"""Database URLs: accepted forms, refused ones, and never showing a password."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from nufi.db import display_url, parse_database_url
from nufi.errors import ValidationFailed


@pytest.mark.parametrize(
    ("url", "driver"),
    [
        ("sqlite+aiosqlite:///./nufi.db", "sqlite+aiosqlite"),
        ("sqlite:///./nufi.db", "sqlite+aiosqlite"),
        ("postgresql://nufi:pw@db:5432/nufi", "postgresql+asyncpg"),
        ("postgresql+asyncpg://nufi:pw@db:5432/nufi", "postgresql+asyncpg"),
        ("postgresql+psycopg://nufi:pw@db:5432/nufi", "postgresql+psycopg"),
    ],
)
def test_supported_urls_get_an_async_driver(url: str, driver: str) -> None:
    parsed = parse_database_url(url)
    assert parsed.drivername == driver
    assert parsed.database in ("./nufi.db", "nufi")


@pytest.mark.parametrize(
    ("url", "says"),
    [
        ("mysql+aiomysql://nufi@db/nufi", "'mysql' database"),
        ("postgresql+psycopg2://nufi@db/nufi", "not an asyncio driver; use postgresql+asyncpg"),
        ("sqlite+pysqlite:///nufi.db", "use sqlite+aiosqlite"),
        ("not a url", "not a database URL"),
    ],
)
def test_other_urls_are_refused_naming_the_setting(url: str, says: str) -> None:
    with pytest.raises(ValidationFailed) as caught:
        parse_database_url(url)
    assert caught.value.field == "NUFI_DATABASE_URL"
    assert says in caught.value.detail


@given(st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789-._~", min_size=1, max_size=30))
def test_display_url_never_shows_the_password(password: str) -> None:
    shown = display_url(f"postgresql+asyncpg://nufi:ZZ{password}ZZ@db:5432/nufi")
    assert f"ZZ{password}ZZ" not in shown
    assert shown == "postgresql+asyncpg://nufi:***@db:5432/nufi"


def test_display_url_keeps_a_url_without_password() -> None:
    assert (
        display_url("sqlite+aiosqlite:////var/lib/nufi/nufi.db")
        == "sqlite+aiosqlite:////var/lib/nufi/nufi.db"
    )
