"""An empty database for one test, on SQLite or on the test run's PostgreSQL."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import make_url

BACKENDS = ["sqlite", "postgresql"]


def empty_database_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """Yield the URL of an empty database on the backend `request.param` names: a fresh SQLite file,
    or a fresh PostgreSQL database dropped when the fixture ends. Use it as `yield from` in a fixture
    parametrized over `BACKENDS`."""
    if request.param == "sqlite":
        yield f"sqlite+aiosqlite:///{tmp_path / 'nufi.db'}"
        return
    postgres = request.getfixturevalue("postgres")
    name = f"nufi_{uuid.uuid4().hex[:16]}"
    postgres.psql(f"CREATE DATABASE {name}")
    try:
        yield make_url(postgres.sqlalchemy_url).set(database=name).render_as_string(hide_password=False)
    finally:
        postgres.psql(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
