"""Temperature policies per device type and the history of thermal transitions.

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-02
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "thermal_policies",
        sa.Column("device_type_id", sa.String(length=63), nullable=False),
        sa.Column("policy", sa.JSON(), nullable=False),
        sa.Column("revision", sa.Integer(), server_default=sa.text("1"), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_by", sa.String(length=255), nullable=False),
        sa.CheckConstraint("revision >= 1", name=op.f("ck_thermal_policies_revision_positive")),
        sa.PrimaryKeyConstraint("device_type_id", name=op.f("pk_thermal_policies")),
    )
    op.create_table(
        "thermal_events",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("device_type_id", sa.String(length=63), nullable=False),
        sa.Column("node", sa.String(length=253), nullable=False),
        sa.Column("device", sa.String(length=255), nullable=True),
        sa.Column("to_state", sa.String(length=16), nullable=False),
        sa.Column("temperature_celsius", sa.Float(), nullable=True),
        sa.Column("details", sa.JSON(), nullable=False),
        sa.Column("message", sa.Text(), nullable=False),
        sa.CheckConstraint("to_state IN ('normal', 'hot')", name=op.f("ck_thermal_events_to_state")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_thermal_events")),
    )
    op.create_index("ix_thermal_events_at", "thermal_events", ["at"], unique=False)
    op.create_index("ix_thermal_events_node", "thermal_events", ["node"], unique=False)


def downgrade() -> None:
    op.drop_index("ix_thermal_events_node", table_name="thermal_events")
    op.drop_index("ix_thermal_events_at", table_name="thermal_events")
    op.drop_table("thermal_events")
    op.drop_table("thermal_policies")
