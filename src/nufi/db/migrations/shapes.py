"""Table shapes that more than one migration creates, written once.

They belong to the history of the migrations that use them, so they never change: a later schema
change is a new migration altering the tables, never an edit here.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import sqlalchemy as sa
from alembic import op

# Index name to the columns it covers, in the order the migration creates them.
Indexes = Mapping[str, Sequence[str]]


def create_table(table: str, *parts: sa.Column[object] | sa.Constraint, indexes: Indexes) -> None:
    """`table` with its primary key named as the models name it, then its indexes."""
    op.create_table(table, *parts)
    for index, columns in indexes.items():
        op.create_index(index, table, list(columns), unique=False)


def drop_table(table: str, *, indexes: Indexes) -> None:
    """Undoes `create_table`: the indexes in reverse, then the table."""
    for index in reversed(list(indexes)):
        op.drop_index(index, table_name=table)
    op.drop_table(table)


def record_columns() -> list[sa.Column[object]]:
    """What an audit record and an intent both hold: who did what to which target, with its before and
    after."""
    return [
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("actor", sa.String(length=255), nullable=False),
        sa.Column("action", sa.String(length=64), nullable=False),
        sa.Column("target_kind", sa.String(length=64), nullable=False),
        sa.Column("target_id", sa.String(length=255), nullable=False),
        sa.Column("before", sa.JSON(), nullable=True),
        sa.Column("after", sa.JSON(), nullable=True),
        sa.Column("details", sa.JSON(), nullable=True),
    ]


def create_type_document(table: str, document: str) -> None:
    """A table of one JSON document per device type, revised under optimistic locking."""
    op.create_table(
        table,
        sa.Column("device_type_id", sa.String(length=63), nullable=False),
        sa.Column(document, sa.JSON(), nullable=False),
        sa.Column("revision", sa.Integer(), server_default=sa.text("1"), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_by", sa.String(length=255), nullable=False),
        sa.CheckConstraint("revision >= 1", name=op.f(f"ck_{table}_revision_positive")),
        sa.PrimaryKeyConstraint("device_type_id", name=op.f(f"pk_{table}")),
    )
