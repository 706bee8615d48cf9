"""English: what the thermal services say."""

TEXTS: dict[str, str] = {}
