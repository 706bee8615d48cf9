"""Korean texts of Admin → Projects."""

TEXTS: dict[str, str] = {
    "projects.title": "프로젝트",
    "projects.empty": "프로젝트가 없습니다. 위에서 만들 수 있습니다.",
    "projects.members": "멤버",
    "projects.no_members": "멤버 없음",
    "projects.create.title": "새 프로젝트",
    "projects.field.members": "멤버 (사용자 이름, 쉼표나 공백으로 구분)",
    "projects.field.username": "추가할 사용자 이름",
    "projects.action.create": "프로젝트 만들기",
    "projects.action.delete": "삭제",
    "projects.action.add_member": "멤버 추가",
    "projects.action.remove_member": "{user} 제거",
    "projects.delete.title": "프로젝트 {name}을(를) 삭제할까요?",
    "projects.delete.body": (
        "네임스페이스 {name}과(와) 그 안의 모든 것이 삭제됩니다. 아래는 미리 확인한(dry run) 결과입니다."
    ),
    "projects.delete.objects": "함께 삭제되는 객체 {count}개:",
    "projects.delete.nothing": "함께 삭제되는 워크로드는 없습니다.",
    "projects.delete.confirm": "{name} 삭제",
    "projects.done.created": "프로젝트 {name}을(를) 만들었습니다.",
    "projects.done.added": "{name}에 {user}을(를) 추가했습니다.",
    "projects.done.removed": "{name}에서 {user}을(를) 제거했습니다.",
    "projects.done.deleted": "프로젝트 {name}을(를) 삭제했습니다.",
    "projects.quota.title": "할당량",
    "projects.quota.none": "할당량 없음: 이 프로젝트의 워크로드는 제한 없이 요청할 수 있습니다.",
    "projects.quota.storage": "스토리지",
    "projects.quota.pods": "파드",
    "projects.quota.used": "{hard} 중 {used} 사용",
    "projects.quota.unlimited": "제한 없음",
    "projects.quota.field.limit": "한도 (비우면 제한 없음)",
    "projects.quota.field.storage": "한도, 예: 100Gi (비우면 제한 없음)",
    "projects.quota.no_types": (
        "활성화된 디바이스 유형이 없습니다. 관리 → 디바이스에서 유형을 활성화하면 한도를 정할 수 있습니다."
    ),
    "projects.quota.action.save": "할당량 저장",
    "projects.quota.done.saved": "{name}의 할당량을 저장했습니다.",
    "projects.page.showing": "프로젝트 {total}개 중 {first}~{last}번째",
    "projects.page.label": "프로젝트 목록 페이지",
}
