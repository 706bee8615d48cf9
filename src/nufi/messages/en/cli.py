"""English: what the `nufi` command line tells an operator (sign-in, results, problems)."""

TEXTS: dict[str, str] = {
    # --- signing in ---
    "cli.login.open_browser": "Opening your browser to sign in at {issuer}.",
    "cli.login.visit": "If the browser does not open, visit this address:\n{url}",
    "cli.login.visit_only": "To sign in at {issuer}, open this address in a browser:\n{url}",
    "cli.login.waiting": "Waiting for the sign-in to finish (Ctrl-C to give up)...",
    "cli.login.done": "Signed in to {server} as {username}.",
    "cli.login.page_done": "Signed in to NuFi. You can close this window and return to the terminal.",
    "cli.login.page_failed": "Sign-in failed: {error}. Return to the terminal.",
    "cli.login.page_wrong_state": (
        "This answer does not belong to the sign-in under way and was ignored. "
        "If you are signing in, finish it in the window that `nufi login` opened."
    ),
    "cli.login.no_issuer": (
        "{server} has no sign-in configured (NUFI_OIDC_ISSUER is unset); it accepts no tokens"
    ),
    "cli.login.refused": "the identity provider refused the sign-in: {error}",
    "cli.login.timed_out": "no sign-in finished within {seconds} s; run `nufi login` again",
    "cli.logout.done": "Signed out of {server}; its tokens are deleted.",
    "cli.logout.none": "Not signed in to {server}; nothing to delete.",
    "cli.logout.not_revoked": (
        "the issuer {issuer} did not revoke the sign-in ({error}); the tokens on this machine are deleted, "
        "but the refresh token stays valid there until it expires or an administrator ends the session"
    ),
    "cli.logout.no_revocation_endpoint": "{issuer} publishes no revocation_endpoint",
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
    "cli.net.unexpected_answer": "{url} answered with something NuFi does not expect at {field}: {problem}",
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
    "cli.usage.insecure_http": (
        "{server} is plain http to another machine: tokens would cross the network unencrypted. "
        "Use https://, or pass --allow-insecure-http to `nufi login` (or set NUFI_ALLOW_INSECURE_HTTP=1) "
        "if that is what you mean"
    ),
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
    "cli.workload.status.Ready": "Ready",
    "cli.workload.status.Starting": "Starting",
    "cli.workload.status.Pending": "Pending",
    "cli.workload.status.Degraded": "Degraded",
    "cli.workload.status.Error": "Error",
    "cli.workload.status.ScaledDown": "Scaled down",
    "cli.workload.status.Stopped": "Stopped",
    "cli.lab.active.busy": "running code now",
    "cli.lab.active.none": "not since it started",
    "cli.lab.active.unknown": "unknown",
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
    "cli.monitor.node": "Node {node}",
    "cli.monitor.no_devices": "no device readings",
    "cli.monitor.error": "no good snapshot: {detail}",
    "cli.monitor.ended": "The device type {device_type} is gone; the stream has ended.",
    "cli.thermal.header": "leader: {leader}  updated: {updated}",
    "cli.serve.faces_exclusive": "error: --api-only and --ui-only exclude each other; give at most one",
    "cli.empty": "(none)",
    # --- table headings and the fixed words in cells ---
    "cli.column.name": "NAME",
    "cli.column.accelerator": "ACCELERATOR",
    "cli.column.ready": "READY",
    "cli.column.status": "STATUS",
    "cli.column.reason": "REASON",
    "cli.column.image": "IMAGE",
    "cli.column.port": "PORT",
    "cli.column.cluster_address": "ADDRESS IN THE CLUSTER",
    "cli.column.url": "URL",
    "cli.column.id": "ID",
    "cli.column.vendor": "VENDOR",
    "cli.column.kind": "KIND",
    "cli.column.resource_key": "RESOURCE KEY",
    "cli.column.enabled": "ENABLED",
    "cli.column.revision": "REVISION",
    "cli.column.fetcher": "FETCHER",
    "cli.column.storage_gib": "STORAGE GiB",
    "cli.column.last_active": "LAST ACTIVE",
    "cli.column.node": "NODE",
    "cli.column.device": "DEVICE",
    "cli.column.utilization": "UTIL %",
    "cli.column.memory": "MEMORY",
    "cli.column.temperature": "TEMP °C",
    "cli.column.power": "POWER W",
    "cli.column.health": "HEALTH",
    "cli.column.pod": "POD",
    "cli.column.namespace": "NAMESPACE",
    "cli.column.members": "MEMBERS",
    "cli.column.device_type": "TYPE",
    "cli.column.state": "STATE",
    "cli.column.trip": "TRIP °C",
    "cli.column.hot": "HOT",
    "cli.column.deployments": "DEPLOYMENTS",
    "cli.column.capacity": "CAPACITY",
    "cli.column.allocatable": "ALLOCATABLE",
    "cli.column.allocated": "IN USE",
    "cli.value.yes": "yes",
    "cli.value.no": "no",
    "cli.health.ok": "ok",
    "cli.health.unhealthy": "unhealthy",
    "cli.health.unknown": "unknown",
    "cli.health.not_mapped": "not mapped",
    "cli.thermal.state.normal": "normal",
    "cli.thermal.state.hot": "hot",
    "cli.thermal.state.stale": "no reading",
    "cli.thermal.state.tripped": "condition met",
    "cli.thermal.state.unhealthy": "unhealthy",
    "cli.packs.action.created": "created",
    "cli.packs.action.updated": "updated",
    "cli.packs.action.unchanged": "unchanged",
    "cli.packs.action.deleted": "deleted",
    "cli.what.device_type": "device type",
    "cli.what.deployment": "deployment",
    "cli.what.lab": "lab",
    "cli.devices.inventory": (
        "Inventory: {capacity} {capacity:plural:device|devices} on {nodes} {nodes:plural:node|nodes}, "
        "{allocatable} allocatable, {allocated} in use"
    ),
    "cli.devices.inventory_unknown": "Inventory: unknown ({error})",
    # --- asking before deleting ---
    "cli.delete.question": "Delete the {what} {name} in project {project}?",
    "cli.devices.delete.question": "Delete the device type {id}?",
    "cli.devices.delete.consequence": (
        "This cannot be undone; the type also leaves monitoring. Its temperature protection policy,"
        " its alert thresholds and its temperature history are deleted with it: a type registered"
        " again under this id starts from the defaults."
    ),
    "cli.deployments.delete.consequence": (
        "Its Deployment, pods and Service in project {project} are deleted. This cannot be undone."
    ),
    "cli.labs.delete.consequence": (
        "The lab server and its home volume, with every file saved there, are deleted. This cannot be undone."
    ),
    "cli.confirm.needs_yes": (
        "nothing was deleted: there is no terminal to ask on; pass --yes to delete without asking"
    ),
    "cli.confirm.kept": "Nothing was deleted.",
    # --- help pages: each `help=` of the command line names one of these codes ---
    "cli.help.app": "NuFi: run AI workloads on any accelerator in a Kubernetes cluster.",
    "cli.help.serve": (
        "Run the NuFi server until interrupted (Ctrl-C or SIGTERM): the REST API and the dashboard."
    ),
    "cli.help.serve.host": "Address to bind (default NUFI_HOST or 127.0.0.1).",
    "cli.help.serve.port": "Port to bind; 0 picks a free one (default NUFI_PORT or 8080).",
    "cli.help.serve.reload": "Restart on source changes (development only).",
    "cli.help.serve.api_only": "Serve the REST API without the dashboard.",
    "cli.help.serve.ui_only": "Serve the dashboard without the REST API (probes stay).",
    "cli.help.version": "Print the NuFi version.",
    "cli.help.db": (
        "The database schema: apply migrations, show the current revision (uses NUFI_DATABASE_URL)."
    ),
    "cli.help.db.upgrade": "Apply pending schema migrations; does nothing when the schema is up to date.",
    "cli.help.db.upgrade.revision": "Revision to upgrade to (default: the newest).",
    "cli.help.db.current": (
        "Print the schema revision the database is at, and whether migrations are pending."
    ),
    "cli.help.login": (
        "Sign in with your browser (authorization code + PKCE); the tokens are kept for this server."
    ),
    "cli.help.login.browser": "open the sign-in page in a browser",
    "cli.help.login.timeout": "seconds to wait for the sign-in",
    "cli.help.login.insecure_http": (
        "allow a plain http:// server other than this machine (tokens travel unencrypted)"
    ),
    "cli.help.logout": (
        "Sign out: revoke the sign-in at the issuer and forget the tokens kept for this server."
    ),
    "cli.help.whoami": "Who NuFi sees: your username, roles and whether you are an administrator.",
    "cli.help.monitor": (
        "Watch a device type's devices live (Ctrl-C to stop); json/yaml print one document per snapshot."
    ),
    "cli.help.monitor.once": "print one snapshot (GET /api/v1/monitoring/TYPE) and exit",
    "cli.help.monitor.node": "only nodes whose name contains this",
    "cli.help.monitor.sort": "sort by node, temperature, utilization or memory",
    "cli.help.monitor.limit": "nodes per snapshot",
    "cli.help.option.output": "table for people; json or yaml (the API's body) for scripts",
    "cli.help.option.server": (
        "NuFi's address (default: the server of the last `nufi login`, else http://127.0.0.1:8080)"
    ),
    "cli.help.option.token": "an access token to send instead of the cached login (for CI)",
    "cli.help.option.project": "the project (or NUFI_PROJECT)",
    "cli.help.option.device_type": "the device type's id (e.g. lpu)",
    "cli.help.option.yes": "delete without asking (needed where there is no terminal to ask on)",
    "cli.help.devices": "Device types: list, inspect, export and apply packs, check.",
    "cli.help.devices.list": "Every device type: official presets and custom types.",
    "cli.help.devices.list.enabled": "only enabled (or disabled) types",
    "cli.help.devices.get": "One device type with its inventory per node.",
    "cli.help.devices.delete": "Delete a custom device type (administrators).",
    "cli.help.devices.delete.revision": "only if the type is still at this revision",
    "cli.help.devices.check": (
        "Check a type against the world: its resource key on nodes, its metrics in Prometheus; "
        "exit 1 when a check fails."
    ),
    "cli.help.devices.export": (
        "Print a device type as a pack document (canonical YAML): `apply` elsewhere recreates it."
    ),
    "cli.help.devices.apply": (
        "Make the catalog hold these packs: create, update (and with --prune delete) device types."
    ),
    "cli.help.devices.diff": "Show what `apply` would change, field by field; changes nothing, exits 0.",
    "cli.help.packs.filename": "a pack file, a directory of *.yaml/*.yml files, or - for stdin",
    "cli.help.packs.output": "yaml (default), json, or table",
    "cli.help.packs.prune": "delete custom types the packs do not name",
    "cli.help.packs.dry_run": "say what would change, change nothing",
    "cli.help.packs.force": "save even when the checks against the world fail",
    "cli.help.packs.diff_prune": "also show the custom types --prune would delete",
    "cli.help.packs.exit_code": "exit 1 when something would change (drift checks in CI)",
    "cli.help.projects": "Projects: who may use which accelerators.",
    "cli.help.projects.list": "The projects you may use.",
    "cli.help.projects.get": "One project and its members.",
    "cli.help.projects.name": "the project's name",
    "cli.help.deployments": "Deployments: serve a model on accelerators.",
    "cli.help.deployments.name": "the deployment's name",
    "cli.help.deployments.list": "The project's deployments.",
    "cli.help.deployments.get": "One deployment: status, pods, addresses.",
    "cli.help.deployments.create": (
        "Create a deployment; with --wait, exit only once it is Ready (exit 1 if it is not in time)."
    ),
    "cli.help.deployments.image": "the container image",
    "cli.help.deployments.accelerator": "TYPE:COUNT per replica, e.g. lpu:1",
    "cli.help.deployments.replicas": "how many replicas",
    "cli.help.deployments.port": "the port the server listens on",
    "cli.help.deployments.env": "NAME=VALUE, repeatable",
    "cli.help.deployments.command": "the entrypoint, one word per option",
    "cli.help.deployments.arg": "an argument to it, repeatable, in order",
    "cli.help.deployments.readiness_path": "HTTP path that answers 200 when ready",
    "cli.help.deployments.wait": "seconds to wait until Ready (0: do not wait)",
    "cli.help.deployments.scale": "Change a deployment's number of replicas.",
    "cli.help.deployments.scale.replicas": "the new number of replicas (0 scales down)",
    "cli.help.deployments.delete": "Delete a deployment and its pods.",
    "cli.help.labs": "Labs: notebooks and editors on accelerators.",
    "cli.help.labs.name": "the lab's name",
    "cli.help.labs.list": "The project's labs.",
    "cli.help.labs.get": "One lab.",
    "cli.help.labs.create": "Create a lab.",
    "cli.help.labs.accelerator": "TYPE:COUNT, e.g. lpu:1",
    "cli.help.labs.kind": "jupyter or vscode",
    "cli.help.labs.image": "the image (default: the kind's)",
    "cli.help.labs.storage_gib": "the workspace volume's size (GiB)",
    "cli.help.labs.stop": "Stop a lab; its workspace is kept.",
    "cli.help.labs.start": "Start a stopped lab.",
    "cli.help.labs.delete": "Delete a lab and its workspace.",
    "cli.help.labs.open": "Print the lab's address (open it in a browser signed in to the dashboard).",
    "cli.help.thermal": "Thermal protection: controller status.",
    "cli.help.thermal.status": (
        "The controller's leader, and per type and node the temperature, state and what is cut."
    ),
    # --- help pages: the words typer and click put around them ---
    "cli.help.page.usage": "Usage:",
    "cli.help.page.help_option": "Show this message and exit.",
    "cli.help.page.install_completion": "Install completion for the current shell.",
    "cli.help.page.show_completion": (
        "Show completion for the current shell, to copy it or customize the installation."
    ),
    "cli.help.page.arguments": "Arguments",
    "cli.help.page.options": "Options",
    "cli.help.page.commands": "Commands",
    "cli.help.page.error": "Error",
    "cli.help.page.try_help": "Try '{command_path} {help_option}' for help.",
    "cli.help.page.default": "[default: {value}]",
    "cli.help.page.env_var": "[env var: {value}]",
    "cli.help.page.required": "[required]",
}
