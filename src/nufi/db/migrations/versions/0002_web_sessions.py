"""Dashboard sessions."""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from nufi.db.migrations.shapes import create_table, drop_table

revision: str = "0002"
down_revision: str | None = "0001"

INDEXES = {"ix_web_sessions_expires_at": ["expires_at"]}


def upgrade() -> None:
    create_table(
        "web_sessions",
        sa.Column("id_hash", sa.String(length=64), nullable=False),
        sa.Column("subject", sa.String(length=255), nullable=False),
        sa.Column("username", sa.String(length=255), nullable=False),
        sa.Column("tokens", sa.Text(), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("last_seen_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id_hash", name=op.f("pk_web_sessions")),
        indexes=INDEXES,
    )


def downgrade() -> None:
    drop_table("web_sessions", indexes=INDEXES)
