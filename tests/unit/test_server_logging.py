"""Log pipeline: one JSON object per line in production, secrets masked, stdlib loggers included."""

from __future__ import annotations

import io
import json
import logging
from collections.abc import Iterator

import pytest
import structlog
from pydantic import SecretStr

from nufi.logging import configure_logging, get_logger, resolve_format


@pytest.fixture(autouse=True)
def restore_logging() -> Iterator[None]:
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    yield
    root.handlers[:] = handlers
    root.setLevel(level)
    structlog.reset_defaults()
    structlog.contextvars.clear_contextvars()


def lines(stream: io.StringIO) -> list[dict[str, object]]:
    return [json.loads(line) for line in stream.getvalue().splitlines() if line.strip()]


def test_json_lines_from_structlog_and_stdlib_share_one_shape() -> None:
    out = io.StringIO()
    configure_logging("json", "info", stream=out)
    with structlog.contextvars.bound_contextvars(request_id="req-1"):
        get_logger("nufi.test").info("device type saved", device_type="rngd")
        logging.getLogger("uvicorn.error").warning("stdlib says %s", "hello")
    first, second = lines(out)
    assert first["event"] == "device type saved"
    assert first["device_type"] == "rngd"
    assert first["level"] == "info"
    assert first["logger"] == "nufi.test"
    assert first["request_id"] == "req-1"
    assert "timestamp" in first
    assert second["event"] == "stdlib says hello"
    assert second["level"] == "warning"
    assert second["request_id"] == "req-1"


def test_level_filters_both_kinds_of_logger() -> None:
    out = io.StringIO()
    configure_logging("json", "warning", stream=out)
    get_logger("nufi.test").info("hidden")
    logging.getLogger("some.lib").info("hidden too")
    get_logger("nufi.test").error("shown")
    assert [line["event"] for line in lines(out)] == ["shown"]


def test_secret_looking_keys_and_secret_values_are_masked() -> None:
    out = io.StringIO()
    configure_logging("json", "info", stream=out)
    get_logger("nufi.test").info(
        "login",
        password="hunter2",
        headers={"Authorization": "Bearer abc.def"},
        client_secret=SecretStr("s3cret"),
        user="alice",
    )
    (line,) = lines(out)
    text = json.dumps(line)
    for secret in ("hunter2", "abc.def", "s3cret"):
        assert secret not in text
    assert line["user"] == "alice"


def test_exceptions_are_logged_with_their_traceback_in_json() -> None:
    out = io.StringIO()
    configure_logging("json", "info", stream=out)
    try:
        raise ValueError("bad thing")
    except ValueError:
        get_logger("nufi.test").exception("failed")
    (line,) = lines(out)
    assert "ValueError: bad thing" in str(line["exception"])


def test_console_format_is_not_json() -> None:
    out = io.StringIO()
    configure_logging("console", "info", stream=out)
    get_logger("nufi.test").info("hello console", node="n1")
    text = out.getvalue()
    assert "hello console" in text
    assert "node" in text and "n1" in text
    with pytest.raises(json.JSONDecodeError):
        json.loads(text.splitlines()[0])


def test_reconfiguring_does_not_duplicate_lines() -> None:
    out = io.StringIO()
    configure_logging("json", "info", stream=out)
    configure_logging("json", "info", stream=out)
    get_logger("nufi.test").info("once")
    assert len(lines(out)) == 1


def test_auto_format_follows_the_terminal() -> None:
    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    assert resolve_format("auto", Tty()) == "console"
    assert resolve_format("auto", io.StringIO()) == "json"
    assert resolve_format("json", Tty()) == "json"


def test_unknown_level_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown log level"):
        configure_logging("json", "verbose", stream=io.StringIO())
