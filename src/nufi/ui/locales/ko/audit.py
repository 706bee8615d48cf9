"""Korean texts of Admin → Audit."""

TEXTS: dict[str, str] = {
    "audit.title": "감사 기록",
    "audit.empty": "아직 기록이 없습니다.",
    "audit.action.device_type.create": "유형 추가",
    "audit.action.device_type.update": "유형 변경",
    "audit.action.device_type.delete": "유형 삭제",
    "audit.action.device_type.reset": "프리셋으로 되돌림",
    "audit.action.thermal_policy.update": "온도 정책 변경",
    "audit.action.alert_thresholds.update": "알림 임계값 변경",
}
