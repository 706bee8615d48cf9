"""Korean texts of the sign-in and sign-out pages, served outside the dashboard's frame."""

TEXTS: dict[str, str] = {
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
    "signout.refused.message": ("NuFi 페이지에서 보낸 요청이 아닙니다. NuFi 화면의 메뉴에서 로그아웃하세요."),
}
