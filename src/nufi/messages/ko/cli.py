"""Korean: what the `nufi` command line tells an operator (sign-in, results, problems)."""

TEXTS: dict[str, str] = {
    # --- signing in ---
    "cli.login.open_browser": "{issuer}에서 로그인하도록 브라우저를 엽니다.",
    "cli.login.visit": "브라우저가 열리지 않으면 이 주소로 가세요:\n{url}",
    "cli.login.waiting": "로그인이 끝나기를 기다립니다(그만두려면 Ctrl-C)...",
    "cli.login.done": "{server}에 {username}(으)로 로그인했습니다.",
    "cli.login.page_done": "NuFi에 로그인했습니다. 이 창을 닫고 터미널로 돌아가세요.",
    "cli.login.page_failed": "로그인하지 못했습니다: {error}. 터미널로 돌아가세요.",
    "cli.login.no_issuer": (
        "{server}에는 로그인이 설정되어 있지 않습니다(NUFI_OIDC_ISSUER 미설정). 토큰을 받지 않습니다"
    ),
    "cli.login.refused": "ID 공급자가 로그인을 거부했습니다: {error}",
    "cli.login.state_mismatch": "로그인 응답이 이 로그인의 것이 아닙니다(state 불일치). 다시 시도하세요",
    "cli.login.timed_out": "{seconds}초 안에 로그인이 끝나지 않았습니다. `nufi login`을 다시 실행하세요",
    "cli.logout.done": "{server}에서 로그아웃했습니다. 토큰을 지웠습니다.",
    "cli.logout.none": "{server}에 로그인되어 있지 않습니다. 지울 것이 없습니다.",
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
    "cli.packs.dry_run": "시험 실행: 아무것도 바꾸지 않았습니다.",
    "cli.packs.result": "{name}: {action}",
    "cli.packs.no_changes": "바뀐 것이 없습니다. 서버에 이미 이 팩들이 있습니다.",
    "cli.packs.summary": "생성 {created}, 변경 {updated}, 그대로 {unchanged}, 삭제 {deleted}",
    "cli.check.resource_key": "리소스 키 {key}: {verdict}",
    "cli.check.metric": "메트릭 {metric}: {verdict}",
    "cli.check.ok": "정상",
    "cli.check.failed": "실패",
    "cli.monitor.title": "{device_type} · {time} (노드 {nodes}개, 장치 {devices}개)",
    "cli.monitor.error": "정상 스냅샷 없음: {detail}",
    "cli.monitor.ended": "장치 유형 {device_type}이(가) 삭제되어 스트림이 끝났습니다.",
    "cli.empty": "(없음)",
}
