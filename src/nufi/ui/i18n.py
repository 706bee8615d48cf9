"""Every text the dashboard shows, in Korean and in English, from one catalog.

Korean is the first language (NuFi's first users are Korean infrastructure teams); English stands
beside it. A key missing in either language is a failing test (`tests/unit/ui`), never a blank label.
Texts take `str.format` fields by name (`{node}`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal, get_args

Language = Literal["ko", "en"]
LANGUAGES: tuple[Language, ...] = get_args(Language)
DEFAULT_LANGUAGE: Language = "ko"
LANGUAGE_NAMES: dict[Language, str] = {"ko": "한국어", "en": "English"}

CATALOG: dict[Language, dict[str, str]] = {
    "ko": {
        "app.title": "NuFi",
        "nav.monitoring": "모니터링",
        "nav.admin": "관리",
        "nav.devices": "디바이스",
        "nav.audit": "감사 기록",
        "nav.thermal": "온도 제어",
        "thermal.title": "온도 기반 트래픽 제어",
        "thermal.intro": (
            "장치가 기준 온도를 넘으면 해당 노드의 추론 파드로 가는 트래픽을 끊고, "
            "충분히 식으면 다시 보냅니다. 장치 유형마다 정책을 정합니다."
        ),
        "thermal.live": "노드 상태",
        "thermal.live.empty": "감시 중인 노드가 없습니다. 정책을 켜면 나타납니다.",
        "thermal.policies": "정책",
        "thermal.history": "전환 기록",
        "thermal.history.empty": "아직 전환이 없습니다.",
        "thermal.history.device": "{node}의 장치 {device}",
        "thermal.history.hot": "{where}: {temperature} — {limit} °C 이상이 {hold}초 지속되어 과열",
        "thermal.history.normal": "{where}: {temperature} — {limit} °C 이하가 {hold}초 지속되어 정상 복귀",
        "thermal.history.override": " (배포 {deployment}의 재정의 기준)",
        "thermal.history.no_reading": "온도 없음",
        "thermal.column.device_type": "장치 유형",
        "thermal.column.node": "노드",
        "thermal.column.state": "상태",
        "thermal.column.temperature": "온도",
        "thermal.column.since": "시작 시각",
        "thermal.column.pods": "파드",
        "thermal.column.at": "시각",
        "thermal.column.message": "내용",
        "thermal.state.normal": "정상",
        "thermal.state.hot": "과열",
        "thermal.state.stale": "측정 불가",
        "thermal.cut": "트래픽 차단",
        "thermal.pod.off": "차단됨",
        "thermal.pod.kept": "마지막 복제본이라 유지",
        "thermal.source.default": "기본값",
        "thermal.source.admin": "관리자 설정",
        "thermal.field.enabled": "사용",
        "thermal.field.trip_celsius": "차단 온도",
        "thermal.field.resume_celsius": "복귀 온도",
        "thermal.field.trip_hold_seconds": "차단 유지 시간",
        "thermal.field.resume_hold_seconds": "복귀 유지 시간",
        "thermal.field.scope": "범위",
        "thermal.field.allow_full_shutoff": "전체 차단 허용",
        "thermal.field.taint_node": "노드에 taint 추가",
        "thermal.field.overrides_may_disable": "배포별 설정으로 보호 끄기 허용",
        "thermal.field.override_max_trip_celsius": "배포별 설정의 최고 차단 온도",
        "thermal.field.override_max_trip_hint": "비우면 제한 없음",
        "thermal.scope.node": "노드",
        "thermal.scope.device": "장치",
        "thermal.save": "저장",
        "thermal.saved": "{device_type} 정책을 저장했습니다.",
        "thermal.dry_run": "지난 24시간으로 시험",
        "thermal.dry_run.title": "이 정책이었다면 (지난 24시간)",
        "thermal.dry_run.key": "노드",
        "thermal.dry_run.trips": "차단 횟수",
        "thermal.dry_run.cut": "차단 시간 (분)",
        "thermal.dry_run.max": "최고 온도",
        "thermal.dry_run.empty": "기록된 온도가 없습니다.",
        "header.sign_out": "로그아웃",
        "header.language": "언어",
        "forbidden.title": "접근 권한이 없습니다",
        "forbidden.body": (
            "이 페이지는 nufi-admin 역할이 있는 관리자만 볼 수 있습니다. "
            "필요하면 관리자에게 역할을 요청하세요."
        ),
        "forbidden.back": "모니터링으로 돌아가기",
        "signin.required": "로그인이 필요합니다.",
        "signin.again": "다시 로그인",
        "signin.detail": "자세한 내용: {detail}",
        "signin.unreachable.title": "ID 공급자에 연결할 수 없습니다",
        "signin.unreachable.message": (
            "로그인을 처리하는 ID 공급자(OIDC)가 응답하지 않습니다. "
            "잠시 후 다시 시도하고, 계속되면 관리자에게 알리세요."
        ),
        "signin.not_completed.title": "로그인이 완료되지 않았습니다",
        "signin.not_completed.message": "ID 공급자가 다음과 같이 답했습니다: {reason}",
        "signin.unfinished.title": "이 로그인을 마칠 수 없습니다",
        "signin.unfinished.expired": (
            "로그인을 시작한 지 10분이 넘었거나, 다른 브라우저에서 시작했거나, "
            "이 브라우저가 이 사이트의 쿠키를 저장하지 않습니다."
        ),
        "signin.unfinished.state": (
            "이 브라우저가 시작한 로그인과 상태 값(state)이 맞지 않습니다. "
            "그사이 다른 탭 등에서 새 로그인을 시작했을 수 있습니다."
        ),
        "signin.unfinished.issuer": "다른 ID 공급자가 보낸 응답입니다.",
        "signin.unfinished.no_code": "응답에 인가 코드가 없습니다.",
        "signin.refused.title": "로그인이 거부되었습니다",
        "signin.refused.message": (
            "ID 공급자의 응답을 받아들일 수 없어 로그인하지 못했습니다. "
            "다시 로그인해 보고, 계속되면 관리자에게 알리세요."
        ),
        "signin.not_ready.title": "NuFi가 아직 준비되지 않았습니다",
        "signin.not_ready.message": "서버가 시작하거나 멈추는 중입니다. 잠시 후 다시 시도하세요.",
        "signin.unconfigured.title": "대시보드 로그인이 설정되지 않았습니다",
        "signin.unconfigured.message": (
            '관리자가 {missing} 값을 설정해야 합니다(docs/dashboard.md의 "Sign-in and sessions" 참고).'
        ),
        "signin.unconfigured.settings": "대시보드 로그인 설정",
        "signin.unknown_address.title": "NuFi가 자신의 주소를 알지 못합니다",
        "signin.unknown_address.message": (
            "이 주소는 루프백 주소가 아니고 NUFI_DASHBOARD_PUBLIC_URL도 설정되어 있지 않습니다. "
            "관리자가 이 값을 브라우저가 대시보드에 접속하는 주소로 설정해야 합니다"
            '(docs/install.md의 "The public URL" 참고).'
        ),
        "signout.refused.title": "로그아웃이 거부되었습니다",
        "signout.refused.message": (
            "NuFi 페이지에서 보낸 요청이 아닙니다. NuFi 화면의 메뉴에서 로그아웃하세요."
        ),
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
        "monitoring.state.ok": "정상",
        "monitoring.thermal.hot": "과열: 트래픽 차단",
        "monitoring.thermal.stale": "온도 측정 불가",
        "monitoring.state.stale": "오래됨",
        "monitoring.state.not_reporting": "응답 없음",
        "monitoring.state.implausible": "비정상 값",
        "monitoring.page": "{first}~{last} / 노드 {total}개",
        "monitoring.previous": "이전",
        "monitoring.next": "다음",
        "monitoring.errors": "일부 데이터를 가져오지 못했습니다",
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
        "audit.title": "감사 기록",
        "audit.empty": "아직 기록이 없습니다.",
        "audit.column.time": "시각",
        "audit.column.actor": "사용자",
        "audit.column.action": "작업",
        "audit.column.target": "대상",
        "charts.title": "시간별 추이",
        "charts.loading": "기간 데이터를 불러오는 중…",
        "charts.metric.utilization": "사용률",
        "charts.metric.memory": "메모리",
        "charts.metric.temperature": "온도",
        "charts.metric.power": "전력",
        "charts.unit.utilization": "%",
        "charts.unit.memory": "GiB (사용)",
        "charts.unit.temperature": "°C",
        "charts.unit.power": "W",
        # --- Admin → Devices → Add Device (the wizard) ---
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
        "wizard.key.not_found": "이 리소스를 제공하는 노드가 없습니다.",
        "wizard.key.invalid": "리소스 키 형식이 올바르지 않습니다. 다음을 고치세요:",
        "wizard.key.unavailable": ("클러스터를 읽지 못해 리소스 키를 확인할 수 없습니다."),
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
        "wizard.memory.mode.used_total": "사용량 & 전체",
        "wizard.memory.mode.used_free": "사용량 & 여유",
        "wizard.memory.used": "사용 메모리",
        "wizard.memory.total": "전체 메모리",
        "wizard.memory.free": "여유 메모리",
        "wizard.memory.unit": "단위",
        "wizard.test": "테스트",
        "wizard.test.running": "Prometheus에서 시험하는 중…",
        "wizard.test.ok": "✓ 식이 동작합니다.",
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
            "검사를 통과하지 못해도 저장 (디바이스 플러그인이나 익스포터를 아직 설치하지 않은 경우; "
            "감사 로그에 기록됩니다)"
        ),
        "wizard.restart": "처음부터 다시",
        "wizard.saved": "디바이스 유형 {name}을(를) 저장했습니다.",
        "wizard.error.unexpected": (
            "저장하지 못했습니다. 잠시 후 다시 시도하고, 계속되면 서버 로그를 확인하세요."
        ),
        # --- Admin → Devices: each row's actions, and Admin → Audit's changed fields ---
        "devices.column.actions": "작업",
        "devices.action.toggle": "사용 여부 전환",
        "devices.action.delete": "삭제",
        "devices.action.reset": "프리셋으로 되돌리기",
        "devices.action.cancel": "취소",
        "devices.action.reload": "목록 다시 읽기",
        "devices.action.enable_anyway": "검사 없이 사용",
        "devices.delete.title": "디바이스 유형 {name} ({id})을(를) 삭제할까요?",
        "devices.delete.body": ("되돌릴 수 없습니다. 이 유형은 모니터링에서도 사라집니다."),
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
        "devices.audit.changed": "바뀐 항목:",
        "devices.audit.unchanged": "바뀐 항목이 없습니다.",
        "devices.audit.created": "새로 만든 기록입니다 (이전 값 없음).",
        "devices.audit.removed": "삭제된 기록입니다 (이후 값 없음).",
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
        # Workloads: Deployments, Labs and Admin → Projects.
        "nav.workloads": "워크로드",
        "nav.deployments": "배포",
        "nav.labs": "랩",
        "nav.projects": "프로젝트",
        "workloads.project": "프로젝트",
        "workloads.project_not_offered": (
            "프로젝트 {asked}이(가) 없거나 멤버가 아닙니다. 대신 {chosen}을(를) 보여 줍니다."
        ),
        "workloads.no_projects.title": "소속된 프로젝트가 없습니다",
        "workloads.no_projects.body": (
            "워크로드는 프로젝트 안에서 만들고 관리합니다. 관리자에게 프로젝트에 추가해 달라고 요청하세요."
        ),
        "workloads.accelerator.option": "{name} ({resource}) — {free}개 사용 가능",
        "workloads.accelerator.none": (
            "클러스터에 사용할 수 있는 가속기가 없습니다. 관리자가 관리 → 디바이스에서 "
            "유형을 활성화해야 합니다."
        ),
        "workloads.field.name": "이름",
        "workloads.field.accelerator": "가속기",
        "workloads.field.count": "가속기 개수 (파드당)",
        "workloads.action.delete": "삭제",
        "workloads.action.cancel": "취소",
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
        "deployments.title": "배포",
        "deployments.empty": ("이 프로젝트에는 아직 배포가 없습니다. 아래에서 만들 수 있습니다."),
        "deployments.column.name": "이름",
        "deployments.column.status": "상태",
        "deployments.column.ready": "준비 / 목표",
        "deployments.column.accelerator": "가속기 (파드당 개수)",
        "deployments.column.nodes": "노드",
        "deployments.column.reason": "사유",
        "deployments.thermal": "온도 제어: {reason}",
        "deployments.column.age": "경과 시간",
        "deployments.action.scale": "스케일",
        "deployments.action.apply": "적용",
        "deployments.action.create": "배포 만들기",
        "deployments.scale.title": "{name} 레플리카 수 변경",
        "deployments.scale.range": "레플리카 수는 0에서 {most} 사이의 정수여야 합니다.",
        "deployments.delete.title": "배포 {name}을(를) 삭제할까요?",
        "deployments.delete.body": (
            "프로젝트 {project}에서 이 배포의 Deployment, 파드, "
            "Service가 모두 삭제됩니다. 되돌릴 수 없습니다."
        ),
        "deployments.create.title": "새 배포",
        "deployments.field.image": "컨테이너 이미지",
        "deployments.field.args": "인자 (셸처럼 공백으로 구분)",
        "deployments.args.bad": "인자를 나눌 수 없습니다: {reason}. 따옴표를 닫아 주세요.",
        "deployments.field.replicas": "레플리카 수",
        "deployments.field.port": "포트",
        "deployments.field.readiness": "준비 상태 확인 경로",
        "deployments.field.readiness_hint": ("비워 두면 준비 상태 확인(readiness probe)을 하지 않습니다."),
        "deployments.field.env": "환경 변수 (한 줄에 KEY=VALUE, 선택)",
        "deployments.env.bad_line": "KEY=VALUE 형식이 아닌 줄이 있습니다: {line}",
        "deployments.done.created": "배포 {name}을(를) 만들었습니다.",
        "deployments.done.scaled": "{name}의 레플리카를 {replicas}개로 바꿨습니다.",
        "deployments.done.deleted": "배포 {name}을(를) 삭제했습니다.",
        "labs.title": "랩",
        "labs.empty": ("이 프로젝트에는 아직 랩이 없습니다. 아래에서 만들 수 있습니다."),
        "labs.column.name": "이름",
        "labs.column.kind": "종류",
        "labs.column.status": "상태",
        "labs.column.accelerator": "가속기 (파드당 개수)",
        "labs.column.storage": "저장 공간",
        "labs.column.reason": "대기 사유",
        "labs.column.age": "경과 시간",
        "labs.action.open": "열기",
        "labs.action.stop": "중지",
        "labs.action.start": "시작",
        "labs.action.create": "랩 만들기",
        "labs.create.title": "새 랩",
        "labs.field.kind": "종류",
        "labs.field.storage": "홈 볼륨 크기 (GiB)",
        "labs.delete.title": "랩 {name}을(를) 삭제할까요?",
        "labs.delete.body": ("랩 서버와 홈 볼륨(저장된 파일 포함)이 모두 삭제됩니다. 되돌릴 수 없습니다."),
        "labs.done.created": "랩 {name}을(를) 만들었습니다.",
        "labs.done.stop": ("랩 {name}을(를) 중지했습니다. 홈 볼륨은 그대로 남아 있습니다."),
        "labs.done.start": "랩 {name}을(를) 다시 시작합니다.",
        "labs.done.deleted": "랩 {name}을(를) 삭제했습니다.",
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
    },
    "en": {
        "app.title": "NuFi",
        "nav.monitoring": "Monitoring",
        "nav.admin": "Admin",
        "nav.devices": "Devices",
        "nav.audit": "Audit",
        "nav.thermal": "Thermal",
        "thermal.title": "Temperature-based traffic control",
        "thermal.intro": (
            "When a device runs past its trip temperature, traffic to the inference pods on its node is "
            "cut, and it comes back once the node has cooled. Each device type has its own policy."
        ),
        "thermal.live": "Node states",
        "thermal.live.empty": "No node is watched. Enable a policy to see its nodes here.",
        "thermal.policies": "Policies",
        "thermal.history": "Transitions",
        "thermal.history.empty": "No transition yet.",
        "thermal.history.device": "device {device} on {node}",
        "thermal.history.hot": "{where}: {temperature} — at or above {limit} °C for {hold} s, hot",
        "thermal.history.normal": (
            "{where}: {temperature} — at or below {limit} °C for {hold} s, back to normal"
        ),
        "thermal.history.override": " (the override of deployment {deployment})",
        "thermal.history.no_reading": "no reading",
        "thermal.column.device_type": "Device type",
        "thermal.column.node": "Node",
        "thermal.column.state": "State",
        "thermal.column.temperature": "Temperature",
        "thermal.column.since": "Since",
        "thermal.column.pods": "Pods",
        "thermal.column.at": "When",
        "thermal.column.message": "What happened",
        "thermal.state.normal": "Normal",
        "thermal.state.hot": "Hot",
        "thermal.state.stale": "Not readable",
        "thermal.cut": "traffic cut",
        "thermal.pod.off": "cut",
        "thermal.pod.kept": "kept as the last replica",
        "thermal.source.default": "default",
        "thermal.source.admin": "set by an admin",
        "thermal.field.enabled": "Enabled",
        "thermal.field.trip_celsius": "Trip at",
        "thermal.field.resume_celsius": "Resume at",
        "thermal.field.trip_hold_seconds": "Trip hold",
        "thermal.field.resume_hold_seconds": "Resume hold",
        "thermal.field.scope": "Scope",
        "thermal.field.allow_full_shutoff": "Allow full shutoff",
        "thermal.field.taint_node": "Taint hot nodes",
        "thermal.field.overrides_may_disable": "Let deployment overrides switch protection off",
        "thermal.field.override_max_trip_celsius": "Highest trip an override may set",
        "thermal.field.override_max_trip_hint": "empty: no limit",
        "thermal.scope.node": "Node",
        "thermal.scope.device": "Device",
        "thermal.save": "Save",
        "thermal.saved": "Saved the policy of {device_type}.",
        "thermal.dry_run": "Try on the last 24 h",
        "thermal.dry_run.title": "Had this policy been on (last 24 h)",
        "thermal.dry_run.key": "Node",
        "thermal.dry_run.trips": "Trips",
        "thermal.dry_run.cut": "Cut (min)",
        "thermal.dry_run.max": "Highest",
        "thermal.dry_run.empty": "No recorded temperature.",
        "header.sign_out": "Sign out",
        "header.language": "Language",
        "forbidden.title": "You do not have access",
        "forbidden.body": (
            "Only administrators with the nufi-admin role can open this page. "
            "Ask an administrator for the role if you need it."
        ),
        "forbidden.back": "Back to monitoring",
        "signin.required": "Please sign in.",
        "signin.again": "Sign in again",
        "signin.detail": "Details: {detail}",
        "signin.unreachable.title": "The identity provider cannot be reached",
        "signin.unreachable.message": (
            "The identity provider (OIDC) that signs people in does not answer. "
            "Try again in a moment; if it goes on, tell an administrator."
        ),
        "signin.not_completed.title": "Sign-in was not completed",
        "signin.not_completed.message": "The identity provider said: {reason}",
        "signin.unfinished.title": "This sign-in cannot be finished",
        "signin.unfinished.expired": (
            "It took longer than ten minutes, was started in another browser, or this browser does not "
            "keep cookies for this site."
        ),
        "signin.unfinished.state": (
            "Its state does not match the sign-in this browser started (another sign-in was started "
            "since, perhaps in another tab)."
        ),
        "signin.unfinished.issuer": "The answer came from another identity provider.",
        "signin.unfinished.no_code": "The answer carries no code.",
        "signin.refused.title": "Sign-in was refused",
        "signin.refused.message": (
            "NuFi could not accept the identity provider's answer, so you are not signed in. "
            "Sign in again; if it goes on, tell an administrator."
        ),
        "signin.not_ready.title": "NuFi is not ready",
        "signin.not_ready.message": "The server is starting or stopping; try again in a moment.",
        "signin.unconfigured.title": "Dashboard sign-in is not configured",
        "signin.unconfigured.message": (
            'An administrator must set {missing} (see docs/dashboard.md, "Sign-in and sessions").'
        ),
        "signin.unconfigured.settings": "the dashboard sign-in settings",
        "signin.unknown_address.title": "NuFi does not know its own address",
        "signin.unknown_address.message": (
            "This address is not a loopback one and NUFI_DASHBOARD_PUBLIC_URL is not set. An administrator "
            "must set it to the dashboard's address as browsers reach it (see docs/install.md, "
            '"The public URL").'
        ),
        "signout.refused.title": "Sign-out was refused",
        "signout.refused.message": (
            "The request did not come from a NuFi page. Sign out from NuFi's own menu."
        ),
        "monitoring.title": "Monitoring",
        "monitoring.empty": (
            "No device type is enabled. An administrator can add one under Admin → Devices."
        ),
        "monitoring.unavailable": "Prometheus cannot be reached: {detail}",
        "monitoring.updated": "updated {age} s ago",
        "monitoring.card.nodes": "Nodes",
        "monitoring.card.devices": "Devices",
        "monitoring.card.utilization": "Average utilization",
        "monitoring.card.memory": "Memory",
        "monitoring.card.temperature": "Hottest",
        "monitoring.card.power": "Power",
        "monitoring.filter.node": "Filter by node name",
        "monitoring.column.node": "Node",
        "monitoring.column.device": "Device",
        "monitoring.column.utilization": "Utilization",
        "monitoring.column.memory": "Memory (used / total)",
        "monitoring.column.temperature": "Temperature",
        "monitoring.column.power": "Power",
        "monitoring.column.pod": "Pod",
        "monitoring.column.namespace": "Namespace",
        "monitoring.column.state": "State",
        "monitoring.not_reported": "not reported",
        "monitoring.state.ok": "OK",
        "monitoring.thermal.hot": "hot: traffic cut",
        "monitoring.thermal.stale": "temperature not readable",
        "monitoring.state.stale": "stale",
        "monitoring.state.not_reporting": "not reporting",
        "monitoring.state.implausible": "implausible",
        "monitoring.page": "{first} to {last} of {total} nodes",
        "monitoring.previous": "Previous",
        "monitoring.next": "Next",
        "monitoring.errors": "Some data could not be read",
        "devices.title": "Devices",
        "devices.add": "Add Device",
        "devices.column.name": "Name",
        "devices.column.vendor": "Vendor",
        "devices.column.resource_key": "Resource key",
        "devices.column.kind": "Kind",
        "devices.column.nodes": "Nodes",
        "devices.column.capacity": "Capacity / allocatable / allocated",
        "devices.column.enabled": "Enabled",
        "devices.kind.official": "Official",
        "devices.kind.custom": "Custom",
        "devices.inventory_error": "The cluster could not be read: {detail}",
        "audit.title": "Audit",
        "audit.empty": "Nothing recorded yet.",
        "audit.column.time": "Time",
        "audit.column.actor": "User",
        "audit.column.action": "Action",
        "audit.column.target": "Target",
        "charts.title": "Over time",
        "charts.loading": "Loading the time range…",
        "charts.metric.utilization": "Utilization",
        "charts.metric.memory": "Memory",
        "charts.metric.temperature": "Temperature",
        "charts.metric.power": "Power",
        "charts.unit.utilization": "%",
        "charts.unit.memory": "GiB (used)",
        "charts.unit.temperature": "°C",
        "charts.unit.power": "W",
        # --- Admin → Devices → Add Device (the wizard) ---
        "wizard.title": "Add Device",
        "wizard.step.identity": "Basics",
        "wizard.step.metrics": "Labels and metrics",
        "wizard.step.review": "Review and save",
        "wizard.step_of": "Step {step} of 3",
        "wizard.optional": "(optional)",
        "wizard.field.id": "ID",
        "wizard.field.name": "Name",
        "wizard.field.vendor": "Vendor",
        "wizard.field.resource_key": "Resource key",
        "wizard.hint.id": (
            "The name in the API and URLs: lowercase letters, digits, - (e.g. lpu); "
            "left empty, made from the name"
        ),
        "wizard.hint.resource_key": (
            "The name the device plugin advertises on the nodes (e.g. hyperaccel.ai/lpu)"
        ),
        "wizard.key.checking": "Checking the cluster…",
        "wizard.key.found": "✓ Detected in the cluster.",
        "wizard.key.totals": "{capacity} in all on {nodes} node(s) ({allocatable} allocatable)",
        "wizard.key.not_found": "No node offers this resource.",
        "wizard.key.invalid": "The resource key is not valid. Fix the following:",
        "wizard.key.unavailable": "The cluster could not be read, so the resource key cannot be checked.",
        "wizard.column.node": "Node",
        "wizard.column.device": "Device",
        "wizard.column.value": "Value",
        "wizard.column.capacity": "Capacity",
        "wizard.column.allocatable": "Allocatable",
        "wizard.labels.title": "Labels",
        "wizard.labels.help": (
            "The Prometheus label names that tell the node, device, pod and namespace of a series."
        ),
        "wizard.label.node": "Node label",
        "wizard.label.device": "Device label",
        "wizard.label.pod": "Pod label",
        "wizard.label.namespace": "Namespace label",
        "wizard.metrics.title": "Metrics (PromQL)",
        "wizard.metric.utilization": "Utilization (%)",
        "wizard.metric.memory": "Memory",
        "wizard.metric.temperature": "Temperature (°C)",
        "wizard.metric.power": "Power (W)",
        "wizard.memory.mode.used_total": "Used & Total",
        "wizard.memory.mode.used_free": "Used & Free",
        "wizard.memory.used": "Used memory",
        "wizard.memory.total": "Total memory",
        "wizard.memory.free": "Free memory",
        "wizard.memory.unit": "Unit",
        "wizard.test": "Test",
        "wizard.test.running": "Trying it on Prometheus…",
        "wizard.test.ok": "✓ The expression works.",
        "wizard.test.series": "{count} series",
        "wizard.test.missing_labels": "Some series lack the labels: {labels}",
        "wizard.test.not_measured": "not a measurement",
        "wizard.test.empty": "Enter an expression first.",
        "wizard.review.title": "Check what you entered, then save.",
        "wizard.review.none": "(none)",
        "wizard.edit.identity": "Edit the basics",
        "wizard.edit.metrics": "Edit labels and metrics",
        "wizard.back": "Back",
        "wizard.next": "Next",
        "wizard.save": "Save",
        "wizard.force": (
            "Save even if the checks fail (the device plugin or exporter is not installed yet; "
            "recorded in the audit log)"
        ),
        "wizard.restart": "Start over",
        "wizard.saved": "Saved the device type {name}.",
        "wizard.error.unexpected": (
            "It could not be saved. Try again in a moment; if it keeps failing, check the server's log."
        ),
        # --- Admin → Devices: each row's actions, and Admin → Audit's changed fields ---
        "devices.column.actions": "Actions",
        "devices.action.toggle": "Enable or disable",
        "devices.action.delete": "Delete",
        "devices.action.reset": "Reset to preset",
        "devices.action.cancel": "Cancel",
        "devices.action.reload": "Reload the list",
        "devices.action.enable_anyway": "Enable without the checks",
        "devices.delete.title": "Delete the device type {name} ({id})?",
        "devices.delete.body": "This cannot be undone; the type also leaves monitoring.",
        "devices.reset.title": "Reset {name} ({id}) to its preset?",
        "devices.reset.body": (
            "Every change admins made to it (enabled, labels, metrics, thermal) is dropped, "
            "back to the vendor's preset."
        ),
        "devices.done.enabled": "Enabled {name}.",
        "devices.done.disabled": "Disabled {name}.",
        "devices.done.deleted": "Deleted {name}.",
        "devices.done.reset": "Reset {name} to its preset.",
        "devices.error.stale": (
            "Someone else changed this type since the list was shown (now revision {current}, "
            "the list showed {shown}). Reload the list and try again."
        ),
        "devices.error.not_found": "This device type no longer exists. Reload the list.",
        "devices.error.conflict": "This cannot be done now.",
        "devices.error.invalid": "Not saved: the type did not pass its checks.",
        "devices.error.unavailable": "Not saved: a service NuFi needs cannot be reached.",
        "devices.error.forbidden": "This needs the nufi-admin role.",
        "devices.error.unexpected": (
            "It could not be done. Try again in a moment; if it keeps failing, check the server's log."
        ),
        "devices.audit.changed": "Changed fields:",
        "devices.audit.unchanged": "No field changed.",
        "devices.audit.created": "A new record (nothing before).",
        "devices.audit.removed": "A removal (nothing after).",
        # --- The Add Device wizard's draft, kept in the database ---
        "wizard.draft.missing": "This draft was not found, so a new one was started.",
        "wizard.draft.unsaved": "The draft could not be saved. Try again in a moment.",
        # --- Editing a stored device type in the wizard ---
        "wizard.edit_mode.title": "Edit the device type {name}",
        "wizard.edit_mode.editing": "Editing {id}, starting from revision {revision}.",
        "wizard.edit_mode.official": (
            "An official type: its ID, name, vendor and resource key are the vendor's and cannot "
            "change; its labels and metrics can."
        ),
        "wizard.edit_mode.save": "Save changes",
        "wizard.edit_mode.saved": "Saved the changes to {name} (now revision {revision}).",
        "wizard.edit_mode.stale": (
            "Someone else changed this type: now revision {current}, you started from {started}. "
            "Reload brings in their changes; then apply yours again."
        ),
        "wizard.edit_mode.reload": "Reload",
        "wizard.edit_mode.not_found": "The device type {id} does not exist.",
        "wizard.edit_mode.action": "Edit",
        # Workloads: Deployments, Labs and Admin → Projects.
        "nav.workloads": "Workloads",
        "nav.deployments": "Deployments",
        "nav.labs": "Labs",
        "nav.projects": "Projects",
        "workloads.project": "Project",
        "workloads.project_not_offered": (
            "There is no project {asked}, or you are not a member of it; showing {chosen} instead."
        ),
        "workloads.no_projects.title": "You are not a member of any project",
        "workloads.no_projects.body": "Workloads live in projects. Ask an administrator to add you to one.",
        "workloads.accelerator.option": "{name} ({resource}) — {free} free",
        "workloads.accelerator.none": (
            "No accelerator is available in the cluster. An administrator can enable a type "
            "under Admin → Devices."
        ),
        "workloads.field.name": "Name",
        "workloads.field.accelerator": "Accelerator",
        "workloads.field.count": "Accelerators per pod",
        "workloads.action.delete": "Delete",
        "workloads.action.cancel": "Cancel",
        "workloads.age.s": "{n}s",
        "workloads.age.m": "{n}m",
        "workloads.age.h": "{n}h",
        "workloads.age.d": "{n}d",
        "workloads.status.Ready": "Ready",
        "workloads.status.Starting": "Starting",
        "workloads.status.Pending": "Pending",
        "workloads.status.Degraded": "Degraded",
        "workloads.status.Error": "Error",
        "workloads.status.ScaledDown": "Scaled down",
        "workloads.status.Stopped": "Stopped",
        "workloads.error.invalid": "Check the fields below.",
        "workloads.error.conflict": "The name is taken, or someone else changed this meanwhile.",
        "workloads.error.not_found": "Not found; it may have been deleted. Refresh the list.",
        "workloads.error.forbidden": "You have no access to this project.",
        "workloads.error.failed": "The request could not be carried out.",
        "workloads.error.unexpected": "Something unexpected went wrong; the server log has the details.",
        "deployments.title": "Deployments",
        "deployments.empty": "This project has no deployments yet. Create one below.",
        "deployments.column.name": "Name",
        "deployments.column.status": "Status",
        "deployments.column.ready": "Ready / desired",
        "deployments.column.accelerator": "Accelerator (per pod)",
        "deployments.column.nodes": "Nodes",
        "deployments.column.reason": "Reason",
        "deployments.thermal": "Thermal control: {reason}",
        "deployments.column.age": "Age",
        "deployments.action.scale": "Scale",
        "deployments.action.apply": "Apply",
        "deployments.action.create": "Create deployment",
        "deployments.scale.title": "Scale {name}",
        "deployments.scale.range": "Replicas must be a whole number from 0 to {most}.",
        "deployments.delete.title": "Delete the deployment {name}?",
        "deployments.delete.body": (
            "Its Deployment, pods and Service in project {project} are deleted. This cannot be undone."
        ),
        "deployments.create.title": "New deployment",
        "deployments.field.image": "Container image",
        "deployments.field.args": "Arguments (split as a shell would)",
        "deployments.args.bad": "The arguments cannot be split: {reason}. Close the quote.",
        "deployments.field.replicas": "Replicas",
        "deployments.field.port": "Port",
        "deployments.field.readiness": "Readiness path",
        "deployments.field.readiness_hint": "Leave empty for no readiness probe.",
        "deployments.field.env": "Environment (KEY=VALUE per line, optional)",
        "deployments.env.bad_line": "A line is not KEY=VALUE: {line}",
        "deployments.done.created": "Created the deployment {name}.",
        "deployments.done.scaled": "Scaled {name} to {replicas} replicas.",
        "deployments.done.deleted": "Deleted the deployment {name}.",
        "labs.title": "Labs",
        "labs.empty": "This project has no labs yet. Create one below.",
        "labs.column.name": "Name",
        "labs.column.kind": "Kind",
        "labs.column.status": "Status",
        "labs.column.accelerator": "Accelerator (per pod)",
        "labs.column.storage": "Storage",
        "labs.column.reason": "Pending reason",
        "labs.column.age": "Age",
        "labs.action.open": "Open",
        "labs.action.stop": "Stop",
        "labs.action.start": "Start",
        "labs.action.create": "Create lab",
        "labs.create.title": "New lab",
        "labs.field.kind": "Kind",
        "labs.field.storage": "Home volume (GiB)",
        "labs.delete.title": "Delete the lab {name}?",
        "labs.delete.body": (
            "The lab server and its home volume, with every file saved there, are deleted. "
            "This cannot be undone."
        ),
        "labs.done.created": "Created the lab {name}.",
        "labs.done.stop": "Stopped the lab {name}; its home volume stays.",
        "labs.done.start": "Starting the lab {name} again.",
        "labs.done.deleted": "Deleted the lab {name}.",
        "projects.title": "Projects",
        "projects.empty": "There are no projects yet. Create one above.",
        "projects.members": "Members",
        "projects.no_members": "no members",
        "projects.create.title": "New project",
        "projects.field.members": "Members (usernames, separated by commas or spaces)",
        "projects.field.username": "Username to add",
        "projects.action.create": "Create project",
        "projects.action.delete": "Delete",
        "projects.action.add_member": "Add member",
        "projects.action.remove_member": "Remove {user}",
        "projects.delete.title": "Delete the project {name}?",
        "projects.delete.body": (
            "The namespace {name} and everything in it are deleted. A dry run found what would go:"
        ),
        "projects.delete.objects": "{count} objects go with it:",
        "projects.delete.nothing": "No workloads go with it.",
        "projects.delete.confirm": "Delete {name}",
        "projects.done.created": "Created the project {name}.",
        "projects.done.added": "Added {user} to {name}.",
        "projects.done.removed": "Removed {user} from {name}.",
        "projects.done.deleted": "Deleted the project {name}.",
    },
}


def text(language: Language, key: str, **fields: object) -> str:
    """The text of `key` in `language`; KeyError for a key the catalog does not have."""
    template = CATALOG[language][key]
    return template.format(**fields) if fields else template


@dataclass(frozen=True)
class Translator:
    """The texts of one language: what every page builder receives, called as `t("key", field=...)`."""

    language: Language

    def __call__(self, key: str, **fields: object) -> str:
        return text(self.language, key, **fields)


def preferred_language(accept_language: str | None) -> Language:
    """The first of the browser's languages (RFC 9110 `Accept-Language`, by weight) NuFi speaks;
    Korean when it names none of them or cannot be read."""
    ranked: list[tuple[float, int, str]] = []
    for position, part in enumerate((accept_language or "").split(",")):
        tag, _, params = part.strip().partition(";")
        weight = 1.0
        for param in params.split(";"):
            name, _, value = param.strip().partition("=")
            if name.strip().lower() == "q":
                try:
                    weight = float(value)
                except ValueError:
                    weight = 0.0
        if tag:
            ranked.append((-weight, position, tag.strip().lower()))
    for weight, _, tag in sorted(ranked):
        if weight >= 0:
            continue
        primary = tag.split("-", 1)[0]
        if primary in LANGUAGES:
            return _language(primary)
    return DEFAULT_LANGUAGE


def _language(value: str) -> Language:
    for language in LANGUAGES:
        if language == value:
            return language
    raise ValueError(value)


def missing_keys(languages: Iterable[Language] = LANGUAGES) -> dict[Language, set[str]]:
    """Per language, the keys another language has and it lacks."""
    every = set().union(*(CATALOG[language] for language in languages))
    return {language: every - set(CATALOG[language]) for language in languages}
