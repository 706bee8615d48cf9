"""Replica leases: each replica renews its own row while it lives, so the intents of a replica whose
lease has run out are settled at once rather than after NUFI_INTENT_SETTLE_AFTER_SECONDS.

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-07
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0008"
down_revision: str | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "replica_leases",
        sa.Column("holder", sa.String(length=255), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("holder", name=op.f("pk_replica_leases")),
    )


def downgrade() -> None:
    op.drop_table("replica_leases")
