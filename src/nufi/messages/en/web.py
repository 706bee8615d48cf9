"""English: what the web server itself answers (labs' paths and origins, size limits, readiness)."""

TEXTS: dict[str, str] = {
    "request.too_large": (
        "The request body is larger than {limit_bytes} bytes, the most NuFi accepts "
        "(NUFI_MAX_REQUEST_BODY_BYTES); send a smaller one."
    ),
    "health.not_ready": "NuFi is not ready. {failing}",
    "lab.no_such_path": (
        "No lab serves at {path!r}: labs are at /labs/<project>/<name>/, where the project and the lab "
        "name are lowercase DNS labels (letters, digits and '-')."
    ),
    "lab.unreachable": (
        "Lab {lab!r} of project {project!r} does not answer ({reason}); it may be stopped or still "
        "starting: see GET /api/v1/projects/{project}/labs/{lab}."
    ),
    "lab.refused_websocket": (
        "Lab {lab!r} of project {project!r} refused the WebSocket ({lab_status}); a browser's socket "
        "must come from the lab's own page."
    ),
    "lab.origin_unset": (
        "Labs open in a browser only on an origin of their own, and none is configured: an "
        'administrator must set NUFI_LAB_BASE_DOMAIN (see docs/install.md, "Lab base domain"); '
        "scripts may still reach a lab here with 'Authorization: Bearer <access token>'."
    ),
    "lab.elsewhere": (
        "This lab is served to browsers at {origin} only: open it there (or from the dashboard), or "
        "send 'Authorization: Bearer <access token>'."
    ),
    "lab.origin_refused": (
        "A lab takes WebSockets, and changes signed in by its cookie, only from its own origin "
        "{origin}: open the lab there."
    ),
    "lab.grant_refused": ("This lab sign-in link does not hold: open the lab again from the dashboard."),
    "lab.not_on_this_host": (
        "Nothing is served at {path!r} on this host: a lab's host serves that lab's own paths only."
    ),
    "lab.dot_segments": (
        "The lab path {path!r} has a '.' or '..' segment (perhaps percent-encoded): ask for the path "
        "without it."
    ),
    "lab.bad_sign_in_next": (
        "This lab sign-in cannot go on: {next!r} is not a path of this lab (or the link is incomplete); "
        "open the lab again from the dashboard."
    ),
}
