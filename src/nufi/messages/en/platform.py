"""English: what the platform services say."""

TEXTS: dict[str, str] = {}
