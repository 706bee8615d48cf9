"""The database schema as typed SQLAlchemy models.

Constraint names follow one convention so that code can tell which constraint a database refused
(see `nufi.db.integrity`) and so migrations name them the same way on every backend.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from datetime import datetime
from typing import Any

from sqlalchemy import JSON, Boolean, CheckConstraint, Float, Index, Integer, MetaData, String, Text, text
from sqlalchemy.orm import DeclarativeBase, Mapped, declared_attr, mapped_column

from nufi.db.types import UtcDateTime

NAMING_CONVENTION = {
    "pk": "pk_%(table_name)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ix": "ix_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_N_name)s_%(referred_table_name)s",
}

# A resource key is `<DNS subdomain prefix (253)>/<name (63)>`.
RESOURCE_KEY_LENGTH = 317
DEVICE_TYPE_ID_LENGTH = 63
ACTOR_LENGTH = 255
DEVICE_TYPE_KINDS = ("official", "custom")
# A SHA-256 digest in hexadecimal.
SESSION_ID_HASH_LENGTH = 64
# A wizard draft's id: random URL-safe text (secrets.token_urlsafe), with room to spare.
WIZARD_DRAFT_ID_LENGTH = 64
# A node's name is a DNS subdomain; a device ID is whatever its exporter labels it with, within reason.
NODE_NAME_LENGTH = 253
DEVICE_ID_LENGTH = 255
THERMAL_STATES = ("normal", "hot", "unhealthy", "tripped")

JsonObject = dict[str, Any]


@dataclass(frozen=True)
class Record:
    """Who did (or is about to do) what to which thing, when, with the state before and after: what an
    audit record and an intent both hold, as read from their rows (`_Recorded`)."""

    id: int
    at: datetime
    actor: str
    action: str
    target_kind: str
    target_id: str
    before: JsonObject | None
    after: JsonObject | None
    details: JsonObject | None


RECORD_FIELDS = tuple(field.name for field in fields(Record))


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING_CONVENTION)


class DeviceTypeRow(Base):
    """A custom device type, or an admin's overrides of an official preset (delete the row to reset)."""

    __tablename__ = "device_types"
    __table_args__ = (
        CheckConstraint(f"kind IN {DEVICE_TYPE_KINDS!r}", name="kind"),
        CheckConstraint("revision >= 1", name="revision_positive"),
    )

    id: Mapped[str] = mapped_column(String(DEVICE_TYPE_ID_LENGTH), primary_key=True)
    name: Mapped[str] = mapped_column(String(200))
    vendor: Mapped[str] = mapped_column(String(200))
    kind: Mapped[str] = mapped_column(String(16))
    enabled: Mapped[bool] = mapped_column(Boolean)
    resource_key: Mapped[str] = mapped_column(String(RESOURCE_KEY_LENGTH), unique=True)
    labels: Mapped[JsonObject] = mapped_column(JSON)
    metrics: Mapped[JsonObject] = mapped_column(JSON)
    thermal: Mapped[JsonObject | None] = mapped_column(JSON)
    # Which DeviceFetcher reads this type: "generic" for most, a vendor's or a plug-in's name otherwise.
    fetcher: Mapped[str] = mapped_column(String(100), default="generic", server_default=text("'generic'"))
    # Bumped by every update; writers name the revision they replace (optimistic concurrency).
    revision: Mapped[int] = mapped_column(Integer, default=1, server_default=text("1"))
    created_at: Mapped[datetime] = mapped_column(UtcDateTime)
    updated_at: Mapped[datetime] = mapped_column(UtcDateTime)
    created_by: Mapped[str] = mapped_column(String(ACTOR_LENGTH))
    updated_by: Mapped[str] = mapped_column(String(ACTOR_LENGTH))

    def __repr__(self) -> str:
        return f"DeviceTypeRow(id={self.id!r}, resource_key={self.resource_key!r}, revision={self.revision})"


class _Recorded:
    """Who did (or is about to do) what to which thing, when, with the state before and after: what an
    audit record and an intent both hold."""

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    at: Mapped[datetime] = mapped_column(UtcDateTime)
    actor: Mapped[str] = mapped_column(String(ACTOR_LENGTH))
    action: Mapped[str] = mapped_column(String(64))
    target_kind: Mapped[str] = mapped_column(String(64))
    target_id: Mapped[str] = mapped_column(String(255))
    before: Mapped[JsonObject | None] = mapped_column(JSON)
    after: Mapped[JsonObject | None] = mapped_column(JSON)
    details: Mapped[JsonObject | None] = mapped_column(JSON)

    def recorded(self) -> dict[str, Any]:
        """The record's own fields by name, for the domain value read from the row."""
        return {name: getattr(self, name) for name in RECORD_FIELDS}

    def __repr__(self) -> str:
        return f"{type(self).__name__}(id={self.id}, action={self.action!r}, target_id={self.target_id!r})"


class AuditRecordRow(_Recorded, Base):
    """Who did what to which thing, when, with the state before and after."""

    __tablename__ = "audit_log"
    __table_args__ = (
        Index("ix_audit_log_target", "target_kind", "target_id"),
        Index("ix_audit_log_at", "at"),
    )


