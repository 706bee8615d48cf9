"""English texts of the frame around every page: the title, the menu, the header and the 403 page."""

TEXTS: dict[str, str] = {
    "app.title": "NuFi",
    "nav.monitoring": "Monitoring",
    "nav.alerts": "Alerts",
    "nav.admin": "Admin",
    "nav.devices": "Devices",
    "nav.audit": "Audit",
    "nav.thermal": "Thermal",
    "header.language": "Language",
    "header.sign_out": "Sign out",
    "forbidden.title": "You do not have access",
    "forbidden.body": (
        "Only administrators with the nufi-admin role can open this page. "
        "Ask an administrator for the role if you need it."
    ),
    "forbidden.back": "Back to monitoring",
    # Workloads: Deployments, Labs and Admin → Projects.
    "nav.workloads": "Workloads",
    "nav.deployments": "Deployments",
    "nav.labs": "Labs",
    "nav.projects": "Projects",
    # A page that took longer than its budget to build (503, Retry-After).
    "slow.title": "This page is taking longer than usual",
    "slow.body": (
        "NuFi is busy, or a service this page reads is answering slowly, so the page was not ready in "
        "time. Try again in {seconds} seconds; nothing was changed."
    ),
    "slow.retry": "Try again",
}
