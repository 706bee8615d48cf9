"""Settings from NUFI_* environment variables: defaults, parsing, errors, and secrets kept secret."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from nufi.config import Settings, env_name, load_settings
from nufi.errors import ValidationFailed
from nufi.monitoring.settings import MonitoringSettings

pytestmark = pytest.mark.usefixtures("clean_env")


def test_defaults_describe_a_local_server_with_nothing_configured() -> None:
    settings = load_settings()
    assert (settings.host, settings.port) == ("127.0.0.1", 8080)
    assert settings.kubeconfig is None
    assert settings.prometheus_url is None
    assert settings.database_url.get_secret_value() == "sqlite+aiosqlite:///./nufi.db"
    assert settings.log_format == "auto"
    assert settings.admin_role == "nufi-admin"


def test_environment_variables_set_fields(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NUFI_HOST", "0.0.0.0")
    monkeypatch.setenv("NUFI_PORT", "9000")
    monkeypatch.setenv("NUFI_KUBECONFIG", "/etc/nufi/kubeconfig")
    monkeypatch.setenv("NUFI_KUBE_CONTEXT", "prod")
    monkeypatch.setenv("NUFI_PROMETHEUS_URL", "http://prometheus.monitoring:9090/")
    monkeypatch.setenv("NUFI_LOG_LEVEL", "DEBUG")
    monkeypatch.setenv("NUFI_LOG_FORMAT", "Console")
    monkeypatch.setenv("NUFI_OIDC_ISSUER", "https://sso.example.com/realms/super-llm")
    monkeypatch.setenv("NUFI_ADMIN_ROLE", "platform-admin")
    settings = load_settings()
    assert settings.host == "0.0.0.0"
    assert settings.port == 9000
    assert settings.kubeconfig == Path("/etc/nufi/kubeconfig")
    assert settings.kube_context == "prod"
    # The trailing slash goes so paths can be appended without doubling it.
    assert settings.prometheus_url == "http://prometheus.monitoring:9090"
    assert settings.log_level == "debug"
    assert settings.log_format == "console"
    assert settings.oidc_issuer == "https://sso.example.com/realms/super-llm"
    assert settings.admin_role == "platform-admin"


def test_empty_environment_variables_mean_unset(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NUFI_PROMETHEUS_URL", "")
    monkeypatch.setenv("NUFI_KUBECONFIG", "")
    monkeypatch.setenv("NUFI_PORT", "")
    settings = load_settings()
    assert settings.prometheus_url is None
    assert settings.kubeconfig is None
    assert settings.port == 8080


def test_overrides_win_over_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NUFI_PORT", "9000")
    assert load_settings(port=9100).port == 9100


def test_bad_port_names_the_variable_and_the_value(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NUFI_PORT", "eighty")
    with pytest.raises(ValidationFailed) as caught:
        load_settings()
    assert caught.value.field == "NUFI_PORT"
    assert "NUFI_PORT" in caught.value.detail
    assert "'eighty'" in caught.value.detail


def test_prometheus_url_must_be_http(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NUFI_PROMETHEUS_URL", "prometheus:9090")
    with pytest.raises(ValidationFailed) as caught:
        load_settings()
    assert caught.value.field == "NUFI_PROMETHEUS_URL"
    assert "http(s) URL" in caught.value.detail


def test_unknown_log_format_is_rejected(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NUFI_LOG_FORMAT", "xml")
    with pytest.raises(ValidationFailed) as caught:
        load_settings()
    assert caught.value.field == "NUFI_LOG_FORMAT"


def test_secrets_stay_out_of_repr_and_redacted_view(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NUFI_OIDC_CLIENT_SECRET", "client-s3cret-value")
    monkeypatch.setenv("NUFI_DATABASE_URL", "postgresql+asyncpg://nufi:db-pa55word@db.internal:5432/nufi")
    monkeypatch.setenv("NUFI_PROMETHEUS_URL", "https://prom.example.com")
    monkeypatch.setenv("NUFI_PROMETHEUS_USERNAME", "scraper")
    monkeypatch.setenv("NUFI_PROMETHEUS_PASSWORD", "prom-pa55")
    settings = load_settings()
    assert settings.oidc_client_secret is not None
    assert settings.oidc_client_secret.get_secret_value() == "client-s3cret-value"
    assert settings.prometheus_password is not None
    assert settings.prometheus_password.get_secret_value() == "prom-pa55"
    shown = repr(settings) + str(settings) + repr(settings.redacted())
    for secret in ("client-s3cret-value", "db-pa55word", "prom-pa55"):
        assert secret not in shown
    view = settings.redacted()
    assert view["database_url"] == "postgresql+asyncpg://nufi:**********@db.internal:5432/nufi"
    assert view["prometheus_url"] == "https://prom.example.com"
    assert view["prometheus_username"] == "scraper"
    assert view["prometheus_password"] == "**********"
    assert view["prometheus_bearer_token"] is None
    assert view["oidc_client_secret"] == "**********"


def test_credentials_in_the_prometheus_url_are_refused_without_echoing_them(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("NUFI_PROMETHEUS_URL", "https://scraper:prom-pa55@prom.example.com")
    with pytest.raises(ValidationFailed) as caught:
        load_settings()
    assert caught.value.field == "NUFI_PROMETHEUS_URL"
    assert "NUFI_PROMETHEUS_PASSWORD" in caught.value.detail
    assert "prom-pa55" not in caught.value.detail


def test_env_name_maps_fields_to_variables() -> None:
    assert env_name("prometheus_url") == "NUFI_PROMETHEUS_URL"


def test_settings_are_immutable() -> None:
    settings = Settings()
    with pytest.raises(ValueError):
        setattr(settings, "port", 1)  # noqa: B010


@given(st.integers(min_value=0, max_value=65535))
def test_every_tcp_port_is_accepted(port: int) -> None:
    assert load_settings(port=port).port == port


@given(st.integers().filter(lambda p: p < 0 or p > 65535))
def test_ports_outside_the_tcp_range_are_rejected(port: int) -> None:
    with pytest.raises(ValidationFailed) as caught:
        load_settings(port=port)
    assert caught.value.field == "NUFI_PORT"


@given(st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789-._~", min_size=1, max_size=30))
def test_database_password_never_shows_in_redacted_view(password: str) -> None:
    url = f"postgresql+asyncpg://nufi:ZZ{password}ZZ@db:5432/nufi"
    view = load_settings(database_url=url).redacted()
    assert f"ZZ{password}ZZ" not in view["database_url"]
    assert view["database_url"].endswith("@db:5432/nufi")


def test_monitoring_scrape_interval_is_a_server_setting(monkeypatch: pytest.MonkeyPatch) -> None:
    assert MonitoringSettings.from_settings(load_settings()).scrape_interval_seconds == 15.0
    monkeypatch.setenv("NUFI_MONITORING_SCRAPE_INTERVAL_SECONDS", "2")
    assert MonitoringSettings.from_settings(load_settings()).window_seconds == 20.0
    monkeypatch.setenv("NUFI_MONITORING_SCRAPE_INTERVAL_SECONDS", "0")
    with pytest.raises(ValidationFailed) as raised:
        load_settings()
    assert raised.value.field == "NUFI_MONITORING_SCRAPE_INTERVAL_SECONDS"
