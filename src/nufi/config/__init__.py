"""Server settings: `Settings`, read from `NUFI_*` environment variables and the settings file."""

from nufi.config.settings import (
    ENV_PREFIX,
    LogFormat,
    LogLevel,
    Settings,
    env_name,
    load_settings,
    settings_part,
)
from nufi.config.sources import SETTINGS_FILE_ENV

__all__ = [
    "ENV_PREFIX",
    "SETTINGS_FILE_ENV",
    "LogFormat",
    "LogLevel",
    "Settings",
    "env_name",
    "load_settings",
    "settings_part",
]
