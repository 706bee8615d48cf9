"""NUFI_DASHBOARD_PUBLIC_URL is required off loopback: a Host header must not decide the redirect
URI or whether cookies are Secure there."""

from __future__ import annotations

import pytest

from nufi.config import load_settings
from nufi.errors import ValidationFailed


@pytest.mark.parametrize("host", ["0.0.0.0", "::", "10.1.2.3", "nufi.internal"])
def test_listening_off_loopback_needs_the_public_url(host: str) -> None:
    with pytest.raises(ValidationFailed) as raised:
        load_settings(host=host, dashboard_session_secret="s" * 20)
    assert "NUFI_DASHBOARD_PUBLIC_URL is required" in raised.value.detail
    assert "s" * 20 not in raised.value.detail
    settings = load_settings(
        host=host, dashboard_session_secret="s" * 20, dashboard_public_url="https://n.example"
    )
    assert settings.dashboard_public_url == "https://n.example"


@pytest.mark.parametrize("host", ["127.0.0.1", "127.0.0.2", "::1", "localhost"])
def test_on_loopback_the_public_url_may_stay_unset(host: str) -> None:
    assert load_settings(host=host, dashboard_session_secret="s" * 20).dashboard_public_url is None
