"""Settings read from the file named by NUFI_SETTINGS_FILE (YAML, JSON or dotenv)."""

from __future__ import annotations

from pathlib import Path

import pytest

from nufi.config import load_settings
from nufi.errors import ValidationFailed
from nufi.monitoring.settings import MonitoringSettings

pytestmark = pytest.mark.usefixtures("clean_env")


def use_file(monkeypatch: pytest.MonkeyPatch, path: Path, text: str) -> None:
    path.write_text(text)
    monkeypatch.setenv("NUFI_SETTINGS_FILE", str(path))


def test_yaml_file_sets_fields(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    use_file(
        monkeypatch,
        tmp_path / "nufi.yaml",
        "port: 9090\n"
        "prometheus_url: http://prometheus:9090\n"
        "kube_context: lab\n"
        "oidc_client_secret: from-file\n",
    )
    settings = load_settings()
    assert settings.port == 9090
    assert settings.prometheus_url == "http://prometheus:9090"
    assert settings.kube_context == "lab"
    assert settings.oidc_client_secret is not None
    assert settings.oidc_client_secret.get_secret_value() == "from-file"


def test_environment_wins_over_the_file(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    use_file(monkeypatch, tmp_path / "nufi.yml", "port: 9090\nhost: 0.0.0.0\n")
    monkeypatch.setenv("NUFI_PORT", "9200")
    settings = load_settings()
    assert (settings.host, settings.port) == ("0.0.0.0", 9200)


def test_json_file(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    use_file(monkeypatch, tmp_path / "nufi.json", '{"log_format": "json", "admin_role": "ops"}')
    settings = load_settings()
    assert (settings.log_format, settings.admin_role) == ("json", "ops")


def test_dotenv_file_uses_prefixed_names(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    use_file(monkeypatch, tmp_path / "nufi.env", "NUFI_PORT=9300\nNUFI_LOG_LEVEL=warning\nOTHER_TOOL=x\n")
    settings = load_settings()
    assert (settings.port, settings.log_level) == (9300, "warning")


def test_dotenv_typo_in_a_prefixed_name_is_an_error(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    use_file(monkeypatch, tmp_path / "nufi.env", "NUFI_PROMETHEUS_ULR=http://prometheus:9090\n")
    with pytest.raises(ValidationFailed) as caught:
        load_settings()
    assert "prometheus_ulr" in caught.value.detail.lower()


def test_unknown_key_in_the_file_is_an_error(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    use_file(monkeypatch, tmp_path / "nufi.yaml", "prometheus_ulr: http://prometheus:9090\n")
    with pytest.raises(ValidationFailed) as caught:
        load_settings()
    assert "prometheus_ulr" in caught.value.detail


def test_secret_with_wrong_type_is_not_echoed(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    use_file(monkeypatch, tmp_path / "nufi.yaml", "oidc_client_secret:\n  nested: very-secret-value\n")
    with pytest.raises(ValidationFailed) as caught:
        load_settings()
    assert caught.value.field == "NUFI_OIDC_CLIENT_SECRET"
    assert "very-secret-value" not in caught.value.detail


def test_missing_file_names_the_variable(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    missing = tmp_path / "absent.yaml"
    monkeypatch.setenv("NUFI_SETTINGS_FILE", str(missing))
    with pytest.raises(ValidationFailed) as caught:
        load_settings()
    assert caught.value.field == "NUFI_SETTINGS_FILE"
    assert str(missing) in caught.value.detail


def test_monitoring_settings_come_from_the_same_file(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    use_file(monkeypatch, tmp_path / "nufi.yaml", "monitoring_scrape_interval_seconds: 5\n")
    settings = load_settings()
    monitoring = MonitoringSettings.from_settings(settings)
    assert (monitoring.scrape_interval_seconds, monitoring.stale_after_seconds) == (5.0, 15.0)
    assert settings.redacted()["monitoring_scrape_interval_seconds"] == 5.0
