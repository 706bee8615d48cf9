"""Korean: what the thermal services say."""

TEXTS: dict[str, str] = {
    # Where a reading was taken: a param of the reasons below.
    "thermal.where.node": "{node}",
    "thermal.where.device": "{node}의 장치 {device}",
    # Why a pod's traffic is off (or, kept, why it stays on although hot).
    "thermal.reason.hot": "{where}: {temperature:.1f} °C (차단 {trip:g} °C, 복귀 {resume:g} °C)",
    "thermal.reason.hot_no_reading": "{where}: 과열 (차단 {trip:g} °C, 복귀 {resume:g} °C)",
    "thermal.reason.hot_stale": (
        "{where}: 과열 상태에서 지금은 온도를 읽을 수 없습니다. 다시 읽을 수 있을 때까지 트래픽을 끊어 둡니다"
    ),
    "thermal.reason.unhealthy": "{where}이(가) 비정상으로 보고됩니다",
    "thermal.reason.breaker_nodes": (
        "{why}이지만 유지합니다: 서킷 브레이커가 노드 {total}개 중 {allowed}개까지만 동시에 차단하도록 "
        "허용하며, 이미 그만큼 차단되어 있습니다"
    ),
    "thermal.reason.breaker_replicas": (
        "{why}이지만 유지합니다: 서킷 브레이커가 {deployment}의 복제본 {replicas}개 중 {allowed}개까지만 "
        "동시에 차단하도록 허용합니다"
    ),
    "thermal.condition.unnamed": "사용자 정의 조건",
    "thermal.reason.custom": "{where}의 {name} 값이 {value:g}입니다 (차단 {trip:g}, 복귀 {resume:g})",
    "thermal_policy.custom_expression_required": (
        "사용자 정의 조건을 켜려면 그 PromQL 식이 필요합니다: 디바이스마다 시리즈 하나를 주는 식 "
        "(예: DCGM_FI_DEV_ECC_DBE_VOL_TOTAL)"
    ),
    "thermal_policy.custom_resume_not_below_trip": (
        "사용자 정의 조건의 복귀 값 ({resume:g})은 차단 값 ({trip:g})보다 낮아야 합니다. 그래야 차단 값 "
        "근처의 디바이스가 오락가락하지 않습니다"
    ),
    "thermal_policy.custom_check_failed": (
        "사용자 정의 조건의 PromQL이 Prometheus에서 동작하지 않습니다: {problem}"
    ),
    # 켠 조건이 읽을 식을 장치 유형이 매핑하지 않아 결코 차단하지 못할 때.
    "thermal_policy.needs_health": (
        "{device_type}에 상태 식이 매핑되어 있지 않아, 매핑하기 전에는 비정상 디바이스를 차단할 수 "
        "없고 NuFiDeviceUnhealthy 알림도 발생하지 않습니다: 관리 → 디바이스 → {device_type} 편집, 2단계"
    ),
    "thermal_policy.needs_temperature": (
        "{device_type}에 온도 식이 매핑되어 있지 않아, 매핑하기 전에는 온도 조건으로 차단할 수 없고 "
        "NuFiDeviceHot 알림도 발생하지 않습니다: 관리 → 디바이스 → {device_type} 편집, 2단계"
    ),
    "thermal.reason.kept_last_replica": (
        "{deployment}의 마지막 라우팅 가능한 복제본이라 트래픽을 유지합니다 ({why}). "
        "정책이 전체 차단을 허용하지 않습니다"
    ),
    # Why a node's temperature is unusable (stale).
    "thermal.stale.no_reading": "쓸 수 있는 온도 값이 없습니다",
    "thermal.stale.no_snapshot": "이 장치 유형의 모니터링 스냅숏이 아직 없습니다",
    "thermal.stale.snapshot_old": "최근 스냅숏이 {age_seconds:.0f}초 전 것입니다 (한도 {limit_seconds:g}초)",
    "thermal.stale.unreadable": "온도를 읽지 못했습니다: {reason}",
    "thermal.override_unusable": (
        "{deployment}: {annotation} 어노테이션이 올바른 배포별 설정이 아니어서 무시합니다 ({reason})"
    ),
    "thermal_policy.unreadable": (
        "{device_type}에 저장된 온도 정책이 더 이상 올바르지 않습니다 ({reason}). 관리자가 정책을 다시 "
        "저장할 때까지 장치 유형의 기본 정책을 적용합니다"
    ),
    # Policies and overrides refused.
    "thermal_policy.resume_not_below_trip": (
        "resume_celsius ({resume:g})는 trip_celsius ({trip:g})보다 낮아야 합니다. 차단 온도 부근을 오가는 "
        "장치가 켜졌다 꺼졌다 하지 않도록 10도쯤 낮게 잡으세요"
    ),
    "thermal_override.resume_not_below_trip": "장치 유형의 정책과 함께 적용하면 {problem}",
    "thermal_override.disable_not_allowed": (
        "장치 유형의 온도 정책이 배포에서 온도 보호를 끄도록 허용하지 않습니다 "
        "(overrides_may_disable이 false). 'enabled'를 빼거나 관리자에게 요청하세요"
    ),
    "thermal_override.trip_above_policy": (
        "trip_celsius {trip_celsius:g}는 장치 유형 자체의 차단 온도 {limit:g} °C보다 높습니다. 배포별 설정은 "
        "관리자가 허용한 만큼만(override_max_trip_celsius, 여기서는 설정되지 않음) 올릴 수 있으니 더 낮은 "
        "값을 고르세요"
    ),
    "thermal_override.resume_too_low": (
        "resume_celsius {resume_celsius:g}는 차단 온도 {trip:g} °C보다 {band:g} °C 넘게 낮습니다. 장치 유형 "
        "자체의 차단·복구 온도 차이보다 커서 장치가 식은 뒤에도 오래 트래픽이 끊긴 채로 남습니다. "
        "{least:g} °C 이상으로 고르세요"
    ),
    "thermal_override.trip_above_limit": (
        "trip_celsius {trip_celsius:g}는 장치 유형의 온도 정책이 배포별 설정에 허용하는 최고값 {limit:g} °C "
        "(override_max_trip_celsius)보다 높습니다. 더 낮은 값을 고르세요"
    ),
    "thermal.device_type_not_found": (
        "장치 유형 '{device_type}'이(가) 없습니다. GET /api/v1/devices에서 목록을 볼 수 있습니다"
    ),
    "thermal.deployment_not_found": "프로젝트 '{project}'에 배포 '{name}'이(가) 없습니다",
}
