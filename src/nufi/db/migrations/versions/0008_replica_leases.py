"""Replica leases: each replica renews its own row while it lives, so the intents of a replica whose
lease has run out are settled at once rather than after NUFI_INTENT_SETTLE_AFTER_SECONDS."""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0008"
down_revision: str | None = "0007"


def upgrade() -> None:
    op.create_table(
        "replica_leases",
        sa.Column("holder", sa.String(length=255), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("holder", name=op.f("pk_replica_leases")),
    )


def downgrade() -> None:
    op.drop_table("replica_leases")
