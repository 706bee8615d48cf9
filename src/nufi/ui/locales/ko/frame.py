"""Korean texts of the frame around every page: the title, the menu, the header and the 403 page."""

TEXTS: dict[str, str] = {
    "app.title": "NuFi",
    "nav.monitoring": "모니터링",
    "nav.alerts": "알림",
    "nav.admin": "관리",
    "nav.devices": "디바이스",
    "nav.audit": "감사 기록",
    "nav.thermal": "온도 제어",
    "header.language": "언어",
    "header.sign_out": "로그아웃",
    "forbidden.title": "접근 권한이 없습니다",
    "forbidden.body": (
        "이 페이지는 nufi-admin 역할이 있는 관리자만 볼 수 있습니다. 필요하면 관리자에게 역할을 요청하세요."
    ),
    "forbidden.back": "모니터링으로 돌아가기",
    # Workloads: Deployments, Labs and Admin → Projects.
    "nav.workloads": "워크로드",
    "nav.deployments": "배포",
    "nav.labs": "랩",
    "nav.projects": "프로젝트",
    # A page that took longer than its budget to build (503, Retry-After).
    "slow.title": "페이지를 여는 데 평소보다 오래 걸리고 있습니다",
    "slow.body": (
        "NuFi가 바쁘거나 이 페이지가 읽는 서비스의 응답이 느려서 제시간에 페이지를 준비하지 못했습니다. "
        "{seconds}초 뒤에 다시 시도하세요. 변경된 것은 없습니다."
    ),
    "slow.retry": "다시 시도",
}
