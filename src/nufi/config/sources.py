"""Where settings come from besides the environment, and the URL checks the settings make.

The settings file is named by `NUFI_SETTINGS_FILE`: YAML or JSON (keys are the field names without the
prefix) or dotenv (keys carry it, and only `NUFI_*` keys are read).
"""

from __future__ import annotations

import ipaddress
import os
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

from pydantic_settings import (
    BaseSettings,
    DotEnvSettingsSource,
    JsonConfigSettingsSource,
    PydanticBaseSettingsSource,
    YamlConfigSettingsSource,
)

from nufi.errors import ValidationFailed

SETTINGS_FILE_ENV = "NUFI_SETTINGS_FILE"
# What stands for a secret, or for a URL's password, in a log line.
MASK = "**********"


def is_loopback_address(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def require_http_url(value: str, *, example: str) -> None:
    parts = urlsplit(value)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(f"must be an http(s) URL such as {example}")


def settings_file_source(settings_cls: type[BaseSettings]) -> PydanticBaseSettingsSource | None:
    raw = os.environ.get(SETTINGS_FILE_ENV, "").strip()
    if not raw:
        return None
    path = Path(raw)
    if not path.is_file():
        raise ValidationFailed(
            code="config.settings_file_missing", field=SETTINGS_FILE_ENV, params={"path": str(path)}
        )
    suffix = path.suffix.lower()
    if suffix in (".yaml", ".yml"):
        return YamlConfigSettingsSource(settings_cls, yaml_file=path)
    if suffix == ".json":
        return JsonConfigSettingsSource(settings_cls, json_file=path)
    # A dotenv file is often shared with other tools: only NUFI_* keys are ours (and typos in those
    # still fail as unknown settings).
    return DotEnvSettingsSource(settings_cls, env_file=path, dotenv_filtering="match_prefix")


def hide_url_password(url: str) -> str:
    try:
        parts = urlsplit(url)
        if parts.password is None:
            return url
        host = parts.hostname or ""
        if parts.port is not None:
            host = f"{host}:{parts.port}"
    except ValueError:
        # Not parseable as a URL, so the password cannot be told apart: hide everything.
        return MASK
    netloc = f"{parts.username or ''}:{MASK}@{host}"
    return urlunsplit((parts.scheme, netloc, parts.path, parts.query, parts.fragment))
