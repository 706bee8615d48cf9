"""The only code that speaks SQL: engine and sessions, tables, repositories, migrations.

Repositories work inside the caller's session and never commit; group a change and its audit
record in one `Database.transaction()` so they are stored together or not at all.
"""

from nufi.db.audit import AuditRepository
from nufi.db.database import Database
from nufi.db.device_types import DeviceTypeChanges, DeviceTypeRepository, NewDeviceType
from nufi.db.engine import create_database_engine, display_url, parse_database_url
from nufi.db.failures import DATABASE
from nufi.db.health import DatabaseCheck
from nufi.db.migrate import current_revision, head_revision, migration_lock, upgrade_database
from nufi.db.session import SessionFactory, create_session_factory, transaction
from nufi.db.tables import AuditRecordRow, Base, DeviceTypeRow, WebSessionRow
from nufi.db.type_dependents import DeviceTypeDependentsRepository, RemovedDependents
from nufi.db.web_sessions import WebSessionStore

__all__ = [
    "DATABASE",
    "AuditRecordRow",
    "AuditRepository",
    "Base",
    "Database",
    "DatabaseCheck",
    "DeviceTypeChanges",
    "DeviceTypeDependentsRepository",
    "DeviceTypeRepository",
    "DeviceTypeRow",
    "NewDeviceType",
    "RemovedDependents",
    "SessionFactory",
    "WebSessionRow",
    "WebSessionStore",
    "create_database_engine",
    "create_session_factory",
    "current_revision",
    "display_url",
    "head_revision",
    "migration_lock",
    "parse_database_url",
    "transaction",
    "upgrade_database",
]
