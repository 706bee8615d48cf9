"""Server settings: the one settings tree.

Read from `NUFI_*` environment variables and, when `NUFI_SETTINGS_FILE` names one, a settings file
(YAML, JSON or dotenv; YAML/JSON keys are the field names without the prefix, dotenv keys carry it).
Environment variables win over the file. Secrets are `SecretStr` so they never reach a log line.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Annotated, Any, Literal
from urllib.parse import urlsplit

from pydantic import Field, SecretStr, ValidationError, field_validator, model_validator
from pydantic_settings import (
    BaseSettings,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
)

from nufi.config.sources import (
    MASK,
    hide_url_password,
    is_loopback_address,
    require_http_url,
    settings_file_source,
)
from nufi.errors import ValidationFailed

ENV_PREFIX = "NUFI_"

LogFormat = Literal["auto", "json", "console"]
LogLevel = Literal["debug", "info", "warning", "error", "critical"]

_SECRET_FIELDS = frozenset(
    {
        "database_url",
        "oidc_client_secret",
        "prometheus_password",
        "prometheus_bearer_token",
        "dashboard_session_secret",
    }
)


class Settings(BaseSettings):
    model_config = SettingsConfigDict(
        env_prefix=ENV_PREFIX,
        env_ignore_empty=True,
        extra="forbid",
        frozen=True,
        validate_default=True,
    )

    host: str = "127.0.0.1"
    # 0 asks the operating system for a free port; `nufi serve` prints the one it got.
    port: int = Field(default=8080, ge=0, le=65535)

    kubeconfig: Path | None = None
    kube_context: str | None = None
    # Kubernetes API calls: each list, and a whole paginated read of the cluster, must end within this
    # long, else it fails as Kubernetes unavailable (a hung API server must not stall every request).
    kube_timeout_seconds: float = Field(default=5.0, gt=0, le=300)
    # The per-replica cache of nodes and pods fed by list + watch (nufi.cluster.cache): reads are
    # served from it once synced; off, every read lists nodes and pods directly.
    cluster_cache_enabled: bool = True
    # Relist this often even while every watch is healthy.
    cluster_cache_resync_seconds: float = Field(default=600.0, gt=0, le=86400)
    # A watch broken for longer than this (the API server unreachable) sends reads to direct lists.
    cluster_cache_max_outage_seconds: float = Field(default=30.0, ge=0, le=3600)
    # Each watch asks the API server to end it after about this long (jittered up to twice that).
    cluster_cache_watch_seconds: float = Field(default=300.0, ge=1, le=3600)

    prometheus_url: str | None = None
    # Credentials live in their own secret fields, never in the URL, so the URL can be logged.
    prometheus_username: str | None = None
    prometheus_password: SecretStr | None = None
    prometheus_bearer_token: SecretStr | None = None
    prometheus_timeout_seconds: float = Field(default=10.0, gt=0)
    # Bounds on what PromQL may cost Prometheus (docs/monitoring.md, "Bounds"). Every query carries
    # Prometheus' `timeout` parameter: this, or unset 90% of NUFI_PROMETHEUS_TIMEOUT_SECONDS.
    promql_query_timeout_seconds: float | None = Field(default=None, gt=0, le=3600)
    # An admin's expression (the wizard's check, a save) may not range or subquery over more than this,
    promql_max_range_seconds: float = Field(default=3600.0, gt=0, le=366 * 86400)
    # nor step a subquery finer than this,
    promql_min_subquery_step_seconds: float = Field(default=1.0, gt=0, le=86400)
    # nor make more points per series than this in a subquery over the longest range NuFi asks (24 h):
    # VictoriaMetrics refuses more than its -search.maxPointsPerTimeseries (30,000 by default),
    promql_max_points_per_series: int = Field(default=30_000, ge=100, le=100_000_000)
    # nor select more series than this, counted first with `count((expr))` under this timeout.
    promql_max_series: int = Field(default=10_000, ge=1, le=10_000_000)
    promql_series_check_timeout_seconds: float = Field(default=2.0, gt=0, le=60)
    # Prometheus' answers are read into memory: one larger than this (a query selecting far too many
    # series) is refused as it streams in instead of exhausting the replica's memory.
    prometheus_max_response_bytes: int = Field(default=64 * 1024 * 1024, ge=1024, le=4 * 1024**3)

    # Each readiness check gets this long before it counts as failed.
    readiness_timeout_seconds: float = Field(default=2.0, gt=0)

    # A database URL may carry a password, hence secret.
    database_url: SecretStr = SecretStr("sqlite+aiosqlite:///./nufi.db")
    # Apply pending schema migrations when the server starts; turn off to run `nufi db upgrade` yourself.
    database_migrate_on_start: bool = True

    log_format: LogFormat = "auto"
    log_level: LogLevel = "info"

    oidc_issuer: str | None = None
    oidc_audience: str | None = None
    oidc_client_id: str | None = None
    oidc_client_secret: SecretStr | None = None
    # The public client `nufi login` signs in as (code + PKCE, loopback redirect), told by /api/v1/auth/cli.
    oidc_cli_client_id: str = Field(default="nufi-cli", min_length=1)
    admin_role: str = "nufi-admin"

    # Dashboard sign-in (docs/dashboard.md, "Sign-in and sessions"). The tokens of dashboard sessions
    # are stored encrypted under a key derived from this secret; unset, nobody can sign in to the
    # dashboard. Changing it signs everyone out; give every replica the same one.
    dashboard_session_secret: SecretStr | None = Field(default=None, min_length=16)
    # A dashboard session ends this long after sign-in however active it is (the issuer may end it
    # sooner: a refresh it refuses ends the session too).
    dashboard_session_lifetime_seconds: float = Field(default=12 * 3600.0, ge=60, le=30 * 86400)
    # The dashboard's address as browsers reach it (e.g. https://nufi.example.com): the redirect URIs
    # registered at the issuer, whether cookies are Secure, and the only origin the dashboard's
    # sign-out and socket accept. Required when NuFi listens off loopback with sign-in configured;
    # unset on loopback, the address of each request that names a loopback host.
    dashboard_public_url: str | None = Field(default=None, pattern=r"^https?://[^/?#]+(/[^?#]*)?$")
    # A dashboard page not built within this long answers 503 with Retry-After and a message saying
    # to retry, instead of NiceGUI's 500 (docs/dashboard.md, "Slow pages").
    dashboard_page_build_timeout_seconds: float = Field(default=10.0, gt=0, le=60)

    # Hardening of the request path and of calls to the identity provider.
    # The client whose roles count next to realm roles (resource_access.<client>.roles); unset, the
    # audience (NUFI_OIDC_AUDIENCE). Roles other clients define are never honoured.
    oidc_role_client: str | None = None
    # Every call to the issuer (discovery, keys) gives up after this long.
    oidc_timeout_seconds: float = Field(default=3.0, gt=0, le=60)
    # How many verified access tokens each replica remembers (until their exp) so that their
    # signature is not checked on every request; 0 checks every request in full.
    auth_token_cache_size: int = Field(default=10_000, ge=0, le=1_000_000)
    # Request bodies above this many bytes are refused with 413 before they are read.
    max_request_body_bytes: int = Field(default=1024 * 1024, ge=1024, le=1024 * 1024 * 1024)
    # Slow or idle connections: a request's line and headers must arrive within this long of the
    # connection opening (or of the request's first byte on a kept-alive connection) ...
    http_header_timeout_seconds: float = Field(default=20.0, gt=0, le=3600)
    # ... and its body within this long of the headers, extended by each chunk's size over
    # NUFI_HTTP_BODY_MIN_BYTES_PER_SECOND: a moving upload finishes, a trickling one is cut off (408).
    http_body_timeout_seconds: float = Field(default=20.0, gt=0, le=3600)
    http_body_min_bytes_per_second: int = Field(default=500, ge=1, le=1024**3)
    # A kept-alive connection with no request in flight is closed after this long.
    http_keep_alive_timeout_seconds: float = Field(default=5.0, gt=0, le=3600)
    # The dashboard's sockets one client address may hold at once (a browser holds one per open tab).
    dashboard_max_sockets_per_client: int = Field(default=64, ge=1, le=100_000)

    # The `scrape_interval` of the Prometheus jobs that scrape device exporters: every staleness
    # judgement and the finest default step of a monitoring time range are multiples of it.
    monitoring_scrape_interval_seconds: float = Field(default=15.0, gt=0, le=3600)
    # The longest time range one request may ask for (`start` to `end`); each series also has at most
    # 11,000 points, Prometheus' own limit, whatever the step.
    monitoring_max_range_seconds: float = Field(default=31 * 86400.0, ge=60, le=10 * 366 * 86400)
    # Each device type being read is evaluated once per this many seconds and the result shared by
    # every reader of the replica; unset, once per scrape interval (evaluating faster shows nothing new).
    monitoring_refresh_seconds: float | None = Field(default=None, gt=0, le=3600)
    # A monitoring stream sends a heartbeat after this long without a new snapshot.
    monitoring_stream_heartbeat_seconds: float = Field(default=15.0, gt=0, le=3600)

    # Thermal traffic control (docs/thermal.md): whether this replica runs the controller, how often it
    # looks (unset: twice per monitoring refresh), and the Lease that elects the one replica acting
    # (namespace unset: NuFi's own, from its ServiceAccount, else "default").
    thermal_enabled: bool = True
    thermal_interval_seconds: float | None = Field(default=None, gt=0, le=600)
    thermal_lease_namespace: str | None = None
    thermal_lease_name: str = "nufi-thermal-controller"
    thermal_lease_seconds: float = Field(default=15.0, ge=1, le=600)
    thermal_renew_deadline_seconds: float = Field(default=10.0, ge=0.5, le=600)
    thermal_retry_seconds: float = Field(default=2.0, ge=0.1, le=60)

    # Alerts (docs/alerts.md): where each type's generated alerting rules go. `auto`: a PrometheusRule
    # per type where the cluster serves monitoring.coreos.com/v1 (in alerts_rule_namespace, unset:
    # NuFi's own, else "default"; labelled with alerts_rule_labels for the Prometheus' ruleSelector),
    # else one file per type in alerts_rules_dir, after which Prometheus is asked to reload unless
    # alerts_reload is false (a config reloader does it), else one key per type in the ConfigMap
    # alerts_configmap (in alerts_rule_namespace), which a Prometheus in the cluster mounts. NuFi
    # converges them every alerts_sync_seconds and at once on every change. alertmanager_url is shown
    # to operators; alerts are read from Prometheus.
    alerts_target: Literal["auto", "prometheusrule", "file", "configmap", "off"] = "auto"
    alerts_rules_dir: Path | None = None
    alerts_configmap: str | None = Field(
        default=None, pattern=r"^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$", max_length=253
    )
    alerts_reload: bool = True
    alerts_rule_namespace: str | None = Field(default=None, pattern=r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
    alerts_rule_labels: dict[str, str] = Field(default_factory=lambda: {"app.kubernetes.io/part-of": "nufi"})
    alerts_sync_seconds: float = Field(default=30.0, ge=1, le=3600)
    alertmanager_url: str | None = Field(default=None, pattern=r"^https?://[^/?#]+(/[^?#]*)?$")

    # Projects (docs/workloads.md): the ClusterRole each new project namespace binds NuFi's own
    # ServiceAccount to, so NuFi may manage the workloads there (empty: bind nothing, e.g. when NuFi's
    # credentials already reach every namespace), and that ServiceAccount as `<namespace>/<name>`
    # (unset: read from the pod's token; with a kubeconfig there is none, and nothing is bound).
    project_role: str = Field(default="nufi-workload-manager", max_length=253)
    project_service_account: str | None = Field(default=None, pattern=r"^[a-z0-9.-]+/[a-z0-9.-]+$")
    # The quota every new project starts with (docs/workloads.md, "Quotas"): devices per device type
    # id as JSON (`{"lpu": 4}`), storage as a quantity (`100Gi`), pods; unset: no limit of that kind.
    project_default_quota_devices: dict[str, Annotated[int, Field(ge=0, le=1_000_000)]] = Field(
        default_factory=dict
    )
    project_default_quota_storage: str | None = Field(
        default=None, pattern=r"^[0-9]+(\.[0-9]+)?(Ki|Mi|Gi|Ti|Pi|Ei|k|M|G|T|P|E)?$"
    )
    project_default_quota_pods: int | None = Field(default=None, ge=0, le=1_000_000)
    # Workload changes interrupted by a crash (docs/workloads.md, "What survives a crash"): an intent
    # older than NUFI_INTENT_SETTLE_AFTER_SECONDS is no request's any more and is settled from what the
    # cluster shows; every replica looks every NUFI_INTENT_RECONCILE_INTERVAL_SECONDS, and at start.
    intent_settle_after_seconds: float = Field(default=120.0, ge=0, le=86400)
    intent_reconcile_interval_seconds: float = Field(default=30.0, gt=0, le=3600)
    # Each replica renews a lease every third of NUFI_INTENT_LEASE_SECONDS; the intents of a replica
    # whose lease ran out (killed, or shut down) are settled at once, not after the age above.
    intent_lease_seconds: float = Field(default=20.0, gt=0, le=3600)

    # What the dashboard's deployment form starts with (docs/dashboard.md): an image and its arguments
    # (NUFI_DEPLOYMENT_DEFAULT_ARGS is a JSON list). The API itself always asks for an image.
    deployment_default_image: str | None = Field(default=None, min_length=1)
    deployment_default_args: list[str] = Field(default_factory=list)

    # Labs (docs/workloads.md, "Labs"): the image a lab of each kind runs when its request names none,
    lab_jupyter_image: str = Field(default="quay.io/jupyter/base-notebook:latest", min_length=1)
    lab_vscode_image: str = Field(default="codercom/code-server:latest", min_length=1)
    # and how the lab proxy reaches a lab's Service: through the Kubernetes API's services proxy
    # (from outside the cluster, with NuFi's own Kubernetes credentials), by the Service's DNS name
    # (inside it), or `auto`: cluster-dns when NuFi runs in a pod with a service account.
    lab_route: Literal["auto", "service-proxy", "cluster-dns"] = "auto"
    # The base URL cluster-dns opens for a Service; `{service}`, `{namespace}` and `{port}` are filled in.
    # Change it for a cluster whose DNS domain is not the default.
    lab_cluster_dns_url: str = Field(
        default="http://{service}.{namespace}.svc:{port}", pattern=r"^https?://[^/?#]+$"
    )
    # A lab that does not answer the proxy's connection within this long is a 502.
    lab_proxy_connect_timeout_seconds: float = Field(default=10.0, gt=0, le=300)
    # An open lab WebSocket asks this often whether its caller may still use it (session, membership,
    # the lab), so one whose right ended on another replica, or expired, closes within this long.
    lab_socket_check_seconds: float = Field(default=5.0, gt=0, le=300)
    # A running lab's activity (its last use, from its own server) is read when a page or the API shows
    # it, each read bounded by the timeout, and kept this long before it is read again.
    lab_activity_cache_seconds: float = Field(default=15.0, gt=0, le=3600)
    lab_activity_timeout_seconds: float = Field(default=2.0, gt=0, le=60)
    # The domain every lab gets a host of its own under, as browsers reach it (docs/install.md, "Lab
    # base domain"): `labs.example.com` with a wildcard DNS record and certificate, or `localhost:<port>`
    # on a workstation; the scheme is NUFI_DASHBOARD_PUBLIC_URL's. Unset, no lab opens in a browser.
    lab_base_domain: str | None = Field(
        default=None,
        pattern=r"^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*(:[0-9]{1,5})?$",
        max_length=253,
    )

    git_commit: str | None = None

    @field_validator(
        "kube_context",
        "prometheus_url",
        "prometheus_username",
        "oidc_issuer",
        "oidc_audience",
        "oidc_client_id",
        "oidc_role_client",
        "git_commit",
        "lab_base_domain",
        mode="before",
    )
    @classmethod
    def _blank_is_unset(cls, value: object) -> object:
        if isinstance(value, str) and not value.strip():
            return None
        return value.strip() if isinstance(value, str) else value

    @field_validator("kubeconfig", mode="before")
    @classmethod
    def _blank_path_is_unset(cls, value: object) -> object:
        if isinstance(value, str) and not value.strip():
            return None
        return value

    @field_validator("prometheus_url")
    @classmethod
    def _prometheus_url(cls, value: str | None) -> str | None:
        if value is None:
            return None
        require_http_url(value, example="http://prometheus:9090")
        parts = urlsplit(value)
        if parts.username is not None or parts.password is not None:
            raise ValueError(
                "must not contain credentials; set NUFI_PROMETHEUS_USERNAME and NUFI_PROMETHEUS_PASSWORD "
                "(or NUFI_PROMETHEUS_BEARER_TOKEN) instead"
            )
        return value.rstrip("/")

    @field_validator("oidc_issuer")
    @classmethod
    def _issuer_url(cls, value: str | None) -> str | None:
        # Kept verbatim: tokens are checked against the exact issuer string.
        if value is not None:
            require_http_url(value, example="https://keycloak.example.com/realms/super-llm")
        return value

    @model_validator(mode="after")
    def _public_url_off_loopback(self) -> Settings:
        # A Host header is the client's to choose: off loopback it must not decide where the issuer
        # sends codes, nor whether cookies are Secure.
        signing_in = self.dashboard_session_secret is not None
        if signing_in and self.dashboard_public_url is None and not is_loopback_address(self.host):
            raise ValueError(
                f"NUFI_DASHBOARD_PUBLIC_URL is required when NuFi listens on {self.host} (not a loopback "
                "address) with dashboard sign-in configured: set it to the dashboard's address as "
                "browsers reach it, e.g. https://nufi.example.com"
            )
        return self

    @field_validator("log_format", "log_level", mode="before")
    @classmethod
    def _lowercase(cls, value: object) -> object:
        return value.strip().lower() if isinstance(value, str) else value

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        file_source = settings_file_source(settings_cls)
        if file_source is None:
            return (init_settings, env_settings)
        return (init_settings, env_settings, file_source)

    def redacted(self) -> dict[str, Any]:
        """The settings as a dict fit for a log line: secrets masked, credentials in URLs hidden."""
        view = self.model_dump(mode="json", exclude=set(_SECRET_FIELDS))
        view["database_url"] = hide_url_password(self.database_url.get_secret_value())
        for name in _SECRET_FIELDS - {"database_url"}:
            view[name] = MASK if getattr(self, name) is not None else None
        return view


def settings_part(settings: Settings, prefix: str, fields: Iterable[str], **renamed: str) -> dict[str, Any]:
    """One part's own settings as keyword arguments: each of `fields` that has a setting, read from the
    setting `prefix + field` or from the one `renamed` names for it; the others keep their defaults."""
    names = {field: renamed.get(field, prefix + field) for field in fields}
    return {field: getattr(settings, name) for field, name in names.items() if name in Settings.model_fields}


def env_name(field: str) -> str:
    """The environment variable that sets a settings field."""
    return f"{ENV_PREFIX}{field.upper()}"


def load_settings(**overrides: Any) -> Settings:
    """Settings from the environment and settings file, with `overrides` on top.

    Raises ValidationFailed naming the environment variable at fault, and never echoing a secret.
    """
    try:
        return Settings(**overrides)
    except ValidationError as exc:
        raise _as_validation_failed(exc) from None


def _as_validation_failed(exc: ValidationError) -> ValidationFailed:
    problems: list[str] = []
    first_field: str | None = None
    for error in exc.errors():
        field = str(error["loc"][0]) if error["loc"] else "settings"
        name = env_name(field) if field in Settings.model_fields else field
        first_field = first_field or name
        message = f"{name}: {error['msg']}" if error["loc"] else str(error["msg"])
        # A check across settings gets all of them as its input: never echoed (secrets among them).
        if error["loc"] and field not in _SECRET_FIELDS and error["type"] != "missing" and "input" in error:
            shown = error["input"]
            if isinstance(shown, str):
                shown = hide_url_password(shown)
            message += f" (got {shown!r})"
        problems.append(message)
    # Settings are read at start-up, by an operator: each problem keeps pydantic's English words.
    return ValidationFailed(code="config.invalid", field=first_field, params={"problems": problems})
