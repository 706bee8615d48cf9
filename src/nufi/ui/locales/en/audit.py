"""English texts of Admin → Audit."""

TEXTS: dict[str, str] = {
    "audit.title": "Audit",
    "audit.empty": "Nothing recorded yet.",
    "audit.column.time": "Time",
    "audit.column.actor": "User",
    "audit.column.action": "Action",
    "audit.column.target": "Target",
}
