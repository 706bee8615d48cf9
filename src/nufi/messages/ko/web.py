"""Korean: what the web server itself answers (labs' paths and origins, size limits, readiness)."""

TEXTS: dict[str, str] = {
    "request.too_large": (
        "요청 본문이 {limit_bytes}바이트보다 큽니다. NuFi가 받는 최대 크기입니다"
        "(NUFI_MAX_REQUEST_BODY_BYTES). 더 작게 보내세요."
    ),
    "health.not_ready": "NuFi가 아직 준비되지 않았습니다. {failing}",
    "lab.no_such_path": (
        "{path}에서 서비스하는 랩이 없습니다. 랩 주소는 /labs/<프로젝트>/<이름>/이며, 프로젝트와 랩 "
        "이름은 소문자 DNS 레이블(영문 소문자, 숫자, '-')입니다."
    ),
    "lab.unreachable": (
        "프로젝트 {project}의 랩 {lab}이(가) 응답하지 않습니다({reason}). 중지되었거나 아직 시작 "
        "중일 수 있습니다. GET /api/v1/projects/{project}/labs/{lab}에서 확인하세요."
    ),
    "lab.refused_websocket": (
        "프로젝트 {project}의 랩 {lab}이(가) WebSocket을 거부했습니다({lab_status}). 브라우저의 "
        "소켓은 랩 자신의 페이지에서 열어야 합니다."
    ),
    "lab.origin_unset": (
        "랩은 브라우저에서 전용 오리진에서만 열리는데, 설정된 오리진이 없습니다. 관리자가 "
        "NUFI_LAB_BASE_DOMAIN을 설정해야 합니다(docs/install.md의 'Lab base domain' 절 참고). "
        "스크립트는 'Authorization: Bearer <액세스 토큰>'으로 여기서 랩에 접근할 수 있습니다."
    ),
    "lab.elsewhere": (
        "이 랩은 브라우저에서 {origin}에서만 열립니다. 그곳이나 대시보드에서 여세요. 또는 "
        "'Authorization: Bearer <액세스 토큰>'을 보내세요."
    ),
    "lab.origin_refused": (
        "랩은 WebSocket과 쿠키로 로그인한 변경 요청을 자신의 오리진 {origin}에서만 받습니다. 랩을 "
        "그곳에서 여세요."
    ),
    "lab.grant_refused": "이 랩 로그인 링크는 유효하지 않습니다. 대시보드에서 랩을 다시 여세요.",
    "lab.not_on_this_host": (
        "이 호스트의 {path}에서는 아무것도 서비스하지 않습니다. 랩의 호스트는 그 랩의 경로만 서비스합니다."
    ),
    "lab.dot_segments": (
        "랩 경로 {path}에 '.' 또는 '..' 구간이 있습니다(퍼센트 인코딩일 수 있음). 그 구간 없이 요청하세요."
    ),
    "lab.bad_sign_in_next": (
        "이 랩 로그인을 계속할 수 없습니다. {next}은(는) 이 랩의 경로가 아니거나 링크가 "
        "불완전합니다. 대시보드에서 랩을 다시 여세요."
    ),
}
