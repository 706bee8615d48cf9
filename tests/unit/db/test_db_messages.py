"""Database and settings problems are codes with params, worded in Korean or English: the driver's own
words stay a param inside NuFi's sentence."""

from __future__ import annotations

import pytest

from nufi.config import load_settings
from nufi.db.engine import parse_database_url
from nufi.db.failures import unavailable
from nufi.errors import ValidationFailed
from nufi.messages import Message
from support.languages import HANGUL

pytestmark = pytest.mark.unit


def test_an_unsupported_database_names_the_backend_and_the_examples() -> None:
    with pytest.raises(ValidationFailed) as caught:
        parse_database_url("mysql://db/nufi")
    error = caught.value
    assert (error.code, error.field, error.params["backend"]) == (
        "db.backend_unsupported",
        "NUFI_DATABASE_URL",
        "mysql",
    )
    assert error.detail.startswith("NUFI_DATABASE_URL names the 'mysql' database")
    assert error.text("ko").startswith("NUFI_DATABASE_URL가 'mysql' 데이터베이스를 가리킵니다")


def test_an_unreachable_database_keeps_the_drivers_words_and_says_when_to_retry() -> None:
    error = unavailable("db:5432/nufi", Message("db.cannot_be_reached"), OSError("connection refused"))
    assert error.code == "db.unavailable" and error.params["error"] == "OSError: connection refused"
    assert error.detail.startswith(
        "The database at db:5432/nufi cannot be reached: OSError: connection refused. Retry in"
    )
    korean = error.text("ko")
    assert korean.startswith("db:5432/nufi의 데이터베이스에 연결할 수 없습니다: OSError: connection refused.")
    assert HANGUL.search(korean) and "Retry" not in korean


def test_bad_settings_list_every_problem(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NUFI_KUBE_TIMEOUT_SECONDS", "soon")
    with pytest.raises(ValidationFailed) as caught:
        load_settings()
    error = caught.value
    assert error.code == "config.invalid" and error.field == "NUFI_KUBE_TIMEOUT_SECONDS"
    assert error.detail.startswith("Invalid settings: NUFI_KUBE_TIMEOUT_SECONDS: ")
    assert error.text("ko").startswith("설정이 올바르지 않습니다: NUFI_KUBE_TIMEOUT_SECONDS: ")
