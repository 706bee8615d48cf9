"""Korean: what the `nufi` command line tells an operator (sign-in, results, problems)."""

TEXTS: dict[str, str] = {
    # --- signing in ---
    "cli.login.open_browser": "{issuer}에서 로그인하도록 브라우저를 엽니다.",
    "cli.login.visit": "브라우저가 열리지 않으면 이 주소로 가세요:\n{url}",
    "cli.login.visit_only": "{issuer}에서 로그인하려면 브라우저에서 이 주소를 여세요:\n{url}",
    "cli.login.waiting": "로그인이 끝나기를 기다립니다(그만두려면 Ctrl-C)...",
    "cli.login.done": "{server}에 {username}(으)로 로그인했습니다.",
    "cli.login.page_done": "NuFi에 로그인했습니다. 이 창을 닫고 터미널로 돌아가세요.",
    "cli.login.page_failed": "로그인하지 못했습니다: {error}. 터미널로 돌아가세요.",
    "cli.login.page_wrong_state": (
        "진행 중인 로그인의 응답이 아니어서 무시했습니다. "
        "로그인하는 중이라면 `nufi login`이 알려 준 창에서 마치세요."
    ),
    "cli.login.no_issuer": (
        "{server}에는 로그인이 설정되어 있지 않습니다(NUFI_OIDC_ISSUER 미설정). 토큰을 받지 않습니다"
    ),
    "cli.login.refused": "ID 공급자가 로그인을 거부했습니다: {error}",
    "cli.login.timed_out": "{seconds}초 안에 로그인이 끝나지 않았습니다. `nufi login`을 다시 실행하세요",
    "cli.logout.done": "{server}에서 로그아웃했습니다. 토큰을 지웠습니다.",
    "cli.logout.none": "{server}에 로그인되어 있지 않습니다. 지울 것이 없습니다.",
    "cli.logout.not_revoked": (
        "발급자 {issuer}이(가) 로그인을 취소하지 못했습니다({error}). 이 컴퓨터의 토큰은 지웠지만, "
        "리프레시 토큰은 만료되거나 관리자가 세션을 끝낼 때까지 발급자 쪽에서 계속 유효합니다"
    ),
    "cli.logout.no_revocation_endpoint": "{issuer}에 revocation_endpoint가 없습니다",
    "cli.whoami.line": "{server}의 {username}{admin}",
    "cli.whoami.admin": " (관리자)",
    "cli.whoami.not_admin": "",
    # --- tokens ---
    "cli.auth.not_signed_in": (
        "{server}에 로그인되어 있지 않습니다. `nufi login --server {server}`을 실행하거나 "
        "NUFI_TOKEN을 설정하세요"
    ),
    "cli.auth.refresh_refused": (
        "{server} 로그인이 끝났고 갱신할 수 없습니다({error}). `nufi login`을 다시 실행하세요"
    ),
    # --- talking to the server ---
    "cli.net.unreachable": "{url}에 연결할 수 없습니다: {error}",
    "cli.net.not_json": "{url}이(가) HTTP {status}로 JSON이 아닌 응답을 보냈습니다",
    "cli.net.unexpected_answer": "{url}이(가) 예상과 다른 응답을 보냈습니다({field}): {problem}",
    "cli.problem.line": "오류: {title} (HTTP {status})",
    "cli.problem.code": "코드: {code}",
    "cli.problem.field": "필드: {field}",
    "cli.problem.request": "요청 ID: {request_id}",
    "cli.problem.fix_login": "해결: `nufi login`을 실행하거나 NUFI_TOKEN을 설정한 뒤 다시 시도하세요",
    "cli.problem.fix_admin": "해결: 관리자 역할이 필요합니다. 관리자로 로그인하세요",
    "cli.problem.fix_field": "해결: `{field}` 값을 고친 뒤 다시 시도하세요",
    "cli.problem.fix_retry": "해결: {seconds}초 뒤에 다시 시도하세요",
    # --- usage ---
    "cli.usage.no_files": "{path}에 *.yaml 또는 *.yml 파일이 없습니다",
    "cli.usage.insecure_http": (
        "{server}은(는) 이 컴퓨터가 아닌 곳의 http 주소라 토큰이 암호화되지 않은 채 네트워크를 지나갑니다. "
        "https://를 쓰세요. 정말 그렇게 하려면 `nufi login`에 --allow-insecure-http를 주거나 "
        "NUFI_ALLOW_INSECURE_HTTP=1을 설정하세요"
    ),
    "cli.usage.unreadable": "{path}을(를) 읽을 수 없습니다: {error}",
    "cli.usage.bad_pack": "{path}은(는) 올바른 장치 팩이 아닙니다: {error}",
    "cli.usage.bad_accelerator": (
        "--accelerator에는 TYPE:COUNT(예: lpu:1)를 주세요. {value!r}은(는) 안 됩니다"
    ),
    "cli.usage.bad_env": "--env에는 NAME=VALUE를 주세요. {value!r}은(는) 안 됩니다",
    # --- results ---
    "cli.deleted": "{what} {name}을(를) 삭제했습니다.",
    "cli.created": "{what} {name}을(를) 만들었습니다.",
    "cli.scaled": "배포 {name}의 복제본 수를 {replicas}개로 바꿨습니다.",
    "cli.lab.stopped": "랩 {name}을(를) 중지했습니다.",
    "cli.lab.started": "랩 {name}을(를) 시작했습니다.",
    "cli.workload.status.Ready": "준비됨",
    "cli.workload.status.Starting": "시작 중",
    "cli.workload.status.Pending": "대기 중",
    "cli.workload.status.Degraded": "일부 장애",
    "cli.workload.status.Error": "오류",
    "cli.workload.status.ScaledDown": "축소됨 (0개)",
    "cli.workload.status.Stopped": "중지됨",
    "cli.lab.active.busy": "지금 코드 실행 중",
    "cli.lab.active.none": "시작 후 활동 없음",
    "cli.lab.active.unknown": "알 수 없음",
    "cli.packs.dry_run": "시험 실행: 아무것도 바꾸지 않았습니다.",
    "cli.packs.result": "{name}: {action}",
    "cli.packs.no_changes": "바뀐 것이 없습니다. 서버에 이미 이 팩들이 있습니다.",
    "cli.packs.summary": "생성 {created}, 변경 {updated}, 그대로 {unchanged}, 삭제 {deleted}",
    "cli.check.resource_key": "리소스 키 {key}: {verdict}",
    "cli.check.metric": "메트릭 {metric}: {verdict}",
    "cli.check.ok": "정상",
    "cli.check.failed": "실패",
    "cli.monitor.title": "{device_type} · {time} (노드 {nodes}개, 장치 {devices}개)",
    "cli.monitor.node": "노드 {node}",
    "cli.monitor.no_devices": "장치 측정값 없음",
    "cli.monitor.error": "정상 스냅샷 없음: {detail}",
    "cli.monitor.ended": "장치 유형 {device_type}이(가) 삭제되어 스트림이 끝났습니다.",
    "cli.thermal.header": "리더: {leader}  갱신: {updated}",
    "cli.serve.faces_exclusive": "오류: --api-only와 --ui-only는 함께 줄 수 없습니다. 하나만 주세요",
    "cli.empty": "(없음)",
    # --- table headings and the fixed words in cells ---
    "cli.column.name": "이름",
    "cli.column.accelerator": "가속기",
    "cli.column.ready": "준비",
    "cli.column.status": "상태",
    "cli.column.reason": "사유",
    "cli.column.image": "이미지",
    "cli.column.port": "포트",
    "cli.column.cluster_address": "클러스터 내부 주소",
    "cli.column.url": "주소",
    "cli.column.id": "ID",
    "cli.column.vendor": "제조사",
    "cli.column.kind": "종류",
    "cli.column.resource_key": "리소스 키",
    "cli.column.enabled": "사용",
    "cli.column.revision": "리비전",
    "cli.column.fetcher": "수집기",
    "cli.column.storage_gib": "스토리지 GiB",
    "cli.column.last_active": "마지막 활동",
    "cli.column.node": "노드",
    "cli.column.device": "장치",
    "cli.column.utilization": "사용률 %",
    "cli.column.memory": "메모리",
    "cli.column.temperature": "온도 °C",
    "cli.column.power": "전력 W",
    "cli.column.health": "헬스",
    "cli.column.pod": "파드",
    "cli.column.namespace": "네임스페이스",
    "cli.column.members": "멤버",
    "cli.column.device_type": "유형",
    "cli.column.state": "상태",
    "cli.column.trip": "차단 °C",
    "cli.column.hot": "과열",
    "cli.column.deployments": "배포",
    "cli.column.capacity": "용량",
    "cli.column.allocatable": "할당 가능",
    "cli.column.allocated": "사용 중",
    "cli.value.yes": "예",
    "cli.value.no": "아니요",
    "cli.health.ok": "정상",
    "cli.health.unhealthy": "비정상",
    "cli.health.unknown": "알 수 없음",
    "cli.health.not_mapped": "매핑 안 됨",
    "cli.thermal.state.normal": "정상",
    "cli.thermal.state.hot": "과열",
    "cli.thermal.state.stale": "측정 불가",
    "cli.thermal.state.tripped": "조건 초과",
    "cli.thermal.state.unhealthy": "비정상",
    "cli.packs.action.created": "생성",
    "cli.packs.action.updated": "변경",
    "cli.packs.action.unchanged": "그대로",
    "cli.packs.action.deleted": "삭제",
    "cli.what.device_type": "장치 유형",
    "cli.what.deployment": "배포",
    "cli.what.lab": "랩",
    "cli.devices.inventory": (
        "인벤토리: 노드 {nodes}개에 장치 {capacity}개, 할당 가능 {allocatable}개, 사용 중 {allocated}개"
    ),
    "cli.devices.inventory_unknown": "인벤토리: 알 수 없음 ({error})",
    # --- asking before deleting ---
    "cli.delete.question": "프로젝트 {project}의 {what} {name}을(를) 삭제할까요?",
    "cli.devices.delete.question": "장치 유형 {id}을(를) 삭제할까요?",
    "cli.devices.delete.consequence": (
        "되돌릴 수 없습니다. 이 유형은 모니터링에서도 사라지며, 온도 보호 정책과 알림 임계값,"
        " 온도 이력도 함께 삭제됩니다. 같은 ID로 다시 등록하면 기본값부터 시작합니다."
    ),
    "cli.deployments.delete.consequence": (
        "프로젝트 {project}에서 이 배포의 Deployment, 파드, Service가 모두 삭제됩니다. 되돌릴 수 없습니다."
    ),
    "cli.labs.delete.consequence": (
        "랩 서버와 홈 볼륨(저장된 파일 포함)이 모두 삭제됩니다. 되돌릴 수 없습니다."
    ),
    "cli.confirm.needs_yes": (
        "아무것도 삭제하지 않았습니다. 물어볼 터미널이 없습니다. 묻지 않고 삭제하려면 --yes를 주세요"
    ),
    "cli.confirm.kept": "아무것도 삭제하지 않았습니다.",
    # --- help pages: each `help=` of the command line names one of these codes ---
    "cli.help.app": "NuFi: 쿠버네티스 클러스터의 어떤 가속기에서든 AI 워크로드를 실행합니다.",
    "cli.help.serve": ("중단할 때까지(Ctrl-C 또는 SIGTERM) NuFi 서버를 실행합니다: REST API와 대시보드."),
    "cli.help.serve.host": "바인드할 주소(기본값: NUFI_HOST 또는 127.0.0.1).",
    "cli.help.serve.port": "바인드할 포트. 0이면 빈 포트를 고릅니다(기본값: NUFI_PORT 또는 8080).",
    "cli.help.serve.reload": "소스가 바뀌면 다시 시작합니다(개발용).",
    "cli.help.serve.api_only": "대시보드 없이 REST API만 제공합니다.",
    "cli.help.serve.ui_only": "REST API 없이 대시보드만 제공합니다(프로브는 남습니다).",
    "cli.help.version": "NuFi 버전을 출력합니다.",
    "cli.help.db": (
        "데이터베이스 스키마: 마이그레이션을 적용하고 현재 리비전을 보여 줍니다(NUFI_DATABASE_URL 사용)."
    ),
    "cli.help.db.upgrade": "남은 스키마 마이그레이션을 적용합니다. 스키마가 최신이면 아무것도 하지 않습니다.",
    "cli.help.db.upgrade.revision": "올릴 리비전(기본값: 최신).",
    "cli.help.db.current": "데이터베이스의 스키마 리비전과 적용할 마이그레이션이 남았는지 출력합니다.",
    "cli.help.login": ("브라우저로 로그인합니다(인가 코드 + PKCE). 토큰은 이 서버용으로 보관합니다."),
    "cli.help.login.browser": "로그인 페이지를 브라우저로 엽니다",
    "cli.help.login.timeout": "로그인을 기다릴 시간(초)",
    "cli.help.login.insecure_http": (
        "이 컴퓨터가 아닌 곳의 http:// 서버도 허용합니다(토큰이 암호화 없이 오갑니다)"
    ),
    "cli.help.logout": "로그아웃합니다: 발급자에서 로그인을 취소하고 이 서버용으로 보관한 토큰을 지웁니다.",
    "cli.help.whoami": "NuFi가 보는 나: 사용자 이름, 역할, 관리자인지 여부.",
    "cli.help.monitor": (
        "장치 유형의 장치를 실시간으로 봅니다(멈추려면 Ctrl-C). "
        "json/yaml은 스냅샷마다 문서를 하나씩 출력합니다."
    ),
    "cli.help.monitor.once": "스냅샷 하나를 출력하고(GET /api/v1/monitoring/TYPE) 끝냅니다",
    "cli.help.monitor.node": "이름에 이 문자열이 들어간 노드만",
    "cli.help.monitor.sort": "정렬 기준: node, temperature, utilization 또는 memory",
    "cli.help.monitor.limit": "스냅샷당 노드 수",
    "cli.help.option.output": "table은 사람용, json 또는 yaml(API의 본문)은 스크립트용",
    "cli.help.option.server": (
        "NuFi의 주소(기본값: 마지막 `nufi login`의 서버, 없으면 http://127.0.0.1:8080)"
    ),
    "cli.help.option.token": "캐시된 로그인 대신 보낼 액세스 토큰(CI용)",
    "cli.help.option.project": "프로젝트(또는 NUFI_PROJECT)",
    "cli.help.option.device_type": "장치 유형의 ID(예: lpu)",
    "cli.help.option.yes": "묻지 않고 삭제합니다(물어볼 터미널이 없을 때 필요)",
    "cli.help.devices": "장치 유형: 목록, 조회, 팩 내보내기와 적용, 점검.",
    "cli.help.devices.list": "모든 장치 유형: 공식 프리셋과 사용자 정의 유형.",
    "cli.help.devices.list.enabled": "활성화된(또는 비활성화된) 유형만",
    "cli.help.devices.get": "장치 유형 하나와 노드별 인벤토리.",
    "cli.help.devices.delete": "사용자 정의 장치 유형을 삭제합니다(관리자).",
    "cli.help.devices.delete.revision": "유형이 아직 이 리비전일 때만",
    "cli.help.devices.check": (
        "유형을 실제 환경과 대조해 점검합니다: 노드의 리소스 키, Prometheus의 메트릭. "
        "점검이 하나라도 실패하면 종료 코드는 1입니다."
    ),
    "cli.help.devices.export": (
        "장치 유형을 팩 문서(표준 YAML)로 출력합니다. 다른 곳에서 `apply`하면 같은 유형이 만들어집니다."
    ),
    "cli.help.devices.apply": (
        "카탈로그가 이 팩들을 담게 합니다: 장치 유형을 만들고 고치며, --prune이면 삭제합니다."
    ),
    "cli.help.devices.diff": (
        "`apply`가 바꿀 것을 필드별로 보여 줍니다. 아무것도 바꾸지 않으며 종료 코드는 0입니다."
    ),
    "cli.help.packs.filename": "팩 파일, *.yaml/*.yml 파일이 있는 디렉터리, 또는 표준 입력을 뜻하는 -",
    "cli.help.packs.output": "yaml(기본값), json 또는 table",
    "cli.help.packs.prune": "팩에 없는 사용자 정의 유형을 삭제합니다",
    "cli.help.packs.dry_run": "무엇이 바뀔지 보여 주기만 하고 아무것도 바꾸지 않습니다",
    "cli.help.packs.force": "실제 환경과의 점검이 실패해도 저장합니다",
    "cli.help.packs.diff_prune": "--prune이 삭제할 사용자 정의 유형도 보여 줍니다",
    "cli.help.packs.exit_code": "바뀔 것이 있으면 종료 코드 1로 끝냅니다(CI의 드리프트 점검)",
    "cli.help.projects": "프로젝트: 누가 어떤 가속기를 쓸 수 있는지.",
    "cli.help.projects.list": "내가 쓸 수 있는 프로젝트.",
    "cli.help.projects.get": "프로젝트 하나와 그 멤버.",
    "cli.help.projects.name": "프로젝트 이름",
    "cli.help.deployments": "배포: 가속기에서 모델을 서빙합니다.",
    "cli.help.deployments.name": "배포 이름",
    "cli.help.deployments.list": "프로젝트의 배포.",
    "cli.help.deployments.get": "배포 하나: 상태, 파드, 주소.",
    "cli.help.deployments.create": (
        "배포를 만듭니다. --wait를 주면 Ready가 된 뒤에야 끝납니다(제시간에 안 되면 종료 코드 1)."
    ),
    "cli.help.deployments.image": "컨테이너 이미지",
    "cli.help.deployments.accelerator": "복제본 하나당 TYPE:COUNT(예: lpu:1)",
    "cli.help.deployments.replicas": "복제본 수",
    "cli.help.deployments.port": "서버가 요청을 받는 포트",
    "cli.help.deployments.env": "NAME=VALUE, 여러 번 줄 수 있습니다",
    "cli.help.deployments.command": "엔트리포인트, 옵션 하나에 단어 하나",
    "cli.help.deployments.arg": "엔트리포인트에 줄 인수, 여러 번 줄 수 있고 순서대로 전달됩니다",
    "cli.help.deployments.readiness_path": "준비되면 200으로 응답하는 HTTP 경로",
    "cli.help.deployments.wait": "Ready가 될 때까지 기다릴 초(0이면 기다리지 않습니다)",
    "cli.help.deployments.scale": "배포의 복제본 수를 바꿉니다.",
    "cli.help.deployments.scale.replicas": "새 복제본 수(0이면 모두 내립니다)",
    "cli.help.deployments.delete": "배포와 그 파드를 삭제합니다.",
    "cli.help.labs": "랩: 가속기에서 쓰는 노트북과 편집기.",
    "cli.help.labs.name": "랩 이름",
    "cli.help.labs.list": "프로젝트의 랩.",
    "cli.help.labs.get": "랩 하나.",
    "cli.help.labs.create": "랩을 만듭니다.",
    "cli.help.labs.accelerator": "TYPE:COUNT(예: lpu:1)",
    "cli.help.labs.kind": "jupyter 또는 vscode",
    "cli.help.labs.image": "이미지(기본값: 종류별 이미지)",
    "cli.help.labs.storage_gib": "작업 공간 볼륨의 크기(GiB)",
    "cli.help.labs.stop": "랩을 중지합니다. 작업 공간은 남습니다.",
    "cli.help.labs.start": "중지한 랩을 시작합니다.",
    "cli.help.labs.delete": "랩과 그 작업 공간을 삭제합니다.",
    "cli.help.labs.open": "랩 주소를 출력합니다(대시보드에 로그인한 브라우저로 여세요).",
    "cli.help.thermal": "온도 보호: 컨트롤러 상태.",
    "cli.help.thermal.status": "컨트롤러의 리더, 그리고 유형과 노드별 온도, 상태, 차단된 것.",
    # --- help pages: the words typer and click put around them ---
    "cli.help.page.usage": "사용법:",
    "cli.help.page.help_option": "이 도움말을 보여 주고 끝냅니다.",
    "cli.help.page.install_completion": "지금 셸에 자동 완성을 설치합니다.",
    "cli.help.page.show_completion": (
        "지금 셸의 자동 완성 스크립트를 보여 줍니다. 복사하거나 설치를 직접 고칠 때 씁니다."
    ),
    "cli.help.page.arguments": "인수",
    "cli.help.page.options": "옵션",
    "cli.help.page.commands": "명령",
    "cli.help.page.error": "오류",
    "cli.help.page.try_help": "도움말은 '{command_path} {help_option}'(으)로 볼 수 있습니다.",
    "cli.help.page.default": "[기본값: {value}]",
    "cli.help.page.env_var": "[환경 변수: {value}]",
    "cli.help.page.required": "[필수]",
}
