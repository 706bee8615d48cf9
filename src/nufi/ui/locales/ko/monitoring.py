"""Korean texts of Monitoring: the summary cards and the device table."""

TEXTS: dict[str, str] = {
    "monitoring.title": "모니터링",
    "monitoring.empty": (
        "활성화된 디바이스 유형이 없습니다. 관리자가 관리 → 디바이스에서 추가할 수 있습니다."
    ),
    "monitoring.unavailable": "Prometheus에 연결할 수 없습니다: {detail}",
    "monitoring.updated": "{age}초 전 갱신",
    "monitoring.card.nodes": "노드",
    "monitoring.card.devices": "디바이스",
    "monitoring.card.utilization": "평균 사용률",
    "monitoring.card.memory": "메모리",
    "monitoring.card.temperature": "최고 온도",
    "monitoring.card.power": "전력",
    "monitoring.filter.node": "노드 이름으로 필터",
    "monitoring.column.node": "노드",
    "monitoring.column.device": "디바이스",
    "monitoring.column.utilization": "사용률",
    "monitoring.column.memory": "메모리 (사용 / 전체)",
    "monitoring.column.temperature": "온도",
    "monitoring.column.power": "전력",
    "monitoring.column.pod": "파드",
    "monitoring.column.namespace": "네임스페이스",
    "monitoring.column.state": "상태",
    "monitoring.not_reported": "미보고",
    "monitoring.another_project": "다른 프로젝트",
    "monitoring.thermal.hot": "과열: 트래픽 차단",
    "monitoring.thermal.kept": "과열: 트래픽 유지",
    "monitoring.thermal.unhealthy": "비정상: 트래픽 차단",
    "monitoring.thermal.held": "영향 받음: 서킷 브레이커가 차단 보류",
    "monitoring.thermal.stale": "온도 측정 불가",
    "monitoring.state.stale": "데이터 오래됨",
    "monitoring.health.ok": "상태 정상",
    "monitoring.health.unhealthy": "상태 비정상",
    "monitoring.state.not_reporting": "응답 없음",
    "monitoring.state.implausible": "비정상 값",
    "monitoring.page": "{first}~{last} / 노드 {total}개",
    "monitoring.previous": "이전",
    "monitoring.next": "다음",
    "monitoring.late": (
        "메트릭 데이터가 {lag}초 늦게 들어오고 있습니다. "
        "최신 데이터가 올 때까지 온도 기반 트래픽 제어는 아무것도 바꾸지 않습니다."
    ),
    "monitoring.errors": "일부 데이터를 가져오지 못했습니다",
}
