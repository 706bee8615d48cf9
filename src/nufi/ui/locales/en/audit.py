"""English texts of Admin → Audit."""

TEXTS: dict[str, str] = {
    "audit.title": "Audit",
    "audit.empty": "Nothing recorded yet.",
    "audit.action.device_type.create": "Type added",
    "audit.action.device_type.update": "Type changed",
    "audit.action.device_type.delete": "Type deleted",
    "audit.action.device_type.reset": "Reset to preset",
    "audit.action.thermal_policy.update": "Thermal policy changed",
    "audit.action.alert_thresholds.update": "Alert thresholds changed",
}
