"""Which unique constraint did the database refuse?

PostgreSQL drivers report the constraint's name, which our naming convention ties to its columns.
SQLite reports no name, but its extended result code tells a primary-key clash from a UNIQUE one;
only when a table has several UNIQUE constraints do we fall back to the columns SQLite lists in its
message, whose format (`UNIQUE constraint failed: table.column, ...`) is part of its stable output.
"""

from __future__ import annotations

from collections.abc import Iterator

from sqlalchemy import PrimaryKeyConstraint, Table, UniqueConstraint
from sqlalchemy.exc import IntegrityError

_SQLITE_PRIMARY_KEY = "SQLITE_CONSTRAINT_PRIMARYKEY"
_SQLITE_UNIQUE = "SQLITE_CONSTRAINT_UNIQUE"
_SQLITE_UNIQUE_MESSAGE = "UNIQUE constraint failed: "
# PostgreSQL's SQLSTATE for unique_violation.
_PG_UNIQUE_VIOLATION = "23505"


def violated_unique_columns(error: IntegrityError, table: Table) -> tuple[str, ...] | None:
    """The columns of the primary key or UNIQUE constraint of `table` that `error` reports, else None.

    None means the error is some other integrity failure (NOT NULL, CHECK, a foreign key) or concerns
    another table; the caller should let it propagate.
    """
    candidates = _unique_constraints(table)
    for cause in _causes(error):
        name = _constraint_name(cause)
        if name is not None:
            if _sqlstate(cause) not in (None, _PG_UNIQUE_VIOLATION):
                return None
            return candidates.get(name)
        errorname = getattr(cause, "sqlite_errorname", None)
        if errorname == _SQLITE_PRIMARY_KEY:
            return _primary_key_columns(table)
        if errorname == _SQLITE_UNIQUE:
            return _sqlite_unique_columns(str(cause), table, candidates)
    return None


def _causes(error: BaseException) -> Iterator[BaseException]:
    """The error, the driver error SQLAlchemy wrapped, and whatever that wrapped in turn."""
    seen: set[int] = set()
    pending: list[BaseException | None] = [error]
    while pending:
        current = pending.pop(0)
        if current is None or id(current) in seen:
            continue
        seen.add(id(current))
        yield current
        inner = getattr(current, "orig", None)
        pending.append(inner if isinstance(inner, BaseException) else None)
        pending.append(current.__cause__)


def _constraint_name(cause: BaseException) -> str | None:
    # asyncpg sets `constraint_name`; psycopg puts it under `diag`.
    name = getattr(cause, "constraint_name", None)
    if name is None:
        name = getattr(getattr(cause, "diag", None), "constraint_name", None)
    return name if isinstance(name, str) and name else None


def _sqlstate(cause: BaseException) -> str | None:
    code = getattr(cause, "sqlstate", None) or getattr(cause, "pgcode", None)
    return code if isinstance(code, str) else None


def _unique_constraints(table: Table) -> dict[str, tuple[str, ...]]:
    found: dict[str, tuple[str, ...]] = {}
    for constraint in table.constraints:
        if isinstance(constraint, PrimaryKeyConstraint | UniqueConstraint) and isinstance(
            constraint.name, str
        ):
            found[constraint.name] = tuple(column.name for column in constraint.columns)
    for index in table.indexes:
        if index.unique and isinstance(index.name, str):
            found[index.name] = tuple(column.name for column in index.columns)
    return found


def _primary_key_columns(table: Table) -> tuple[str, ...]:
    return tuple(column.name for column in table.primary_key.columns)


def _sqlite_unique_columns(
    message: str, table: Table, candidates: dict[str, tuple[str, ...]]
) -> tuple[str, ...] | None:
    primary_key = _primary_key_columns(table)
    unique = [columns for columns in candidates.values() if columns != primary_key]
    if len(unique) == 1:
        return unique[0]
    start = message.find(_SQLITE_UNIQUE_MESSAGE)
    if start < 0:
        return None
    named = message[start + len(_SQLITE_UNIQUE_MESSAGE) :].split(",")
    columns: list[str] = []
    for qualified in named:
        table_name, _, column = qualified.strip().partition(".")
        if table_name != table.name:
            return None
        columns.append(column)
    return tuple(columns) if tuple(columns) in unique else None
