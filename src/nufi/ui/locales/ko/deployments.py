"""Korean texts of Workloads → Deployments."""

TEXTS: dict[str, str] = {
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
    "deployments.scale.title": "{name} 복제본 수 변경",
    "deployments.scale.range": "복제본 수는 0에서 {most} 사이의 정수여야 합니다.",
    "deployments.delete.title": "배포 {name}을(를) 삭제할까요?",
    "deployments.delete.body": (
        "프로젝트 {project}에서 이 배포의 Deployment, 파드, Service가 모두 삭제됩니다. 되돌릴 수 없습니다."
    ),
    "deployments.create.title": "새 배포",
    "deployments.field.image": "컨테이너 이미지",
    "deployments.field.args": "인자 (셸처럼 공백으로 구분)",
    "deployments.args.unclosed_quote": (
        "인자를 나눌 수 없습니다. 닫히지 않은 따옴표가 있습니다. 따옴표를 닫아 주세요."
    ),
    "deployments.args.lone_backslash": (
        "인자를 나눌 수 없습니다. 마지막에 백슬래시가 하나만 있습니다. 지우거나 두 번 쓰세요."
    ),
    "deployments.field.replicas": "복제본 수",
    "deployments.field.port": "포트",
    "deployments.field.readiness": "준비 상태 확인 경로",
    "deployments.field.readiness_hint": ("비워 두면 준비 상태 확인(readiness probe)을 하지 않습니다."),
    "deployments.field.env": "환경 변수 (한 줄에 KEY=VALUE, 선택)",
    "deployments.env.bad_line": "KEY=VALUE 형식이 아닌 줄이 있습니다: {line}",
    "deployments.done.created": "배포 {name}을(를) 만들었습니다.",
    "deployments.done.scaled": "{name}의 복제본을 {replicas}개로 바꿨습니다.",
    "deployments.done.deleted": "배포 {name}을(를) 삭제했습니다.",
}
