"""English texts of Admin → Audit."""

TEXTS: dict[str, str] = {
    "audit.title": "Audit",
    "audit.empty": "Nothing recorded yet.",
}