class IntentRow(_Recorded, Base):
    """A change NuFi is about to make in the cluster, committed before it is made: who asked, what,
    to which object, and the planned state. Completing it writes the audit record and removes the row
    in one transaction; a row still here after its change should have ended is settled by the
    reconciler (finished or undone), so a crash leaves either nothing or a complete, audited object."""

    __tablename__ = "intents"
    __table_args__ = (Index("ix_intents_at", "at"),)

    # The replica that made the change (host, process, random suffix), for the operator's eyes.
    holder: Mapped[str] = mapped_column(String(ACTOR_LENGTH))


class ReplicaLeaseRow(Base):
    """A replica's lease, renewed while it lives: an intent whose holder's lease has run out belongs to
    no request any more and is settled at once (`db/replica_leases.py`)."""

    __tablename__ = "replica_leases"

    holder: Mapped[str] = mapped_column(String(ACTOR_LENGTH), primary_key=True)
    expires_at: Mapped[datetime] = mapped_column(UtcDateTime)


class WebSessionRow(Base):
    """A dashboard session: the browser holds only a random id, this row holds everything else.

    The id is stored as its SHA-256 digest, so reading the table does not let anyone present a
    session; the tokens are encrypted (nufi.auth.web_tokens), so it does not leak them either.
    """

    __tablename__ = "web_sessions"
    __table_args__ = (Index("ix_web_sessions_expires_at", "expires_at"),)

    id_hash: Mapped[str] = mapped_column(String(SESSION_ID_HASH_LENGTH), primary_key=True)
    subject: Mapped[str] = mapped_column(String(ACTOR_LENGTH))
    username: Mapped[str] = mapped_column(String(ACTOR_LENGTH))
    # The encrypted token set (a Fernet token: URL-safe base64 text).
    tokens: Mapped[str] = mapped_column(Text)
    expires_at: Mapped[datetime] = mapped_column(UtcDateTime)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime)
    last_seen_at: Mapped[datetime] = mapped_column(UtcDateTime)

    def __repr__(self) -> str:
        # Never the tokens, not even encrypted: reprs end up in logs.
        return f"WebSessionRow(username={self.username!r}, expires_at={self.expires_at.isoformat()})"


class WizardDraftRow(Base):
    """An Add Device wizard's draft: what an admin has typed so far, as the flat dict of the wizard's
    fields, until they save it or start over. Its random id is in the wizard's URL; it is only ever
    read together with its owner (the principal's subject), so another person's id finds nothing."""

    __tablename__ = "wizard_drafts"
    __table_args__ = (Index("ix_wizard_drafts_updated_at", "updated_at"),)

    id: Mapped[str] = mapped_column(String(WIZARD_DRAFT_ID_LENGTH), primary_key=True)
    owner: Mapped[str] = mapped_column(String(ACTOR_LENGTH))
    data: Mapped[JsonObject] = mapped_column(JSON)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime)
    updated_at: Mapped[datetime] = mapped_column(UtcDateTime)

    def __repr__(self) -> str:
        # Not the data: what was typed may be long and ends up in logs otherwise.
        return f"WizardDraftRow(owner={self.owner!r}, updated_at={self.updated_at.isoformat()})"


class TypeDocument:
    """One document an admin keeps per device type, revised under optimistic locking."""

    device_type_id: Mapped[str] = mapped_column(String(DEVICE_TYPE_ID_LENGTH), primary_key=True)
    revision: Mapped[int] = mapped_column(Integer, default=1, server_default=text("1"))
    updated_at: Mapped[datetime] = mapped_column(UtcDateTime)
    updated_by: Mapped[str] = mapped_column(String(ACTOR_LENGTH))

    @declared_attr.directive
    def __table_args__(cls) -> tuple[CheckConstraint]:
        return (CheckConstraint("revision >= 1", name="revision_positive"),)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(device_type_id={self.device_type_id!r}, revision={self.revision})"


class ThermalPolicyRow(TypeDocument, Base):
    """An admin's temperature policy for one device type (without a row the type's defaults apply)."""

    __tablename__ = "thermal_policies"

    policy: Mapped[JsonObject] = mapped_column(JSON)


class AlertThresholdsRow(TypeDocument, Base):
    """An admin's alert thresholds for one device type (without a row the defaults apply)."""

    __tablename__ = "alert_thresholds"

    thresholds: Mapped[JsonObject] = mapped_column(JSON)


class ThermalEventRow(Base):
    """One transition of a node (or a device, with scope `device`) between normal and hot, with the
    reading that made it and the pods whose traffic it changed."""

    __tablename__ = "thermal_events"
    __table_args__ = (
        CheckConstraint(f"to_state IN {THERMAL_STATES!r}", name="to_state"),
        Index("ix_thermal_events_at", "at"),
        Index("ix_thermal_events_node", "node"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    at: Mapped[datetime] = mapped_column(UtcDateTime)
    device_type_id: Mapped[str] = mapped_column(String(DEVICE_TYPE_ID_LENGTH))
    node: Mapped[str] = mapped_column(String(NODE_NAME_LENGTH))
    device: Mapped[str | None] = mapped_column(String(DEVICE_ID_LENGTH))
    to_state: Mapped[str] = mapped_column(String(16))
    temperature_celsius: Mapped[float | None] = mapped_column(Float)
    # The pods whose traffic was cut or restored ("namespace/name"), and those kept routable.
    details: Mapped[JsonObject] = mapped_column(JSON)
    message: Mapped[str] = mapped_column(Text)

    def __repr__(self) -> str:
        return f"ThermalEventRow(node={self.node!r}, to_state={self.to_state!r}, at={self.at.isoformat()})"
