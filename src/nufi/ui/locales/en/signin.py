"""English texts of the sign-in and sign-out pages, served outside the dashboard's frame."""

TEXTS: dict[str, str] = {
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
    "signout.refused.message": ("The request did not come from a NuFi page. Sign out from NuFi's own menu."),
}
