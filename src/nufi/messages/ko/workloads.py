"""Korean: what the workloads services say (projects, deployments, labs, accelerators), and why a
workload waits or broke, read from Kubernetes' own words."""

TEXTS: dict[str, str] = {
    # Names
    "name.required": "{field} 값이 필요합니다. 'llama-serve'처럼 소문자 이름을 입력하세요.",
    "name.too_long": "{field} 값 {head!r}...은(는) {length}자입니다. 최대 {most}자까지 쓸 수 있습니다.",
    "name.not_dns_label": (
        "{field} 값 {value!r}은(는) DNS-1123 레이블이 아닙니다. 영문 소문자, 숫자, '-'만 쓰고 "
        "영문자나 숫자로 시작하고 끝나야 합니다(예: 'llama-serve')."
    ),
    "username.required": "{field} 값이 필요합니다. 사용자 이름을 입력하세요.",
    "username.too_long": "{field} 값이 {length}자입니다. 최대 {most}자까지 쓸 수 있습니다.",
    "username.capitals": (
        "{field} 값 {value!r}에 대문자가 있습니다. 사용자 이름은 인증 서버가 저장하는 대로 소문자입니다. "
        "{lower!r}을(를) 쓰세요."
    ),
    "username.bad_characters": (
        "{field} 값 {value!r}에 사용자 이름에 쓸 수 없는 문자가 있습니다. ASCII 영문 소문자, 숫자, "
        "'.', '_', '-', '@'만 쓰세요(예: 'kim.jiwoo')."
    ),
    "username.length": "{field} 값은 1자에서 {most}자 사이여야 합니다.",
    "env_name.length": "{field} 값은 1자에서 {most}자 사이여야 합니다(예: 'MODEL_NAME').",
    "env_name.invalid": (
        "{field} 값 {value!r}은(는) 환경 변수 이름이 아닙니다. 영문자, 숫자, '_'만 쓰고 숫자로 "
        "시작하지 않아야 합니다(예: 'MODEL_NAME')."
    ),
    # Projects
    "project.not_found": "프로젝트 {project!r}이(가) 없습니다.",
    "project.not_member": (
        "사용자 {username!r}은(는) 프로젝트 {project!r}의 구성원이 아닙니다. 관리자에게 추가를 요청하세요."
    ),
    "project.name_taken": (
        "클러스터에 이름이 {project!r}인 네임스페이스가 이미 있습니다. 다른 프로젝트 이름을 고르세요."
    ),
    "project.role_binding_refused": (
        "Kubernetes가 프로젝트 {project!r}의 워크로드를 관리하는 데 필요한 RoleBinding을 NuFi에 허용하지 "
        "않았습니다(HTTP {status}: {kubernetes}). NuFi의 ServiceAccount {account}에 ClusterRole "
        "nufi-project-manager를 부여하거나(deploy/kustomize/base/rbac-projects.yaml), "
        "NUFI_PROJECT_ROLE을 비워 두세요."
    ),
    "project.members_full": "프로젝트 {project!r}에는 이미 구성원이 최대 인원인 {most}명 있습니다.",
    "project.too_many_members": "프로젝트의 구성원은 최대 {most}명입니다.",
    "project.members_kept_changing": (
        "변경을 적용하는 동안 프로젝트 {project!r}의 구성원이 계속 바뀌었습니다. 다시 시도하세요."
    ),
    # Accelerators
    "accelerator.unknown_type": (
        "장치 유형 {device_type!r}이(가) 없습니다. GET /api/v1/projects/<project>/accelerators에 "
        "나오는 유형 중에서 고르세요."
    ),
    "accelerator.type_disabled": (
        "{name}은(는) 비활성화되어 있습니다. 관리자가 활성화하거나, 다른 장치 유형을 고르세요."
    ),
    "accelerator.not_offered": (
        "클러스터에 {name} 장치가 있는 노드가 없습니다. 클러스터에 있는 장치 유형을 고르세요."
    ),
    "accelerator.too_many": (
        "파드 하나에 {name} {count}개를 줄 수 있는 노드가 없습니다: {figures:list}. "
        "최대 {most}개까지 요청하세요."
    ),
    "accelerator.node_has": "{node}에 {count}개",
    "accelerator.uncountable": "{name} 장치의 수를 셀 수 없습니다: {reason}",
    # Deployments
    # The kind's word carries its own subject particle (배포가, 랩이).
    "workload.name_taken": (
        "프로젝트 {project!r}에 이름이 {name!r}인 {kind} 이미 있습니다. 다른 이름을 고르세요."
    ),
    "workload.kind_named.deployment": "배포가",
    "workload.kind_named.lab": "랩이",
    "deployment.service_taken": (
        "프로젝트 {project!r}에 이름이 {name!r}인 Service가 이미 있습니다. 다른 배포 이름을 고르세요."
    ),
    "deployment.not_found": "프로젝트 {project!r}에 배포 {deployment!r}이(가) 없습니다.",
    "deployment.replicas_range": "replicas는 0에서 {most} 사이여야 합니다(받은 값: {replicas}).",
    "deployment.image_invalid": "이미지 참조에는 공백이나 제어 문자를 쓸 수 없습니다(예: 'vllm/vllm:0.6').",
    "deployment.item_too_long": "각 항목은 최대 {most}자까지 쓸 수 있습니다.",
    "deployment.readiness_path_invalid": (
        "준비 상태 확인 경로는 '/'로 시작하고 공백이 없어야 합니다(예: '/health')."
    ),
    "deployment.env_duplicate": "env 이름은 겹칠 수 없습니다. {name!r}이(가) 두 번 나옵니다.",
    # Labs
    "lab.no_such_lab": "프로젝트 {project!r}에 이름이 {lab!r}인 랩이 없습니다.",
    "lab.name_too_long": (
        "이름 {name!r}은(는) {length}자입니다. 랩의 파드와 리비전 이름에 쓰이므로 랩 이름은 "
        "최대 {most}자까지 쓸 수 있습니다."
    ),
    "lab.name_needs_letter": (
        "이름 {name!r}은(는) 영문자로 시작해야 합니다. 랩의 Service 이름으로도 쓰입니다(예: 'lab-{name}')."
    ),
    "lab.object_name_taken": (
        "프로젝트에 이름이 {name!r}인 {kind}이(가) 이미 있습니다. 랩 이름을 다르게 고르세요."
    ),
    # Why a workload waits, in the accelerator's words
    "workload.pending.device_type_gone": "장치 유형 {device_type!r}이(가) 더 이상 없습니다.",
    "workload.pending.no_node_has_key": "클러스터에 {name} 장치가 있는 노드가 없습니다.",
    "workload.pending.no_free": "{name} {count}개가 남은 노드가 없습니다: {figures:list}",
    "workload.pending.ruled_out": (
        "노드 {fitting}개({nodes})에 {name} {count}개가 남아 있지만, "
        "스케줄러가 다른 이유로 제외했습니다 (파드의 이벤트를 확인하세요)."
    ),
    "workload.pending.with_scheduler": "{reason} 스케줄러: {scheduler}",
    "workload.pending.waiting": "스케줄러를 기다리는 중입니다.",
    # ... and in the scheduler's, classified
    "workload.pending.no_node": "노드 {total}개 중 파드를 받을 수 있는 노드가 없습니다: {causes:list}",
    "workload.pending.unschedulable": '스케줄러가 파드를 배치하지 못했습니다: "{kubernetes}"',
    "workload.cause.insufficient": "{what} 부족(노드 {nodes}개)",
    "workload.cause.taint": "파드가 허용하지 않는 테인트 {taint}(노드 {nodes}개)",
    "workload.cause.selector": "노드 셀렉터나 어피니티와 맞지 않음(노드 {nodes}개)",
    "workload.cause.cordoned": "스케줄링이 중지됨(노드 {nodes}개)",
    "workload.cause.ports": "파드가 쓸 포트가 이미 사용 중(노드 {nodes}개)",
    "workload.cause.too_many_pods": "파드 수 한도에 도달함(노드 {nodes}개)",
    "workload.cause.volume": "볼륨의 노드 어피니티와 맞지 않음(노드 {nodes}개)",
    "workload.cause.unbound_claims": "파드의 PersistentVolumeClaim이 아직 바인딩되지 않음",
    "workload.cause.other": '노드 {nodes}개: "{text}"',
    "workload.cause.text": '"{text}"',
    # What broke
    "workload.failure.image_pull": "컨테이너 {container!r}의 이미지를 가져올 수 없습니다({kind}).",
    "workload.failure.invalid_image": "컨테이너 {container!r}의 이미지 이름이 올바르지 않습니다({kind}).",
    "workload.failure.crash_loop": (
        "컨테이너 {container!r}이(가) 계속 비정상 종료되어 잠시 후 다시 시작됩니다({kind})."
    ),
    "workload.failure.config": (
        "컨테이너 {container!r}이(가) 참조하는 Secret이나 ConfigMap이 없거나 올바르지 않습니다({kind})."
    ),
    "workload.failure.create_container": "컨테이너 {container!r}을(를) 만들거나 시작할 수 없습니다({kind}).",
    "workload.failure.pod_failed": "파드가 실패했습니다.",
    "workload.failure.pod_exited": "파드가 종료되었습니다.",
    "workload.failure.node_short": (
        "노드가 파드를 거부했습니다. 파드가 시작될 때 {what}을(를) 쓸 수 없었습니다."
    ),
    "workload.failure.device_allocation": "노드의 장치 플러그인이 파드에 장치를 할당하지 못했습니다({kind}).",
    "workload.failure.evicted": "파드가 노드에서 축출되었습니다.",
    "workload.failure.progress_deadline": (
        "배포가 제한 시간 안에 진행되지 않았습니다(ProgressDeadlineExceeded)."
    ),
    # Quotas
    "quota.exceeded": (
        "프로젝트 {project!r}의 할당량에는 {what} {more}를 더 받을 여유가 없습니다. {left} {fix}"
    ),
    "quota.left.some": "한도 {hard} 중 {used} 사용 중이라 {room}만 더 쓸 수 있습니다.",
    "quota.left.none": "한도 {hard} 모두 사용 중입니다.",
    "quota.fix.fewer": "더 적게 요청하거나 관리자에게 할당량을 늘려 달라고 하세요.",
    "quota.fix.replicas": "복제본을 {replicas}개 이하로 줄이거나 관리자에게 할당량을 늘려 달라고 하세요.",
    "quota.fix.admin": "관리자에게 할당량을 늘려 달라고 하세요.",
    "quota.amount.count": "{count}개",
    "quota.resource.storage": "스토리지",
    "quota.resource.pods": "파드",
    "quota.resource.cpu": "CPU",
    "quota.resource.memory": "메모리",
    "quota.resource.ephemeral_storage": "로컬 스토리지",
    "quota.resource.other": "{resource}",
    "quota.unknown_type": (
        "장치 유형 {device_type!r}이(가) 없습니다. GET /api/v1/devices에 나오는 유형의 id를 쓰세요."
    ),
    "quota.shared_key": (
        "장치 유형 {device_type!r}와(과) {other!r}는 같은 {resource_key}를 쓰며, 할당량은 이를 하나로 "
        "제한합니다. 둘 중 하나에만 개수를 주세요."
    ),
    "quota.kept_changing": (
        "변경을 적용하는 동안 프로젝트 {project!r}의 할당량이 계속 바뀌었습니다. 다시 시도하세요."
    ),
    "workload.quota_exceeded": "프로젝트 할당량: {what} 한도 {limit}, {used} 사용 중",
    "workload.failure.quota_exceeded": "프로젝트 할당량에 파드를 만들 여유가 없습니다.",
    "workload.failure.replicas": "Kubernetes가 파드를 만들지 못했습니다(ReplicaFailure).",
    "workload.failure.other": 'Kubernetes 메시지: "{kubernetes}"',
}
