"""The Add Device wizard's drafts."""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from nufi.db.migrations.shapes import create_table, drop_table

revision: str = "0003"
down_revision: str | None = "0002"

INDEXES = {"ix_wizard_drafts_updated_at": ["updated_at"]}


def upgrade() -> None:
    create_table(
        "wizard_drafts",
        sa.Column("id", sa.String(length=64), nullable=False),
        sa.Column("owner", sa.String(length=255), nullable=False),
        sa.Column("data", sa.JSON(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_wizard_drafts")),
        indexes=INDEXES,
    )


def downgrade() -> None:
    drop_table("wizard_drafts", indexes=INDEXES)
