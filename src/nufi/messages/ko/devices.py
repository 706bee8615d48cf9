"""Korean: what the devices services say."""

TEXTS: dict[str, str] = {}
