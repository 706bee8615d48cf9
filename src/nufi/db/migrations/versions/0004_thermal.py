"""Temperature policies per device type and the history of thermal transitions."""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from nufi.db.migrations.shapes import create_table, create_type_document, drop_table

revision: str = "0004"
down_revision: str | None = "0003"

EVENT_INDEXES = {"ix_thermal_events_at": ["at"], "ix_thermal_events_node": ["node"]}


def upgrade() -> None:
    create_type_document("thermal_policies", "policy")
    create_table(
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
        indexes=EVENT_INDEXES,
    )


def downgrade() -> None:
    drop_table("thermal_events", indexes=EVENT_INDEXES)
    op.drop_table("thermal_policies")
