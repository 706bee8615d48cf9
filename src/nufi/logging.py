"""Structured logging: JSON lines in production, readable colour output in a terminal.

Both structlog loggers and stdlib loggers (uvicorn, httpx, aiohttp, ...) go through one handler on
the root logger, so every line has the same shape and carries the request id bound in contextvars.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import MutableMapping
from typing import Any, Literal, TextIO

import structlog
from structlog.typing import EventDict, Processor, WrappedLogger

from nufi.config import LogFormat

_MASK = "**********"
# Substrings of event keys whose values are secrets whatever their type.
_SECRET_KEY_PARTS = ("password", "secret", "token", "authorization", "api_key", "apikey", "cookie")
# Libraries that log every outgoing request at INFO; readiness probes would drown the log.
_CHATTY_LOGGERS = ("httpx", "httpcore", "aiohttp.access")


class _NufiHandler(logging.StreamHandler):  # type: ignore[type-arg]
    """Marks the handler we install so reconfiguring replaces it instead of stacking another."""


def resolve_format(log_format: LogFormat, stream: TextIO) -> Literal["json", "console"]:
    if log_format != "auto":
        return log_format
    return "console" if _isatty(stream) else "json"


def redact_secrets(_logger: WrappedLogger, _method: str, event_dict: EventDict) -> EventDict:
    """Mask values whose key says they are secret, a safety net behind SecretStr."""
    _redact(event_dict)
    return event_dict


def _redact(mapping: MutableMapping[str, Any]) -> None:
    for key, value in mapping.items():
        lowered = key.lower()
        if any(part in lowered for part in _SECRET_KEY_PARTS) and value is not None:
            mapping[key] = _MASK
        elif isinstance(value, dict):
            _redact(value)


def configure_logging(
    log_format: LogFormat = "auto",
    level: str = "info",
    *,
    stream: TextIO | None = None,
) -> None:
    """Install NuFi's log pipeline on the root logger; safe to call more than once."""
    out = stream if stream is not None else sys.stderr
    chosen = resolve_format(log_format, out)
    numeric_level = logging.getLevelName(level.upper())
    if not isinstance(numeric_level, int):
        raise ValueError(f"unknown log level {level!r}; use debug, info, warning, error or critical")

    shared: list[Processor] = [
        structlog.contextvars.merge_contextvars,
        structlog.stdlib.add_log_level,
        structlog.stdlib.add_logger_name,
        structlog.processors.TimeStamper(fmt="iso", utc=True),
        redact_secrets,
    ]
    renderer: Processor
    final: list[Processor] = [structlog.stdlib.ProcessorFormatter.remove_processors_meta]
    if chosen == "json":
        final += [structlog.processors.format_exc_info]
        renderer = structlog.processors.JSONRenderer()
    else:
        renderer = structlog.dev.ConsoleRenderer(colors=_isatty(out))
    final.append(renderer)

    formatter = structlog.stdlib.ProcessorFormatter(foreign_pre_chain=shared, processors=final)
    handler = _NufiHandler(out)
    handler.setFormatter(formatter)

    root = logging.getLogger()
    for existing in [h for h in root.handlers if isinstance(h, _NufiHandler)]:
        root.removeHandler(existing)
    root.addHandler(handler)
    root.setLevel(numeric_level)
    for name in _CHATTY_LOGGERS:
        logging.getLogger(name).setLevel(max(numeric_level, logging.WARNING))
    # uvicorn's own loggers must reach the root handler rather than their own.
    for name in ("uvicorn", "uvicorn.error", "uvicorn.access"):
        logging.getLogger(name).handlers.clear()
        logging.getLogger(name).propagate = True

    structlog.configure(
        processors=[
            structlog.stdlib.filter_by_level,
            *shared,
            structlog.processors.StackInfoRenderer(),
            structlog.stdlib.ProcessorFormatter.wrap_for_formatter,
        ],
        logger_factory=structlog.stdlib.LoggerFactory(),
        wrapper_class=structlog.stdlib.BoundLogger,
        cache_logger_on_first_use=False,
    )


def _isatty(stream: TextIO) -> bool:
    isatty = getattr(stream, "isatty", None)
    return bool(callable(isatty) and isatty())


def get_logger(name: str) -> structlog.stdlib.BoundLogger:
    logger: structlog.stdlib.BoundLogger = structlog.stdlib.get_logger(name)
    return logger
