"""Structured logging: JSON lines in production, readable colour output in a terminal.

Both structlog loggers and stdlib loggers (uvicorn, httpx, aiohttp, ...) go through one handler on
the root logger, so every line has the same shape and carries the request id bound in contextvars.
"""

from __future__ import annotations

import logging
import re
import sys
from collections.abc import MutableMapping
from typing import Any, Literal, TextIO

import structlog
from structlog.typing import EventDict, Processor, WrappedLogger

from nufi.config import LogFormat

_MASK = "**********"
# Substrings of event keys whose values are secrets whatever their type.
_SECRET_KEY_PARTS = ("password", "secret", "token", "authorization", "api_key", "apikey", "cookie")
# Secrets inside free text (messages, exception text, a repr of request headers): a JWT anywhere,
# the credentials after an auth scheme, and the value after a credential header's name.
_JWT = re.compile(r"eyJ[A-Za-z0-9_-]*\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*")
_SCHEME_CREDENTIALS = re.compile(r"(?i)\b(bearer|basic)(\s+)[A-Za-z0-9._~+/=-]+")
_CREDENTIAL_HEADER = re.compile(
    r"""(?i)((?:proxy-)?authorization|(?:set-)?cookie|x-api-key)(['"]?\s*[:=,]\s*b?['"]?)[^'"\r\n]+"""
)
# Libraries that log every outgoing request at INFO; readiness probes would drown the log.
_CHATTY_LOGGERS = ("httpx", "httpcore", "aiohttp.access")


class _NufiHandler(logging.StreamHandler):  # type: ignore[type-arg]
    """Marks the handler we install so reconfiguring replaces it instead of stacking another."""


def resolve_format(log_format: LogFormat, stream: TextIO) -> Literal["json", "console"]:
    if log_format != "auto":
        return log_format
    return "console" if _isatty(stream) else "json"


def redact_secrets(_logger: WrappedLogger, _method: str, event_dict: EventDict) -> EventDict:
    """Mask values whose key says they are secret, and token-shaped text in every other value: a
    safety net behind SecretStr."""
    _redact(event_dict)
    return event_dict


def scrub(text: str) -> str:
    """`text` with JWTs, scheme credentials (`Bearer ...`) and credential header values masked."""
    text = _JWT.sub(_MASK, text)
    text = _SCHEME_CREDENTIALS.sub(lambda m: f"{m[1]}{m[2]}{_MASK}", text)
    return _CREDENTIAL_HEADER.sub(lambda m: f"{m[1]}{m[2]}{_MASK}", text)


def _is_secret_key(key: object) -> bool:
    if isinstance(key, bytes):
        key = key.decode("latin-1")
    return isinstance(key, str) and any(part in key.lower() for part in _SECRET_KEY_PARTS)


def _redact(mapping: MutableMapping[Any, Any]) -> None:
    for key, value in mapping.items():
        if _is_secret_key(key) and value is not None:
            mapping[key] = _MASK
        else:
            mapping[key] = _redacted(value)


def _redacted(value: Any) -> Any:
    if isinstance(value, str):
        return scrub(value)
    if isinstance(value, dict):
        _redact(value)
        return value
    if isinstance(value, tuple):
        # Header lists are pairs: [(b"authorization", b"Bearer ..."), ...].
        if len(value) == 2 and _is_secret_key(value[0]):
            return (value[0], _MASK)
        return tuple(_redacted(item) for item in value)
    if isinstance(value, list):
        return [_redacted(item) for item in value]
    return value


def _scrubbing(renderer: Processor) -> Processor:
    """`renderer`, with its output scrubbed: tracebacks and stdlib messages are text by then."""

    def render(logger: WrappedLogger, method: str, event_dict: EventDict) -> Any:
        rendered = renderer(logger, method, event_dict)
        return scrub(rendered) if isinstance(rendered, str) else rendered

    return render


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
        # Plain tracebacks: the rich formatter renders every frame's locals (request scopes with
        # their headers among them), which took seconds per error and printed credentials.
        renderer = structlog.dev.ConsoleRenderer(
            colors=_isatty(out), exception_formatter=structlog.dev.plain_traceback
        )
    final.append(_scrubbing(renderer))

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
