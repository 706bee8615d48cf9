"""Korean texts of Admin → Audit."""

TEXTS: dict[str, str] = {
    "audit.title": "감사 기록",
    "audit.empty": "아직 기록이 없습니다.",
}
