"""Korean: what the platform services say (Kubernetes, sign-in and tokens, the database, settings,
the lab proxy)."""

_GRANT = "deploy/에 적힌 권한을 NuFi 서비스 계정에 부여하세요"
_BEARER = "'Authorization: Bearer <access token>'"

TEXTS: dict[str, str] = {
    # --- Kubernetes ---
    "kube.not_configured": (
        "Kubernetes가 설정되지 않았습니다. NUFI_KUBECONFIG(필요하면 NUFI_KUBE_CONTEXT도)를 설정하거나, "
        "서비스 계정이 있는 파드에서 NuFi를 실행하세요"
    ),
    "kube.credentials_unloadable": (
        "{source}에서 Kubernetes 자격 증명을 읽지 못했습니다: {error_type}: {error}"
    ),
    "kube.throttled": (
        "{host}의 Kubernetes API가 NuFi의 요청을 제한하고 있습니다({what}: HTTP 429, {wait:g}초 뒤 "
        "재시도): {message}"
    ),
    "kube.answered_status": "{host}의 Kubernetes API가 {what}에 HTTP {status}로 응답했습니다: {message}",
    "kube.timed_out": (
        "{host}의 Kubernetes API가 {what}에 {timeout:g}초 안에 응답하지 않았습니다(NUFI_KUBE_TIMEOUT_SECONDS)"
    ),
    "kube.lists_timed_out": (
        "Kubernetes API가 노드와 파드 목록 요청에 {timeout:g}초 안에 응답하지 않았습니다"
        "(NUFI_KUBE_TIMEOUT_SECONDS)"
    ),
    "kube.lists_timed_out_at": (
        "{host}의 Kubernetes API가 노드와 파드 목록 요청에 {timeout:g}초 안에 응답하지 않았습니다"
        "(NUFI_KUBE_TIMEOUT_SECONDS)"
    ),
    "kube.failed": "{host}의 Kubernetes API로 보낸 {what} 요청이 실패했습니다: {error_type}: {error}",
    "kube.not_a_list": "{host}의 Kubernetes API가 {what}에 목록이 아닌 응답을 보냈습니다",
    "kube.not_found": "Kubernetes에서 찾을 수 없습니다: {message}",
    "kube.conflict": "Kubernetes에서 충돌이 났습니다: {message}",
    "kube.object_refused": "Kubernetes가 객체를 거부했습니다: {message}",
    "kube.credentials_refused": (
        f"Kubernetes가 NuFi의 자격 증명을 거부했습니다(HTTP {{status}}): {{message}}. {_GRANT}"
    ),
    "kube.refused_status": "Kubernetes가 HTTP {status}로 응답했습니다: {message}",
    "kube.read_refused": "Kubernetes API가 {method} {path} 요청을 거부했습니다(HTTP {status}): {message}",
    "kube.read_refused_rights": (
        f"Kubernetes API가 {{method}} {{path}} 요청을 거부했습니다(HTTP {{status}}): {{message}}. {_GRANT}"
    ),
    "kube.list_refused": "{host}의 Kubernetes API가 {plural} 목록 조회를 거부했습니다(HTTP {status}){said}",
    "kube.list_refused_rights": (
        "{host}의 Kubernetes API가 {plural} 목록 조회를 거부했습니다(HTTP {status}){said}. NuFi 서비스 "
        "계정에 {scope} {plural}에 대한 list 권한을 부여하세요"
    ),
    "kube.said": ": {message}",
    "kube.said_nothing": "",
    "kube.scope.cluster": "클러스터 전체의",
    "kube.scope.all_namespaces": "모든 네임스페이스의",
    "kube.scope.namespace": "네임스페이스 {namespace}의",
    "kube.list_kept_expiring": (
        "{plural} 목록 조회가 계속 실패했습니다. 읽는 도중에 Kubernetes API가 목록을 만료시켰습니다"
    ),
    "kube.watch_error": "{what}이(가) 오류로 응답했습니다(코드 {code}): {message}",
    "quantity.too_long": "수량은 최대 {max}자까지 쓸 수 있습니다",
    "quantity.invalid": "'{value}'은(는) Kubernetes 수량이 아닙니다(예: 500m, 2, 2Gi)",
    "quantity.not_positive": "'{value}'은(는) 부호 없는 양수 수량이어야 합니다(예: 500m, 2, 2Gi)",
    "quantity.out_of_range": (
        "'{value}'은(는) Kubernetes가 이 자원에 지킬 수 있는 범위를 벗어납니다. {least} 이상 {most} 이하로 "
        "쓰세요"
    ),
    # --- Sign-in and tokens ---
    "auth.not_configured": (
        "인증이 설정되지 않았습니다. NUFI_OIDC_ISSUER를 OIDC 발급자로 설정하세요"
        "(예: https://keycloak.example.com/realms/super-llm). 설정하기 전에는 어떤 요청도 인증할 수 없습니다"
    ),
    "auth.sign_in_first": "먼저 로그인하세요. 이 작업은 인증된 사용자만 할 수 있습니다",
    "auth.role_required": (
        "{required_role} 역할이 필요합니다. 사용자 '{user}'에게는 이 역할이 없습니다. 관리자에게 ID "
        "공급자에서 역할을 부여해 달라고 요청하세요"
    ),
    "auth.bearer_missing": f"Bearer 토큰이 없습니다. {_BEARER} 헤더를 보내세요",
    "auth.scheme_wrong": f"Authorization 헤더가 '{{scheme}}' 방식입니다. NuFi는 {_BEARER}를 받습니다",
    "auth.bearer_empty": "Authorization 헤더가 Bearer라고 하지만 토큰이 없습니다",
    "auth.token_too_long": "Bearer 토큰이 {max}자보다 깁니다",
    "auth.token_bad_characters": "Bearer 토큰에 JWT에는 없는 문자가 들어 있습니다",
    "auth.headers_ambiguous": f"요청에 Authorization 헤더가 {{count}}개 있습니다. {_BEARER} 하나만 보내세요",
    "auth.token_algorithm": (
        "토큰 알고리즘 '{alg}'은(는) 받지 않습니다. NuFi는 ID 공급자가 {accepted}로 서명한 액세스 토큰만 "
        "받습니다"
    ),
    "auth.token_no_kid": "토큰 헤더에 서명 키(kid)가 없습니다. 발급자의 액세스 토큰을 보내세요",
    "auth.issuer_mismatch": "발급자가 다릅니다. '{expected}'이어야 하는데 '{got}'입니다",
    "auth.issuer_mismatch_expected": "발급자가 다릅니다. '{expected}'이어야 합니다",
    "auth.token_unknown_key": (
        "알 수 없는 키(kid '{kid}')로 서명된 토큰입니다. {issuer}는 이 키를 공개하지 않습니다"
    ),
    "auth.token_no_user": "토큰에 사용자가 없습니다. 'sub'도 'preferred_username'도 없습니다",
    "auth.token_expired": "토큰이 만료되었습니다. 다시 로그인하세요",
    "auth.token_expired_at": "토큰이 {at}에 만료되었습니다. 다시 로그인하세요",
    "auth.token_not_yet_valid": (
        "토큰이 아직 유효하지 않습니다(nbf나 iat가 미래입니다). NuFi와 ID 공급자의 시계를 확인하세요"
    ),
    "auth.token_signature_invalid": "토큰 서명이 올바르지 않습니다. 토큰이 변조되었거나 위조되었습니다",
    "auth.token_claim_missing": "토큰에 필수 클레임 '{claim}'이(가) 없습니다",
    "auth.token_invalid": "토큰이 올바르지 않습니다: {reason}",
    "auth.token_type": (
        "토큰 유형 '{typ}'은(는) 액세스 토큰이 아닙니다. ID 토큰이나 리프레시 토큰이 아닌 access_token을 "
        "보내세요"
    ),
    "auth.token_malformed": (
        "토큰 형식이 잘못되었습니다. 서명된 JWT(점으로 나뉜 base64url 세 부분)여야 합니다"
    ),
    "auth.token_payload_not_object": "토큰 형식이 잘못되었습니다. 페이로드가 JSON 객체가 아닙니다",
    "auth.audience_mismatch": (
        "NuFi용 토큰이 아닙니다. 대상 '{audience}'이(가) aud({aud})에도, 인가된 당사자 azp({azp})에도 "
        "없습니다. 그 클라이언트용 토큰을 요청하거나 ID 공급자에 audience 매퍼를 추가하세요"
    ),
    "auth.none": "없음",
    # The identity provider cannot be asked.
    "idp.timed_out": (
        "{issuer}의 ID 공급자가 {seconds:g}초 안에 응답하지 않았습니다(NUFI_OIDC_TIMEOUT_SECONDS). "
        "ID 공급자가 실행 중인지 확인하세요"
    ),
    "idp.no_jwks_uri": (
        "{url}의 discovery 문서에 jwks_uri가 없습니다. NUFI_OIDC_ISSUER가 "
        "https://keycloak.example.com/realms/super-llm 같은 OpenID Connect 발급자인지 확인하세요"
    ),
    "idp.fetch_failed": (
        "ID 공급자의 {what}을(를) {url}에서 가져오지 못했습니다: {reason}. NUFI_OIDC_ISSUER와 ID 공급자가 "
        "실행 중인지 확인하세요"
    ),
    "idp.http_status": (
        "ID 공급자가 {url}의 {what} 요청에 HTTP {status}로 응답했습니다. NUFI_OIDC_ISSUER를 확인하세요"
        "(Keycloak: https://<host>/realms/<realm>)"
    ),
    "idp.not_json": "{url}의 ID 공급자 {what}이(가) JSON 객체가 아닙니다. NUFI_OIDC_ISSUER를 확인하세요",
    "idp.what.discovery": "discovery 문서",
    "idp.what.jwks": "키 세트(JWKS)",
    "idp.jwks_no_keys": (
        "ID 공급자의 JWKS에 'keys' 목록이 없습니다. NUFI_OIDC_ISSUER가 OpenID Connect 발급자인지 확인하세요"
    ),
    "idp.no_endpoints": (
        "{issuer}의 discovery 문서에 authorization_endpoint나 token_endpoint가 없습니다. "
        "NUFI_OIDC_ISSUER를 확인하세요"
    ),
    "idp.token_unreachable": "ID 공급자의 토큰 엔드포인트 {url}에 연결하지 못했습니다: {reason}",
    "idp.token_status": "ID 공급자의 토큰 엔드포인트 {url}이(가) HTTP {status}로 응답했습니다",
    # The identity provider answered, and said no.
    "issuer.no_id_token": "ID 공급자가 ID 토큰 없이 응답했습니다(scope openid)",
    "issuer.users_differ": "ID 토큰과 액세스 토큰의 사용자가 다릅니다",
    "issuer.no_refresh_token": "세션에 리프레시 토큰이 없습니다. 다시 로그인하세요",
    "issuer.no_access_token": "ID 공급자의 토큰 응답에 access_token이 없습니다",
    "issuer.refused": "ID 공급자가 거부했습니다: {description}",
    "issuer.refused_client": (
        "ID 공급자가 거부했습니다: {description}. NUFI_OIDC_CLIENT_ID와 NUFI_OIDC_CLIENT_SECRET을 확인하세요"
    ),
    "issuer.id_token_malformed": "ID 토큰 형식이 잘못되었습니다",
    "issuer.id_token_unknown_key": "ID 토큰이 발급자가 공개하지 않은 키로 서명되었습니다",
    "issuer.id_token_invalid": "ID 토큰이 유효하지 않습니다: {reason}",
    "issuer.nonce_mismatch": "ID 토큰이 다른 로그인의 것입니다(nonce 불일치)",
    # --- The database ---
    "db.url_invalid": "{field}이(가) 데이터베이스 URL이 아닙니다. {examples} 같은 URL을 쓰세요",
    "db.backend_unsupported": (
        "{field}가 '{backend}' 데이터베이스를 가리킵니다. NuFi는 SQLite와 PostgreSQL을 지원합니다"
        "(예: {examples})"
    ),
    "db.driver_not_async": (
        "{field}가 가리키는 드라이버 '{driver}'는 asyncio 드라이버가 아닙니다. {choices}를 쓰세요"
    ),
    "db.unavailable": (
        "{where}의 {what}: {error}. {retry_after_seconds}초 뒤에 다시 시도하세요. 계속되면 "
        "NUFI_DATABASE_URL과 데이터베이스 서버가 실행 중인지 확인하세요(SQLite라면 다른 프로그램이 파일을 "
        "잠그고 있지 않은지)."
    ),
    "db.cannot_be_reached": "데이터베이스에 연결할 수 없습니다",
    "db.cannot_serve": "데이터베이스가 지금은 요청을 처리할 수 없습니다",
    "db.migrate_failed": (
        "{url}의 데이터베이스를 마이그레이션하지 못했습니다: {error}. NUFI_DATABASE_URL과 데이터베이스 "
        "서버가 실행 중인지 확인하세요."
    ),
    "db.revision_unreadable": (
        "{url}의 데이터베이스 스키마 리비전을 읽지 못했습니다: {error}. NUFI_DATABASE_URL과 데이터베이스 "
        "서버가 실행 중인지 확인하세요."
    ),
    "db.revision_unknown": (
        "{url}의 데이터베이스를 '{revision}'(으)로 마이그레이션할 수 없습니다: {error}. 이 NuFi가 아는 "
        "리비전은 {head}까지입니다."
    ),
    "db.device_type_id_taken": (
        "id가 '{device_type}'인 장치 유형이 이미 있습니다. 다른 id를 고르거나 그 장치 유형을 수정하세요."
    ),
    "db.resource_key_taken": (
        "리소스 키 '{resource_key}'은(는) 이미 장치 유형 '{device_type}'에 등록되어 있습니다. 리소스 키 "
        "하나는 장치 유형 하나에만 속하므로 그 장치 유형을 수정하거나 다른 키를 쓰세요."
    ),
    "db.resource_key_taken_unknown": (
        "리소스 키 '{resource_key}'은(는) 이미 등록되어 있습니다. 리소스 키 하나는 장치 유형 하나에만 "
        "속하므로 그 장치 유형을 수정하거나 다른 키를 쓰세요."
    ),
    # --- Settings (read at start-up) ---
    "config.settings_file_missing": (
        "{field}가 가리키는 설정 파일 '{path}'이(가) 없거나 파일이 아닙니다. 경로를 고치거나 {field}를 "
        "지우세요."
    ),
    "config.invalid": "설정이 올바르지 않습니다: {problems:list}",
    # --- Labs through the API ---
    "lab.sign_in": (
        "랩을 열려면 로그인하세요. 'Authorization: Bearer <access token>'을 보내거나 대시보드에서 여세요"
    ),
}
