"""Telling which unique constraint a database refused, from the errors each driver raises."""

from __future__ import annotations

import sqlite3

import asyncpg  # type: ignore[import-untyped]
from sqlalchemy import Column, Integer, MetaData, String, Table, UniqueConstraint
from sqlalchemy.exc import EmulatedDBAPIException, IntegrityError

from nufi.db.integrity import violated_unique_columns
from nufi.db.tables import DeviceTypeRow

DEVICE_TYPES: Table = DeviceTypeRow.__table__  # type: ignore[assignment]


def sqlite_error(message: str, errorname: str) -> IntegrityError:
    cause = sqlite3.IntegrityError(message)
    cause.sqlite_errorname = errorname
    return IntegrityError("INSERT ...", {}, cause)


def asyncpg_error(constraint: str, sqlstate: str = "23505") -> IntegrityError:
    """Shaped as SQLAlchemy's asyncpg dialect raises it: its own DBAPI error wrapping asyncpg's."""
    driver = asyncpg.exceptions.UniqueViolationError("duplicate key value violates unique constraint")
    driver.constraint_name = constraint
    driver.sqlstate = sqlstate
    wrapped = EmulatedDBAPIException(str(driver), driver)
    return IntegrityError("INSERT ...", {}, wrapped)


class PsycopgDiag:
    def __init__(self, constraint_name: str) -> None:
        self.constraint_name = constraint_name


class PsycopgError(Exception):
    def __init__(self, constraint: str) -> None:
        super().__init__("duplicate key")
        self.diag = PsycopgDiag(constraint)
        self.sqlstate = "23505"


def test_sqlite_primary_key_clash_is_the_id() -> None:
    error = sqlite_error("UNIQUE constraint failed: device_types.id", "SQLITE_CONSTRAINT_PRIMARYKEY")
    assert violated_unique_columns(error, DEVICE_TYPES) == ("id",)


def test_sqlite_unique_clash_is_the_resource_key_whatever_the_message() -> None:
    # The only UNIQUE constraint of the table: the result code alone decides.
    error = sqlite_error("reworded by some future SQLite", "SQLITE_CONSTRAINT_UNIQUE")
    assert violated_unique_columns(error, DEVICE_TYPES) == ("resource_key",)


def test_sqlite_other_integrity_failures_are_not_unique_clashes() -> None:
    for errorname in ("SQLITE_CONSTRAINT_NOTNULL", "SQLITE_CONSTRAINT_CHECK", "SQLITE_CONSTRAINT_FOREIGNKEY"):
        error = sqlite_error("NOT NULL constraint failed: device_types.name", errorname)
        assert violated_unique_columns(error, DEVICE_TYPES) is None


def test_postgres_constraint_names_map_to_their_columns() -> None:
    assert violated_unique_columns(asyncpg_error("pk_device_types"), DEVICE_TYPES) == ("id",)
    assert violated_unique_columns(asyncpg_error("uq_device_types_resource_key"), DEVICE_TYPES) == (
        "resource_key",
    )


def test_psycopg_style_diagnostics_are_understood() -> None:
    error = IntegrityError("INSERT ...", {}, PsycopgError("uq_device_types_resource_key"))
    assert violated_unique_columns(error, DEVICE_TYPES) == ("resource_key",)


def test_postgres_constraints_of_other_tables_or_kinds_are_not_ours() -> None:
    assert violated_unique_columns(asyncpg_error("pk_audit_log"), DEVICE_TYPES) is None
    # A CHECK violation also carries a constraint name, but is no clash.
    assert violated_unique_columns(asyncpg_error("ck_device_types_kind", "23514"), DEVICE_TYPES) is None


def test_an_error_without_driver_detail_is_not_a_clash() -> None:
    error = IntegrityError("INSERT ...", {}, Exception("something"))
    assert violated_unique_columns(error, DEVICE_TYPES) is None


def two_unique_table() -> Table:
    return Table(
        "things",
        MetaData(),
        Column("id", Integer, primary_key=True),
        Column("slug", String),
        Column("a", String),
        Column("b", String),
        UniqueConstraint("slug", name="uq_things_slug"),
        UniqueConstraint("a", "b", name="uq_things_a_b"),
    )


def test_with_several_unique_constraints_sqlite_names_the_columns() -> None:
    table = two_unique_table()
    slug = sqlite_error("UNIQUE constraint failed: things.slug", "SQLITE_CONSTRAINT_UNIQUE")
    pair = sqlite_error("UNIQUE constraint failed: things.a, things.b", "SQLITE_CONSTRAINT_UNIQUE")
    elsewhere = sqlite_error("UNIQUE constraint failed: others.slug", "SQLITE_CONSTRAINT_UNIQUE")
    assert violated_unique_columns(slug, table) == ("slug",)
    assert violated_unique_columns(pair, table) == ("a", "b")
    assert violated_unique_columns(elsewhere, table) is None
