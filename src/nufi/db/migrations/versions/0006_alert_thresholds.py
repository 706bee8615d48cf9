"""Alert thresholds per device type."""

from __future__ import annotations

from alembic import op

from nufi.db.migrations.shapes import create_type_document

revision: str = "0006"
down_revision: str | None = "0005"


def upgrade() -> None:
    create_type_document("alert_thresholds", "thresholds")


def downgrade() -> None:
    op.drop_table("alert_thresholds")
