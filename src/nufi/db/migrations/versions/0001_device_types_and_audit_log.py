"""Device types and the audit log."""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from nufi.db.migrations.shapes import create_table, drop_table, record_columns

revision: str = "0001"
down_revision: str | None = None

AUDIT_INDEXES = {"ix_audit_log_at": ["at"], "ix_audit_log_target": ["target_kind", "target_id"]}


def upgrade() -> None:
    op.create_table(
        "device_types",
        sa.Column("id", sa.String(length=63), nullable=False),
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("vendor", sa.String(length=200), nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("enabled", sa.Boolean(), nullable=False),
        sa.Column("resource_key", sa.String(length=317), nullable=False),
        sa.Column("labels", sa.JSON(), nullable=False),
        sa.Column("metrics", sa.JSON(), nullable=False),
        sa.Column("thermal", sa.JSON(), nullable=True),
        sa.Column("fetcher", sa.String(length=100), server_default=sa.text("'generic'"), nullable=False),
        sa.Column("revision", sa.Integer(), server_default=sa.text("1"), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("created_by", sa.String(length=255), nullable=False),
        sa.Column("updated_by", sa.String(length=255), nullable=False),
        sa.CheckConstraint("kind IN ('official', 'custom')", name=op.f("ck_device_types_kind")),
        sa.CheckConstraint("revision >= 1", name=op.f("ck_device_types_revision_positive")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_device_types")),
        sa.UniqueConstraint("resource_key", name=op.f("uq_device_types_resource_key")),
    )
    create_table(
        "audit_log",
        *record_columns(),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_audit_log")),
        indexes=AUDIT_INDEXES,
    )


def downgrade() -> None:
    drop_table("audit_log", indexes=AUDIT_INDEXES)
    op.drop_table("device_types")
