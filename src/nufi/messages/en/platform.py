"""English: what the platform services say (Kubernetes, sign-in and tokens, the database, settings,
the lab proxy)."""

_GRANT = "grant NuFi's service account the rights deploy/ describes"
_BEARER = "'Authorization: Bearer <access token>'"

TEXTS: dict[str, str] = {
    # --- Kubernetes ---
    "kube.not_configured": (
        "Kubernetes is not configured: set NUFI_KUBECONFIG (and optionally NUFI_KUBE_CONTEXT), "
        "or run NuFi in a pod with a service account"
    ),
    "kube.credentials_unloadable": (
        "cannot load Kubernetes credentials from {source}: {error_type}: {error}"
    ),
    "kube.throttled": (
        "the Kubernetes API at {host} is throttling NuFi ({what}: HTTP 429, retry after {wait:g} s): "
        "{message}"
    ),
    "kube.answered_status": "the Kubernetes API at {host} answered {what} with HTTP {status}: {message}",
    "kube.timed_out": (
        "the Kubernetes API at {host} did not answer {what} within {timeout:g} s (NUFI_KUBE_TIMEOUT_SECONDS)"
    ),
    "kube.lists_timed_out": (
        "the Kubernetes API did not answer the lists of nodes and pods within {timeout:g} s "
        "(NUFI_KUBE_TIMEOUT_SECONDS)"
    ),
    "kube.lists_timed_out_at": (
        "the Kubernetes API at {host} did not answer the lists of nodes and pods within {timeout:g} s "
        "(NUFI_KUBE_TIMEOUT_SECONDS)"
    ),
    "kube.failed": "{what} to the Kubernetes API at {host} failed: {error_type}: {error}",
    "kube.not_a_list": "the Kubernetes API at {host} answered {what} with something that is not a list",
    "kube.not_found": "Kubernetes: {message}",
    "kube.conflict": "Kubernetes: {message}",
    "kube.object_refused": "Kubernetes refused the object: {message}",
    "kube.credentials_refused": (
        f"Kubernetes refused NuFi's credentials (HTTP {{status}}): {{message}}; {_GRANT}"
    ),
    "kube.refused_status": "Kubernetes answered HTTP {status}: {message}",
    "kube.read_refused": "the Kubernetes API refused {method} {path} (HTTP {status}): {message}",
    "kube.read_refused_rights": (
        f"the Kubernetes API refused {{method}} {{path}} (HTTP {{status}}): {{message}}; {_GRANT}"
    ),
    "kube.list_refused": "the Kubernetes API at {host} refused to list {plural} (HTTP {status}){said}",
    "kube.list_refused_rights": (
        "the Kubernetes API at {host} refused to list {plural} (HTTP {status}){said}; grant NuFi's "
        "service account 'list' on '{plural}' {scope}"
    ),
    "kube.said": ": {message}",
    "kube.said_nothing": "",
    "kube.scope.cluster": "cluster-wide",
    "kube.scope.all_namespaces": "in all namespaces",
    "kube.scope.namespace": "in namespace {namespace}",
    "kube.list_kept_expiring": (
        "listing {plural} kept failing: the Kubernetes API expired the list while it was being read"
    ),
    "kube.watch_error": "{what} answered an error (code {code}): {message}",
    "quantity.too_long": "a quantity is at most {max} characters long",
    "quantity.invalid": "{value!r} is not a Kubernetes quantity (e.g. 500m, 2, 2Gi)",
    "quantity.not_positive": "{value!r} must be a positive quantity without a sign (e.g. 500m, 2, 2Gi)",
    "quantity.out_of_range": (
        "{value!r} is beyond what Kubernetes honours for this resource: write at least {least} and at "
        "most {most}"
    ),
    # --- Sign-in and tokens ---
    "auth.not_configured": (
        "authentication is not configured: set NUFI_OIDC_ISSUER to the OIDC issuer, e.g. "
        "https://keycloak.example.com/realms/super-llm; until then no request can be authenticated"
    ),
    "auth.sign_in_first": "sign in first: this action needs an authenticated user",
    "auth.role_required": (
        "requires role {required_role}: user {user!r} does not have it; ask an administrator to grant "
        "it in the identity provider"
    ),
    "auth.bearer_missing": f"missing bearer token: send {_BEARER}",
    "auth.scheme_wrong": f"the Authorization header uses the {{scheme!r}} scheme; NuFi expects {_BEARER}",
    "auth.bearer_empty": "the Authorization header says Bearer but carries no token",
    "auth.token_too_long": "the bearer token is longer than {max} characters",
    "auth.token_bad_characters": "the bearer token contains characters a JWT never has",
    "auth.headers_ambiguous": (
        f"the request carries {{count}} Authorization headers; send exactly one: {_BEARER}"
    ),
    "auth.token_algorithm": (
        "token algorithm {alg!r} is not accepted; NuFi accepts {accepted}-signed access tokens from its "
        "identity provider only"
    ),
    "auth.token_no_kid": "token header names no signing key (kid); send an access token from the issuer",
    "auth.issuer_mismatch": "issuer mismatch: expected {expected!r}, got {got!r}",
    "auth.issuer_mismatch_expected": "issuer mismatch: expected {expected!r}",
    "auth.token_unknown_key": "token signed by an unknown key (kid {kid!r}): {issuer} does not publish it",
    "auth.token_no_user": "token names no user: it has neither 'sub' nor 'preferred_username'",
    "auth.token_expired": "token expired; sign in again",
    "auth.token_expired_at": "token expired at {at}; sign in again",
    "auth.token_not_yet_valid": (
        "token not yet valid (nbf or iat lies in the future); check the clocks of NuFi and the identity "
        "provider"
    ),
    "auth.token_signature_invalid": "token signature is invalid: the token was altered or forged",
    "auth.token_claim_missing": "token lacks the required {claim!r} claim",
    "auth.token_invalid": "token is invalid: {reason}",
    "auth.token_type": (
        "token type {typ!r} is not an access token; send the access_token, not an ID or refresh token"
    ),
    "auth.token_malformed": (
        "token is malformed: expected a signed JWT (three base64url parts separated by dots)"
    ),
    "auth.token_payload_not_object": "token is malformed: its payload is not a JSON object",
    "auth.audience_mismatch": (
        "token is not meant for NuFi: audience {audience!r} is neither in aud ({aud}) nor the authorized "
        "party azp ({azp}); request a token for that client, or add an audience mapper in the identity "
        "provider"
    ),
    "auth.none": "none",
    # The identity provider cannot be asked.
    "idp.timed_out": (
        "the identity provider at {issuer} did not answer within {seconds:g} s "
        "(NUFI_OIDC_TIMEOUT_SECONDS); check that it is running"
    ),
    "idp.no_jwks_uri": (
        "the discovery document at {url} has no jwks_uri; check that NUFI_OIDC_ISSUER names an OpenID "
        "Connect issuer such as https://keycloak.example.com/realms/super-llm"
    ),
    "idp.fetch_failed": (
        "cannot fetch the identity provider's {what} from {url}: {reason}. Check NUFI_OIDC_ISSUER and "
        "that the identity provider is running"
    ),
    "idp.http_status": (
        "the identity provider answered HTTP {status} for its {what} at {url}; check NUFI_OIDC_ISSUER "
        "(for Keycloak: https://<host>/realms/<realm>)"
    ),
    "idp.not_json": "the identity provider's {what} at {url} is not a JSON object; check NUFI_OIDC_ISSUER",
    "idp.what.discovery": "discovery document",
    "idp.what.jwks": "key set (JWKS)",
    "idp.jwks_no_keys": (
        "the identity provider's JWKS has no 'keys' list; check that NUFI_OIDC_ISSUER names an OpenID "
        "Connect issuer"
    ),
    "idp.no_endpoints": (
        "the discovery document of {issuer} names no authorization_endpoint or token_endpoint; check "
        "NUFI_OIDC_ISSUER"
    ),
    "idp.token_unreachable": "cannot reach the identity provider's token endpoint {url}: {reason}",
    "idp.token_status": "the identity provider's token endpoint {url} answered HTTP {status}",
    # The identity provider answered, and said no.
    "issuer.no_id_token": "the identity provider answered without an ID token (scope openid)",
    "issuer.users_differ": "the ID token and the access token name different users",
    "issuer.no_refresh_token": "the session has no refresh token; sign in again",
    "issuer.no_access_token": "the identity provider's token answer carries no access_token",
    "issuer.refused": "the identity provider refused: {description}",
    "issuer.refused_client": (
        "the identity provider refused: {description}; check NUFI_OIDC_CLIENT_ID and NUFI_OIDC_CLIENT_SECRET"
    ),
    "issuer.id_token_malformed": "the ID token is malformed",
    "issuer.id_token_unknown_key": "the ID token is signed by a key the issuer does not publish",
    "issuer.id_token_invalid": "the ID token does not hold up: {reason}",
    "issuer.nonce_mismatch": "the ID token belongs to another sign-in (nonce mismatch)",
    # --- The database ---
    "db.url_invalid": "{field} is not a database URL; use one such as {examples}",
    "db.backend_unsupported": (
        "{field} names the {backend!r} database; NuFi supports SQLite and PostgreSQL, e.g. {examples}"
    ),
    "db.driver_not_async": (
        "{field} names the driver {driver!r}, which is not an asyncio driver; use {choices}"
    ),
    "db.unavailable": (
        "The database at {where} {what}: {error}. Retry in {retry_after_seconds} s. If it persists, check "
        "NUFI_DATABASE_URL and that the database server is running (for SQLite: that no other program "
        "holds the file locked)."
    ),
    "db.cannot_be_reached": "cannot be reached",
    "db.cannot_serve": "cannot serve right now",
    "db.migrate_failed": (
        "Cannot migrate the database at {url}: {error}. Check NUFI_DATABASE_URL and that the database "
        "server is running."
    ),
    "db.revision_unreadable": (
        "Cannot read the schema revision of the database at {url}: {error}. Check NUFI_DATABASE_URL and "
        "that the database server is running."
    ),
    "db.revision_unknown": (
        "Cannot migrate the database at {url} to {revision!r}: {error}. This NuFi knows revisions up to "
        "{head}."
    ),
    "db.device_type_id_taken": (
        "A device type with id {device_type!r} already exists; choose another id or edit that device type."
    ),
    "db.resource_key_taken": (
        "Resource key {resource_key!r} is already registered by device type {device_type!r}; each resource "
        "key belongs to one device type, so edit that one or use another key."
    ),
    "db.resource_key_taken_unknown": (
        "Resource key {resource_key!r} is already registered; each resource key belongs to one device "
        "type, so edit that one or use another key."
    ),
    # --- Settings (read at start-up) ---
    "config.settings_file_missing": (
        "The settings file {path!r} named by {field} does not exist or is not a file; fix the path or "
        "unset {field}."
    ),
    "config.invalid": "Invalid settings: {problems:list}",
    # --- Labs through the API ---
    "lab.sign_in": (
        "sign in to open a lab: send 'Authorization: Bearer <access token>', or open it from the dashboard"
    ),
}
