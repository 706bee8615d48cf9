"""Intents: changes to the cluster recorded before they are made, settled into the audit log."""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from nufi.db.migrations.shapes import create_table, drop_table, record_columns

revision: str = "0005"
down_revision: str | None = "0004"

INDEXES = {"ix_intents_at": ["at"]}


def upgrade() -> None:
    create_table(
        "intents",
        *record_columns(),
        sa.Column("holder", sa.String(length=255), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_intents")),
        indexes=INDEXES,
    )


def downgrade() -> None:
    drop_table("intents", indexes=INDEXES)
