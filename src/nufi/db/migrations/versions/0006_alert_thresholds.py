"""Alert thresholds per device type.

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-05
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0006"
down_revision: str | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "alert_thresholds",
        sa.Column("device_type_id", sa.String(length=63), nullable=False),
        sa.Column("thresholds", sa.JSON(), nullable=False),
        sa.Column("revision", sa.Integer(), server_default=sa.text("1"), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_by", sa.String(length=255), nullable=False),
        sa.CheckConstraint("revision >= 1", name=op.f("ck_alert_thresholds_revision_positive")),
        sa.PrimaryKeyConstraint("device_type_id", name=op.f("pk_alert_thresholds")),
    )


def downgrade() -> None:
    op.drop_table("alert_thresholds")
