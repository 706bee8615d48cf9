"""Log pipeline: one JSON object per line in production, secrets masked, stdlib loggers included."""

from __future__ import annotations

import io
import json
import logging
from collections.abc import Iterator

import pytest
import structlog
from fastapi import FastAPI, Request
from pydantic import SecretStr

from nufi.api import create_app
from nufi.config import LogFormat, Settings
from nufi.logging import configure_logging, get_logger, resolve_format
from support.asgi import serving
from support.env import clear_nufi_env
from support.nufi_app import MEMORY_DATABASE


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


# Token- and cookie-shaped values no log line may ever show.
JWT = "eyJhbGciOiJSUzI1NiIsImtpZCI6ImsxIn0.eyJzdWIiOiJhZGEiLCJleHAiOjF9.c2lnbmF0dXJlLXZhbHVl"
OPAQUE = "opaque-access-token-4f1c9e"
COOKIE = "nufi_session=cookie-value-8d2a61"
LOCAL_MARKER = "frame-local-value-5e7b"


def leaky_app() -> FastAPI:
    app = create_app(Settings(database_url=SecretStr(MEMORY_DATABASE)))

    @app.get("/boom/leak")
    async def leak(request: Request) -> None:
        secret_local = LOCAL_MARKER  # a traceback that shows locals would print it
        raise RuntimeError(f"failed for {request.headers!r} holding {secret_local[:5]}")

    return app


@pytest.mark.parametrize("log_format", ["json", "console"])
async def test_no_log_line_shows_a_token_a_cookie_or_a_frames_locals(
    log_format: LogFormat, monkeypatch: pytest.MonkeyPatch
) -> None:
    clear_nufi_env(monkeypatch)
    out = io.StringIO()
    configure_logging(log_format, "debug", stream=out)
    headers = [
        [("Authorization", f"Bearer {JWT}"), ("Cookie", COOKIE)],
        [("Authorization", f"Bearer {OPAQUE}"), ("Cookie", COOKIE)],
    ]
    async with serving(leaky_app()) as client:
        for sent in headers:
            assert (await client.get("/boom/leak", headers=sent)).status_code == 500
            assert (await client.get("/api/v1/me", headers=sent)).status_code == 401
            posted = await client.post("/api/v1/admin/devices", content=b"{", headers=sent)
            assert posted.status_code == 401
        get_logger("nufi.test").warning(
            "caller sent", headers=dict(headers[0]), raw=[(b"authorization", JWT.encode())], note=f"got {JWT}"
        )
        logging.getLogger("some.lib").warning(
            "header line Authorization: Bearer %s; Cookie: %s", OPAQUE, COOKIE
        )
    text = out.getvalue()
    assert "unhandled error" in text and "RuntimeError" in text  # the 500 was logged, traceback too
    assert "caller sent" in text and "header line" in text
    for secret in (JWT, JWT.split(".")[1], OPAQUE, COOKIE.split("=")[1], LOCAL_MARKER):
        assert secret not in text, f"{secret!r} leaked into the {log_format} log"
