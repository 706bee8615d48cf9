"""한국어: 생성된 알림 규칙의 설명(annotation)과 알림 서비스의 메시지."""

TEXTS: dict[str, str] = {
    "alerts.rule.hot.summary": "{node}의 {type} 디바이스 {device} 과열 ({value} °C)",
    "alerts.rule.hot.description": (
        "노드 {node}의 디바이스 {device} {pod}이(가) {hold}초 동안 {threshold:g} °C 이상입니다. "
        "온도 기반 트래픽 제어가 노드나 디바이스를 서비스에서 뺄 수 있습니다. 노드의 냉각과 공기 흐름, "
        "노드 위 파드의 부하를 확인하세요 (kubectl describe node {node})."
    ),
    "alerts.rule.memory.summary": "{node}의 {type} 디바이스 {device} 메모리 {value}% 사용",
    "alerts.rule.memory.description": (
        "노드 {node}의 디바이스 {device} {pod}이(가) {hold}초 동안 메모리를 {threshold:g}% 이상 "
        "쓰고 있습니다. 새 할당이 실패할 수 있습니다. 워크로드의 배치 크기와 컨텍스트 길이를 확인하거나 "
        "메모리가 더 큰 디바이스로 옮기세요."
    ),
    "alerts.rule.unhealthy.summary": "{node}의 {type} 디바이스 {device} 비정상",
    "alerts.rule.unhealthy.description": (
        "익스포터가 노드 {node}의 디바이스 {device} {pod}을(를) {hold}초 동안 비정상으로 보고했습니다. "
        "이 디바이스가 처리하는 요청이 실패할 수 있습니다. 노드에서 드라이버와 펌웨어 로그를 확인하고, "
        "회복되지 않으면 노드를 드레인하세요."
    ),
    "alerts.rule.exporter_down.summary": "{node}의 {type} 디바이스가 메트릭을 보내지 않음",
    "alerts.rule.exporter_down.description": (
        "노드 {node}의 용량에는 {type} 디바이스가 {value}개 있지만 {hold}초 동안 어느 것도 메트릭을 "
        "보고하지 않았습니다. 노드의 익스포터가 멈췄거나 수집되지 않고 있습니다. 다시 보고할 때까지 "
        "모니터링과 온도 제어가 그 노드를 보지 못합니다. 노드의 익스포터 파드를 확인하세요."
    ),
    "alerts.rule.missing_device.summary": "{node}의 {type} 디바이스 {value}개가 보고하지 않음",
    "alerts.rule.missing_device.description": (
        "노드 {node}가 {hold}초 동안 용량보다 {value}개 적은 {type} 디바이스를 보고하고 있습니다. "
        "디바이스가 버스에서 떨어졌거나 고장 났을 수 있습니다. 노드의 커널 로그와 디바이스 플러그인을 "
        "확인하고, 디바이스를 교체하기 전에 노드를 드레인하세요."
    ),
    "alerts.rule.breaker_held.summary": "서킷 브레이커가 {type} 노드의 차단을 보류하고 있음",
    "alerts.rule.breaker_held.description": (
        "보호가 한 번에 차단할 수 있는 것보다 많은 {type} 노드가 영향을 받아(과열 또는 비정상) 일부는 "
        "영향을 받았는데도 계속 서비스합니다. 관리 → 온도 제어에서 어느 노드인지 확인하고 디바이스를 "
        "살펴보세요. 여러 대가 함께 실패하면 원인이 같을 때가 많습니다(냉각, 전원, 드라이버 배포)."
    ),
    "alerts.target_off": "설정되지 않음: 알림 규칙이 꺼져 있습니다 (NUFI_ALERTS_TARGET=off)",
    "alerts.no_target": (
        "설정되지 않음: 클러스터가 PrometheusRule(monitoring.coreos.com/v1)을 제공하지 않고 "
        "NUFI_ALERTS_RULES_DIR도 없습니다. Prometheus가 rule_files로 읽는 디렉터리로 설정하세요"
    ),
    "alerts.rules_dir_unset": (
        "설정되지 않음: NUFI_ALERTS_TARGET이 file인데 NUFI_ALERTS_RULES_DIR이 없습니다"
    ),
    "alerts.configmap_unset": (
        "설정되지 않음: NUFI_ALERTS_TARGET이 configmap인데 NUFI_ALERTS_CONFIGMAP이 없습니다 "
        "(또는 Kubernetes가 설정되지 않았습니다)"
    ),
    "alerts.prometheusrule_not_served": (
        "NUFI_ALERTS_TARGET이 prometheusrule인데 클러스터가 monitoring.coreos.com/v1 PrometheusRule을 "
        "제공하지 않습니다. Prometheus Operator의 CRD를 설치하거나 다른 대상을 고르세요"
    ),
    "alerts.sync_failed": "알림 규칙을 쓰지 못했습니다: {reason}",
    # 유형 하나의 그룹이 규칙을 깨뜨릴 때, 그리고 관리자가 아닌 사람에게 보이는 상태.
    "alerts.groups_refused": (
        "{types:list}의 알림 규칙은 Prometheus가 거부할 것이어서 쓰지 않았고, 전에 써 둔 규칙은 "
        "그대로 두었습니다. 다른 유형의 규칙은 썼습니다. 첫 번째 문제: {reason}"
    ),
    "alerts.status.failing": (
        "알림 규칙을 모두 쓰지는 못했습니다. 관리자는 이 페이지에서 이유를 볼 수 있습니다."
    ),
    "alerts.status.not_configured": "이 설치에는 알림 규칙이 설정되어 있지 않습니다.",
    "prometheus.reload_without_rules": (
        "{url}의 메트릭 엔진이 VictoriaMetrics처럼 다시 읽기 요청에 HTTP 204로 답했습니다. 이 엔진은 "
        "알림 규칙을 평가하지 않습니다. NuFi의 알림에는 Prometheus나, NuFi가 쓰는 규칙을 읽는 "
        "vmalert 같은 규칙 평가기가 필요합니다. 그 평가기가 규칙을 스스로 다시 읽는다면 "
        "NUFI_ALERTS_RELOAD=false로 설정하세요"
    ),
}
