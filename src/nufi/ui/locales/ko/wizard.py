"""Korean texts of Admin → Devices → Add Device (the wizard), its kept draft, and editing a device type."""

TEXTS: dict[str, str] = {
    "wizard.title": "디바이스 추가",
    "wizard.step.identity": "기본 정보",
    "wizard.step.metrics": "레이블과 지표",
    "wizard.step.review": "검토 후 저장",
    "wizard.step_of": "3단계 중 {step}단계",
    "wizard.optional": "(선택)",
    "wizard.field.id": "ID",
    "wizard.field.name": "이름",
    "wizard.field.vendor": "제조사",
    "wizard.field.resource_key": "리소스 키",
    "wizard.hint.id": (
        "API와 URL에 쓰이는 이름: 영문 소문자, 숫자, - (예: lpu). 비워 두면 이름에서 만듭니다"
    ),
    "wizard.hint.resource_key": ("디바이스 플러그인이 노드에 알리는 이름 (예: hyperaccel.ai/lpu)"),
    "wizard.key.checking": "클러스터에서 확인하는 중…",
    "wizard.key.found": "✓ 클러스터에서 감지된 리소스입니다.",
    "wizard.key.totals": "노드 {nodes}개에 모두 {capacity}개 (할당 가능 {allocatable}개)",
    "wizard.key.not_found": "⚠ 클러스터에서 감지되지 않은 리소스입니다.",
    "wizard.key.confirm.title": "{resource_key} 리소스를 알리는 노드가 없습니다",
    "wizard.key.confirm.body": (
        "디바이스 플러그인이 노드에 이 리소스를 알리기 전까지는 모니터링에 이 유형이 아무것도 "
        "표시되지 않고, 이 리소스를 요청하는 워크로드를 배치할 수 없습니다."
    ),
    "wizard.key.confirm.go_on": "그래도 계속",
    "wizard.key.confirm.back": "돌아가기",
    "wizard.key.invalid": "리소스 키 형식이 올바르지 않습니다. 다음을 고치세요:",
    "wizard.key.unavailable": ("클러스터를 읽지 못해 리소스 키를 확인할 수 없습니다."),
    "wizard.key.registered": "⚠ 이미 {name}({id}) 유형으로 등록된 키입니다.",
    "wizard.key.registered_link": "해당 유형 편집",
    "wizard.column.node": "노드",
    "wizard.column.device": "디바이스",
    "wizard.column.value": "값",
    "wizard.column.capacity": "용량",
    "wizard.column.allocatable": "할당 가능",
    "wizard.labels.title": "레이블",
    "wizard.labels.help": (
        "시리즈에서 노드, 디바이스, 파드, 네임스페이스를 알려 주는 Prometheus 레이블 이름입니다."
    ),
    "wizard.label.node": "노드 레이블",
    "wizard.label.device": "디바이스 레이블",
    "wizard.label.pod": "파드 레이블",
    "wizard.label.namespace": "네임스페이스 레이블",
    "wizard.metrics.title": "지표 (PromQL)",
    "wizard.metric.utilization": "사용률 (%)",
    "wizard.metric.memory": "메모리",
    "wizard.metric.temperature": "온도 (°C)",
    "wizard.metric.power": "전력 (W)",
    "wizard.metric.health": "상태 (정상 1, 비정상 0)",
    "wizard.hint.health": (
        "디바이스마다 시리즈 하나: 정상이면 1, 비정상이면 0 (예: lpu_health, 익스포터의 0이 정상을 뜻하면 "
        "x == bool 0). 이 식이 있어야 온도 제어가 비정상 디바이스의 트래픽을 차단할 수 있습니다."
    ),
    "wizard.memory.mode.used_total": "사용량 & 전체",
    "wizard.memory.mode.used_free": "사용량 & 여유",
    "wizard.memory.used": "사용 메모리",
    "wizard.memory.total": "전체 메모리",
    "wizard.memory.free": "여유 메모리",
    "wizard.memory.unit": "단위",
    "wizard.test": "테스트",
    "wizard.test.running": "Prometheus에서 시험하는 중…",
    "wizard.test.ok": "✓ 식이 동작합니다.",
    "wizard.test.no_series": "아직 시리즈 없음: 식은 올바르지만 지금은 Prometheus에 데이터가 없습니다.",
    "wizard.test.series": "시리즈 {count}개",
    "wizard.test.missing_labels": "레이블이 없는 시리즈가 있습니다: {labels}",
    "wizard.test.not_measured": "측정값 아님",
    "wizard.test.empty": "먼저 식을 입력하세요.",
    "wizard.review.title": "입력한 내용을 확인하고 저장하세요.",
    "wizard.review.none": "(없음)",
    "wizard.edit.identity": "기본 정보 수정",
    "wizard.edit.metrics": "레이블과 지표 수정",
    "wizard.back": "이전",
    "wizard.next": "다음",
    "wizard.save": "저장",
    "wizard.force": (
        "검사를 통과하지 못해도 저장 (디바이스 플러그인이나 익스포터를 아직 설치하지 않은 경우에 씁니다. "
        "감사 로그에 기록됩니다)"
    ),
    # Saving while Prometheus cannot be asked: the metrics go unchecked only when the admin says so.
    "wizard.unchecked.title": "Prometheus에 연결할 수 없어서 지표를 검사하지 못했습니다.",
    "wizard.unchecked.body": (
        "아무것도 저장되지 않았습니다. 저장할 때는 지표마다 Prometheus로 검사합니다. 아래의 "
        '"검사를 통과하지 못해도 저장"처럼 이 검사 없이 저장할 수도 있습니다. 유형은 입력한 그대로 '
        "저장되고, 지표를 검사하지 않았다는 사실이 감사 로그에 남습니다. Prometheus가 다시 응답하면 "
        "지표를 다시 확인하세요."
    ),
    "wizard.unchecked.save": "지표 검사 없이 저장",
    "wizard.restart": "처음부터 다시",
    "wizard.saved": "디바이스 유형 {name}을(를) 저장했습니다.",
    "wizard.error.unexpected": (
        "저장하지 못했습니다. 잠시 후 다시 시도하고, 계속되면 서버 로그를 확인하세요."
    ),
    # --- The Add Device wizard's draft, kept in the database ---
    "wizard.draft.missing": "이 초안을 찾을 수 없어 새 초안으로 시작합니다.",
    "wizard.draft.unsaved": "초안을 저장하지 못했습니다. 잠시 후 다시 시도하세요.",
    # --- Editing a stored device type in the wizard ---
    "wizard.edit_mode.title": "디바이스 유형 {name} 수정",
    "wizard.edit_mode.editing": "{id}을(를) 리비전 {revision}에서 수정하고 있습니다.",
    "wizard.edit_mode.official": (
        "공식 유형입니다. ID, 이름, 제조사, 리소스 키는 제조사가 정한 것이라 바꿀 수 없고, "
        "레이블과 지표만 바꿀 수 있습니다."
    ),
    "wizard.edit_mode.save": "변경 사항 저장",
    "wizard.edit_mode.saved": ("{name}의 변경 사항을 저장했습니다 (이제 리비전 {revision})."),
    "wizard.edit_mode.stale": (
        "다른 사람이 이 유형을 바꿨습니다: 현재 리비전 {current}, 수정을 시작한 리비전 {started}. "
        "다시 읽기를 누르면 그 변경 사항을 불러옵니다. 그다음 내 변경 사항을 다시 적용하세요."
    ),
    "wizard.edit_mode.reload": "다시 읽기",
    "wizard.edit_mode.not_found": "디바이스 유형 {id}은(는) 존재하지 않습니다.",
    "wizard.edit_mode.action": "수정",
}
