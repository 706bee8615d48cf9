"""Thermal events may record a device or node turning unhealthy, or tripping the policy's own
condition (protection beyond temperature)."""

from __future__ import annotations

from alembic import op

revision: str = "0007"
down_revision: str | None = "0006"


def upgrade() -> None:
    # SQLite cannot alter a constraint in place: batch mode copies the table with the new one.
    with op.batch_alter_table("thermal_events") as batch:
        batch.drop_constraint(op.f("ck_thermal_events_to_state"), type_="check")
        batch.create_check_constraint(
            op.f("ck_thermal_events_to_state"), "to_state IN ('normal', 'hot', 'unhealthy', 'tripped')"
        )


def downgrade() -> None:
    op.execute("DELETE FROM thermal_events WHERE to_state IN ('unhealthy', 'tripped')")
    with op.batch_alter_table("thermal_events") as batch:
        batch.drop_constraint(op.f("ck_thermal_events_to_state"), type_="check")
        batch.create_check_constraint(op.f("ck_thermal_events_to_state"), "to_state IN ('normal', 'hot')")
