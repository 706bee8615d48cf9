"""A database that cannot serve right now is a dependency problem, never an internal error.

SQLite held by a writer past the busy timeout ("database is locked"), a file that cannot be opened,
a PostgreSQL server refusing connections, restarting, out of connections or cancelling a statement:
each becomes `DependencyUnavailable` (a 503 problem with `Retry-After`) at the engine, so every
caller — request, background loop, CLI — sees the same error, and the transaction it was in is rolled
back as for any exception. Errors that retrying cannot fix (a constraint, a missing table) are left
as they are.

Two engine events do it: `handle_error` for statements, `do_connect` for opening connections
(SQLAlchemy does not route connect failures through `handle_error`).
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import event
from sqlalchemy.engine import Dialect, Engine, ExceptionContext
from sqlalchemy.exc import DBAPIError
from sqlalchemy.pool import ConnectionPoolEntry

from nufi.errors import DependencyUnavailable
from nufi.messages import Message

DATABASE = "database"
# Lock waits and restarts are over in seconds; a client should not hammer the database meanwhile.
RETRY_AFTER_SECONDS = 2
_SQLITE_TRANSIENT = ("database is locked", "database is busy", "database table is locked", "unable to open")
# SQLSTATE: connection exceptions, insufficient resources, operator intervention (shutdown, start-up);
# lock not available, statement cancelled (timeouts), serialization failure, deadlock.
_PG_TRANSIENT_CLASSES = ("08", "53", "57P")
_PG_TRANSIENT_CODES = frozenset({"55P03", "57014", "40001", "40P01"})


def install_failure_translation(engine: Engine, where: str) -> None:
    """`where` names the database in messages (its URL without the password)."""

    @event.listens_for(engine, "do_connect")
    def _connect(dialect: Dialect, _record: ConnectionPoolEntry, cargs: Any, cparams: Any) -> Any:
        try:
            return dialect.loaded_dbapi.connect(*cargs, **cparams)
        except Exception as exc:
            raise unavailable(where, Message("db.cannot_be_reached"), exc) from exc

    @event.listens_for(engine, "handle_error")
    def _statement(context: ExceptionContext) -> None:
        # A cancelled task (SQLAlchemy counts it as a disconnect) must stay cancelled: turning it
        # into an error would keep a loop that is being stopped running.
        if not isinstance(context.original_exception, Exception):
            return
        # A pooled connection found dead by the pre-ping is SQLAlchemy's to replace (it reconnects and
        # the caller never knows); turning that into an error would fail a request over a connection
        # that went stale while idle in the pool.
        if context.is_pre_ping:
            return
        if is_transient(context.original_exception, disconnect=context.is_disconnect):
            raise unavailable(where, Message("db.cannot_serve"), context.original_exception) from (
                context.sqlalchemy_exception or context.original_exception
            )


def is_transient(error: BaseException, *, disconnect: bool = False) -> bool:
    """True when the same statement could succeed if tried again shortly."""
    if disconnect or isinstance(error, (OSError, TimeoutError)):
        return True
    code = getattr(error, "sqlstate", None) or getattr(error, "pgcode", None)
    if isinstance(code, str):
        return code.startswith(_PG_TRANSIENT_CLASSES) or code in _PG_TRANSIENT_CODES
    message = str(error).lower()
    return type(error).__name__ == "OperationalError" and any(part in message for part in _SQLITE_TRANSIENT)


def unavailable(where: str, what: Message, error: BaseException) -> DependencyUnavailable:
    """`what` says what the database did: `db.cannot_be_reached` or `db.cannot_serve`."""
    return DependencyUnavailable(
        code="db.unavailable",
        params={"where": where, "what": what, "error": describe_database_error(error)},
        dependency=DATABASE,
        retry_after_seconds=RETRY_AFTER_SECONDS,
    )


def describe_database_error(error: BaseException) -> str:
    """The driver's own words, without SQLAlchemy's statement echo and documentation link."""
    if isinstance(error, DependencyUnavailable) and error.__cause__ is not None:
        error = error.__cause__
    cause: BaseException = error.orig if isinstance(error, DBAPIError) and error.orig else error
    message = str(cause).strip() or "no message"
    return f"{type(cause).__name__}: {message}"
