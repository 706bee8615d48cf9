"""Korean texts of Admin → Devices: the device types, their actions, and Audit's changed fields."""

TEXTS: dict[str, str] = {
    "devices.title": "디바이스",
    "devices.add": "디바이스 추가",
    "devices.column.name": "이름",
    "devices.column.vendor": "제조사",
    "devices.column.resource_key": "리소스 키",
    "devices.column.kind": "구분",
    "devices.column.nodes": "노드",
    "devices.column.capacity": "용량 / 할당 가능 / 할당됨",
    "devices.column.enabled": "사용",
    "devices.kind.official": "공식",
    "devices.kind.custom": "사용자 정의",
    "devices.inventory_error": "클러스터를 읽지 못했습니다: {detail}",
    "devices.column.actions": "작업",
    "devices.action.toggle": "사용 여부 전환",
    "devices.action.delete": "삭제",
    "devices.action.reset": "프리셋으로 되돌리기",
    "devices.action.cancel": "취소",
    "devices.action.reload": "목록 다시 읽기",
    "devices.action.enable_anyway": "검사 없이 사용",
    "devices.delete.title": "디바이스 유형 {name} ({id})을(를) 삭제할까요?",
    "devices.delete.body": (
        "되돌릴 수 없습니다. 이 유형은 모니터링에서도 사라지며, 온도 보호 정책과 알림 임계값,"
        " 온도 이력도 함께 삭제됩니다. 같은 ID로 다시 등록하면 기본값부터 시작합니다."
    ),
    "devices.reset.title": "{name} ({id})을(를) 기본 프리셋으로 되돌릴까요?",
    "devices.reset.body": (
        "관리자가 바꾼 설정(사용 여부, 레이블, 지표, 온도 기준)이 모두 사라지고 "
        "제조사의 프리셋으로 돌아갑니다."
    ),
    "devices.done.enabled": "{name}을(를) 사용하도록 설정했습니다.",
    "devices.done.disabled": "{name}을(를) 사용하지 않도록 설정했습니다.",
    "devices.done.deleted": "{name}을(를) 삭제했습니다.",
    "devices.done.reset": "{name}을(를) 프리셋으로 되돌렸습니다.",
    "devices.error.stale": (
        "목록을 읽은 뒤 다른 사람이 이 유형을 바꿨습니다 (현재 리비전 {current}, 목록의 리비전 {shown}). "
        "목록을 다시 읽고 다시 시도하세요."
    ),
    "devices.error.not_found": ("이 디바이스 유형은 더 이상 없습니다. 목록을 다시 읽으세요."),
    "devices.error.conflict": "지금은 이 작업을 할 수 없습니다.",
    "devices.error.invalid": "검사를 통과하지 못해 저장하지 않았습니다.",
    "devices.error.unavailable": ("NuFi가 사용하는 서비스에 연결할 수 없어 저장하지 않았습니다."),
    "devices.error.forbidden": "이 작업에는 nufi-admin 역할이 필요합니다.",
    "devices.error.unexpected": (
        "작업하지 못했습니다. 잠시 후 다시 시도하고, 계속되면 서버 로그를 확인하세요."
    ),
}
