"""Korean texts of Admin → Audit."""

TEXTS: dict[str, str] = {
    "audit.title": "감사 기록",
    "audit.empty": "아직 기록이 없습니다.",
    "audit.column.time": "시각",
    "audit.column.actor": "사용자",
    "audit.column.action": "작업",
    "audit.column.target": "대상",
}
