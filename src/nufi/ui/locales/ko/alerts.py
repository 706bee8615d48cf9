"""Korean texts of the Alerts page, the alert marks in Monitoring, and the Alerts section of
Admin → Devices."""

TEXTS: dict[str, str] = {
    "alerting.title": "알림",
    "alerting.intro": (
        "NuFi가 디바이스 유형마다 만들어 Prometheus에 기록한 알림 규칙 중, 지금 발생했거나 "
        "발생을 기다리는 알림입니다."
    ),
    "alerting.filter.type": "디바이스 유형",
    "alerting.filter.all": "모든 유형",
    "alerting.rules.ok": "알림 규칙 {groups}개 그룹을 {target}에 기록했습니다: {location}",
    "alerting.rules.written": "알림 규칙 {groups}개 그룹을 {target}에 기록했습니다.",
    "alerting.rules.problem": "알림 규칙에 문제가 있습니다: {problem}",
    "alerting.rules.not_yet": "알림 규칙을 아직 기록하지 않았습니다.",
    "alerting.target.file": "규칙 파일",
    "alerting.target.prometheusrule": "PrometheusRule",
    "alerting.target.none": "기록할 곳 없음",
    "alerting.alertmanager": "Alertmanager에서 보기",
    "alerting.empty": "발생한 알림이 없습니다.",
    "alerting.unavailable": "Prometheus에 연결할 수 없어 알림을 읽지 못했습니다: {detail}",
    "alerting.column.state": "상태",
    "alerting.column.severity": "심각도",
    "alerting.column.device_type": "디바이스 유형",
    "alerting.column.node": "노드",
    "alerting.column.device": "디바이스",
    "alerting.column.pod": "파드",
    "alerting.column.value": "값",
    "alerting.column.since": "지속",
    "alerting.column.summary": "내용",
    "alerting.state.firing": "발생",
    "alerting.state.pending": "대기",
    "alerting.severity.critical": "심각",
    "alerting.severity.warning": "경고",
    "alerting.another_project": "다른 프로젝트",
    "alerting.since": "{age} 전부터",
    "alerting.mark": "알림",
    # Admin → Devices → Alerts.
    "alerting.admin.title": "알림",
    "alerting.admin.intro": (
        "NuFi는 유형마다 아래 임계값으로 Prometheus 알림 규칙을 만들어 기록합니다. "
        "저장하면 규칙이 곧바로 다시 기록됩니다."
    ),
    "alerting.admin.pick": "알림을 볼 디바이스 유형",
    "alerting.admin.none": "등록된 디바이스 유형이 없습니다.",
    "alerting.source.default": "기본값",
    "alerting.source.admin": "관리자 설정 ({who})",
    "alerting.kind.hot": "과열",
    "alerting.kind.memory": "메모리 부족",
    "alerting.kind.unhealthy": "비정상",
    "alerting.kind.exporter_down": "익스포터 중단",
    "alerting.kind.breaker_held": "서킷 브레이커 차단 보류",
    "alerting.kind.missing_device": "디바이스 누락",
    "alerting.field.celsius": "온도",
    "alerting.field.follows": "비우면 온도 제어의 차단 온도({trip} °C)를 따릅니다",
    "alerting.field.percent": "사용률",
    "alerting.field.for_seconds": "유지 시간",
    "alerting.unit.seconds": "초",
    "alerting.save": "저장",
    "alerting.saved": "{device_type}의 알림 임계값을 저장했습니다.",
    "alerting.generated": "생성된 규칙",
    "alerting.generated.none": "이 유형은 꺼져 있어 기록된 규칙이 없습니다.",
    "alerting.generated.no_health": (
        "NuFiDeviceUnhealthy 규칙은 생성되지 않습니다: {device_type}에 상태 식이 매핑되어 있지 않습니다."
    ),
    "alerting.generated.no_temperature": (
        "NuFiDeviceHot 규칙은 생성되지 않습니다: {device_type}에 온도 식이 매핑되어 있지 않습니다."
    ),
    "alerting.generated.alert": "알림 이름",
    "alerting.generated.expr": "조건 (PromQL)",
    "alerting.generated.for": "유지",
    "alerting.generated.severity": "심각도",
}
