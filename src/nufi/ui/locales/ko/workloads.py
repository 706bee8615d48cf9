"""Korean texts of what Deployments, Labs and Projects share: fields, actions, statuses and ages."""

TEXTS: dict[str, str] = {
    "workloads.project": "프로젝트",
    "workloads.project_not_offered": (
        "프로젝트 {asked}이(가) 없거나 멤버가 아닙니다. 대신 {chosen}을(를) 보여 줍니다."
    ),
    "workloads.no_projects.title": "소속된 프로젝트가 없습니다",
    "workloads.no_projects.body": (
        "워크로드는 프로젝트 안에서 만들고 관리합니다. 관리자에게 프로젝트에 추가해 달라고 요청하세요."
    ),
    "workloads.accelerator.option": "{name} — {free}개 사용 가능 (지금 한 노드에 최대 {most}개)",
    "workloads.accelerator.option_none_free": "{name} — 지금 사용 가능한 장치 없음",
    "workloads.fit.not_now": (
        "지금은 {name} {count}개가 남은 노드가 없습니다(한 노드에 남은 최대 개수 {most}개). "
        "장치가 풀릴 때까지 파드가 대기 중 상태로 기다립니다."
    ),
    "workloads.fit.never": (
        "{name} {count}개를 가진 노드가 없습니다(한 노드에 최대 {most}개). 이 개수로는 만들 수 없습니다."
    ),
    "workloads.accelerator.none": (
        "클러스터에 사용할 수 있는 가속기가 없습니다. 관리자가 관리 → 디바이스에서 유형을 활성화해야 합니다."
    ),
    "workloads.field.name": "이름",
    "workloads.field.accelerator": "가속기",
    "workloads.field.count": "가속기 개수 (파드당)",
    "workloads.action.delete": "삭제",
    "workloads.action.cancel": "취소",
    "workloads.created": "만든 시각",
    "workloads.age.s": "{n}초",
    "workloads.age.m": "{n}분",
    "workloads.age.h": "{n}시간",
    "workloads.age.d": "{n}일",
    "workloads.status.Ready": "준비됨",
    "workloads.status.Starting": "시작 중",
    "workloads.status.Pending": "대기 중",
    "workloads.status.Degraded": "일부 장애",
    "workloads.status.Error": "오류",
    "workloads.status.ScaledDown": "축소됨 (0개)",
    "workloads.status.Stopped": "중지됨",
    "workloads.error.invalid": "입력값을 확인하세요.",
    "workloads.error.conflict": "이미 있는 이름이거나 다른 변경과 충돌했습니다.",
    "workloads.error.not_found": "찾을 수 없습니다. 목록을 새로 고쳐 보세요.",
    "workloads.error.forbidden": "이 프로젝트에 대한 권한이 없습니다.",
    "workloads.error.failed": "요청을 처리하지 못했습니다.",
    "workloads.error.unexpected": ("예상하지 못한 오류가 발생했습니다. 서버 로그를 확인하세요."),
    "workloads.quota.in_use": "프로젝트 할당량: {name} {quota}개 중 {used}개 사용 중",
    "workloads.quota.unlimited": "프로젝트 할당량: {name} 제한 없음",
    "workloads.fit.quota": (
        "프로젝트 할당량({name} {quota}개)에 남은 여유는 {room}개입니다. {count}개를 요청하면 거절됩니다."
    ),
    "workloads.fit.quota_full": (
        "프로젝트 할당량({name} {quota}개)을 모두 사용 중입니다. {total}개를 더 요청하면 거절됩니다."
    ),
    "workloads.fit.quota_replicas": (
        "프로젝트 할당량({name} {quota}개)에 남은 여유는 {room}개입니다. 복제본 {added}개 "
        "\N{MULTIPLICATION SIGN} {count}개 = {total}개를 더 요청하면 거절됩니다. "
        "복제본은 최대 {fitting}개까지 가능합니다."
    ),
}
