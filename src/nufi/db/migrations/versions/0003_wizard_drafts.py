"""The Add Device wizard's drafts.

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-09
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0003"
down_revision: str | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "wizard_drafts",
        sa.Column("id", sa.String(length=64), nullable=False),
        sa.Column("owner", sa.String(length=255), nullable=False),
        sa.Column("data", sa.JSON(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_wizard_drafts")),
    )
    op.create_index("ix_wizard_drafts_updated_at", "wizard_drafts", ["updated_at"], unique=False)


def downgrade() -> None:
    op.drop_index("ix_wizard_drafts_updated_at", table_name="wizard_drafts")
    op.drop_table("wizard_drafts")
