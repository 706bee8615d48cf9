"""Korean: what the workloads services say."""

TEXTS: dict[str, str] = {}
