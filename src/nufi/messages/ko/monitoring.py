"""Korean: what the monitoring services say."""

TEXTS: dict[str, str] = {}
