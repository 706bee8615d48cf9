"""English: what the `nufi` command line tells an operator (sign-in, results, problems)."""

TEXTS: dict[str, str] = {
    # --- signing in ---
    "cli.login.open_browser": "Opening your browser to sign in at {issuer}.",
    "cli.login.visit": "If the browser does not open, visit this address:\n{url}",
    "cli.login.waiting": "Waiting for the sign-in to finish (Ctrl-C to give up)...",
    "cli.login.done": "Signed in to {server} as {username}.",
    "cli.login.page_done": "Signed in to NuFi. You can close this window and return to the terminal.",
    "cli.login.page_failed": "Sign-in failed: {error}. Return to the terminal.",
    "cli.login.no_issuer": (
        "{server} has no sign-in configured (NUFI_OIDC_ISSUER is unset); it accepts no tokens"
    ),
    "cli.login.refused": "the identity provider refused the sign-in: {error}",
    "cli.login.state_mismatch": (
        "the sign-in answer does not belong to this sign-in (state differs); try again"
    ),
    "cli.login.timed_out": "no sign-in finished within {seconds} s; run `nufi login` again",
    "cli.logout.done": "Signed out of {server}; its tokens are deleted.",
    "cli.logout.none": "Not signed in to {server}; nothing to delete.",
    "cli.whoami.line": "{username} at {server}{admin}",
    "cli.whoami.admin": " (administrator)",
    "cli.whoami.not_admin": "",
    # --- tokens ---
    "cli.auth.not_signed_in": (
        "not signed in to {server}: run `nufi login --server {server}` or set NUFI_TOKEN"
    ),
    "cli.auth.refresh_refused": (
        "the sign-in to {server} has ended and cannot be renewed ({error}): run `nufi login` again"
    ),
    # --- talking to the server ---
    "cli.net.unreachable": "cannot reach {url}: {error}",
    "cli.net.not_json": "{url} answered HTTP {status} with something that is not JSON",
    "cli.problem.line": "error: {title} (HTTP {status})",
    "cli.problem.code": "code: {code}",
    "cli.problem.field": "field: {field}",
    "cli.problem.request": "request id: {request_id}",
    "cli.problem.fix_login": "fix: run `nufi login` (or set NUFI_TOKEN) and try again",
    "cli.problem.fix_admin": "fix: this needs the administrator role; sign in as an administrator",
    "cli.problem.fix_field": "fix: correct `{field}` and try again",
    "cli.problem.fix_retry": "fix: retry after {seconds} s",
    # --- usage ---
    "cli.usage.no_files": "no *.yaml or *.yml file in {path}",
    "cli.usage.unreadable": "cannot read {path}: {error}",
    "cli.usage.bad_pack": "{path} is not a valid device pack: {error}",
    "cli.usage.bad_accelerator": "--accelerator takes TYPE:COUNT (e.g. lpu:1), not {value!r}",
    "cli.usage.bad_env": "--env takes NAME=VALUE, not {value!r}",
    # --- results ---
    "cli.deleted": "Deleted {what} {name}.",
    "cli.created": "Created {what} {name}.",
    "cli.scaled": "Scaled deployment {name} to {replicas} {replicas:plural:replica|replicas}.",
    "cli.lab.stopped": "Stopped lab {name}.",
    "cli.lab.started": "Started lab {name}.",
    "cli.packs.dry_run": "Dry run: nothing was changed.",
    "cli.packs.result": "{name}: {action}",
    "cli.packs.no_changes": "No changes: the server already holds these packs.",
    "cli.packs.summary": ("{created} created, {updated} updated, {unchanged} unchanged, {deleted} deleted"),
    "cli.check.resource_key": "resource key {key}: {verdict}",
    "cli.check.metric": "metric {metric}: {verdict}",
    "cli.check.ok": "ok",
    "cli.check.failed": "failed",
    "cli.monitor.title": (
        "{device_type} at {time} "
        "({nodes} {nodes:plural:node|nodes}, {devices} {devices:plural:device|devices})"
    ),
    "cli.monitor.error": "no good snapshot: {detail}",
    "cli.monitor.ended": "The device type {device_type} is gone; the stream has ended.",
    "cli.empty": "(none)",
}
