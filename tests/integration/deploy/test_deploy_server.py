"""The NuFi server's Deployment, Service, PodDisruptionBudget and settings, as rendered for a cluster."""

from __future__ import annotations

import base64
import os

import pytest
from pydantic import SecretStr

from nufi.config import ENV_PREFIX, Settings

from .deploy_manifests import Manifest, Rendered, env_by_name, labels_match

# Settings that carry credentials (typed SecretStr in the server): they must come from a Secret.
SECRET_SETTINGS = {
    f"{ENV_PREFIX}{name.upper()}"
    for name, field in Settings.model_fields.items()
    if SecretStr in (field.annotation, *getattr(field.annotation, "__args__", ()))
}


def _config_map(overlay: Rendered) -> Manifest:
    name = overlay.container["envFrom"][0]["configMapRef"]["name"]
    found = overlay.find("ConfigMap", name, overlay.namespace)
    assert found is not None, f"{overlay.name}: the pod reads ConfigMap {name}, which is not rendered"
    return found


def test_two_replicas_roll_without_losing_capacity(overlay: Rendered) -> None:
    spec = overlay.server["spec"]
    assert spec["replicas"] == 2
    assert spec["strategy"]["type"] == "RollingUpdate"
    assert spec["strategy"]["rollingUpdate"]["maxUnavailable"] == 0


def test_replicas_prefer_different_nodes(overlay: Rendered) -> None:
    anti = overlay.pod_spec["affinity"]["podAntiAffinity"]
    assert "requiredDuringSchedulingIgnoredDuringExecution" not in anti, "must still fit on one node"
    (term,) = anti["preferredDuringSchedulingIgnoredDuringExecution"]
    assert term["podAffinityTerm"]["topologyKey"] == "kubernetes.io/hostname"
    pod_labels = overlay.server["spec"]["template"]["metadata"]["labels"]
    assert labels_match(term["podAffinityTerm"]["labelSelector"]["matchLabels"], pod_labels)


def test_probes_use_healthz_for_liveness_and_readyz_for_readiness(overlay: Rendered) -> None:
    container = overlay.container
    assert container["livenessProbe"]["httpGet"] == {"path": "/healthz", "port": "http"}
    assert container["readinessProbe"]["httpGet"] == {"path": "/readyz", "port": "http"}
    # Migrations run before the server listens; the startup probe must allow for them.
    startup = container["startupProbe"]
    assert startup["httpGet"]["path"] == "/healthz"
    assert startup["periodSeconds"] * startup["failureThreshold"] >= 60
    # Readiness checks of the server time out after 2 s each.
    assert container["readinessProbe"]["timeoutSeconds"] > 2


def test_the_probed_port_is_the_one_the_server_binds(overlay: Rendered) -> None:
    container = overlay.container
    (port,) = container["ports"]
    assert port == {"name": "http", "containerPort": 8080, "protocol": "TCP"}
    args = container["args"]
    assert args[0] == "serve"
    assert args[args.index("--port") + 1] == "8080"
    # The server's default host is loopback; in a pod it must listen on every interface.
    assert args[args.index("--host") + 1] == "0.0.0.0"


def test_the_pod_meets_the_restricted_pod_security_profile(overlay: Rendered) -> None:
    pod = overlay.pod_spec["securityContext"]
    assert pod["runAsNonRoot"] is True
    assert pod["runAsUser"] != 0
    assert pod["seccompProfile"]["type"] == "RuntimeDefault"
    container = overlay.container["securityContext"]
    assert container["allowPrivilegeEscalation"] is False
    assert container["readOnlyRootFilesystem"] is True
    assert container["capabilities"]["drop"] == ["ALL"]
    namespace = overlay.find("Namespace", overlay.namespace, None)
    assert namespace is not None
    assert namespace["metadata"]["labels"]["pod-security.kubernetes.io/enforce"] == "restricted"


def test_tmp_is_the_only_writable_path(overlay: Rendered) -> None:
    mounts = {m["mountPath"]: m["name"] for m in overlay.container["volumeMounts"]}
    assert mounts == {"/tmp": "tmp"}
    volumes = {v["name"]: v for v in overlay.pod_spec["volumes"]}
    assert "emptyDir" in volumes["tmp"]


def test_resources_are_requested_and_memory_is_bounded(overlay: Rendered) -> None:
    resources = overlay.container["resources"]
    assert {"cpu", "memory"} <= set(resources["requests"])
    assert "memory" in resources["limits"]


def test_the_pod_runs_as_the_rendered_service_account(overlay: Rendered) -> None:
    name = overlay.pod_spec["serviceAccountName"]
    assert overlay.find("ServiceAccount", name, overlay.namespace) is not None
    # In-cluster configuration needs the token mounted.
    assert overlay.pod_spec.get("automountServiceAccountToken", True) is True


def test_prometheus_scrape_annotations_point_at_metrics(overlay: Rendered) -> None:
    annotations = overlay.server["spec"]["template"]["metadata"]["annotations"]
    assert annotations["prometheus.io/scrape"] == "true"
    assert annotations["prometheus.io/port"] == "8080"
    assert annotations["prometheus.io/path"] == "/metrics"


def test_the_image_is_pinned_to_a_tag(overlay: Rendered) -> None:
    image: str = overlay.container["image"]
    name, _, tag = image.rpartition(":")
    assert name and "/" in name, f"{image}: expected a registry path"
    assert tag and tag != "latest"


def test_the_database_url_comes_from_a_secret(overlay: Rendered) -> None:
    env = env_by_name(overlay.container)
    ref = env["NUFI_DATABASE_URL"]["valueFrom"]["secretKeyRef"]
    assert ref.get("optional", False) is False, "NuFi must not start without its database"
    assert ref["key"] == "database-url"
    client_secret = env["NUFI_OIDC_CLIENT_SECRET"]["valueFrom"]["secretKeyRef"]
    assert client_secret["name"] == ref["name"]
    assert client_secret["optional"] is True


def test_no_secret_setting_is_in_the_config_map(overlay: Rendered) -> None:
    assert "NUFI_DATABASE_URL" in SECRET_SETTINGS and "NUFI_OIDC_CLIENT_SECRET" in SECRET_SETTINGS
    data = _config_map(overlay)["data"]
    assert not SECRET_SETTINGS & set(data)
    for key, value in data.items():
        assert "://" not in value or "@" not in value, f"{key} looks like a URL with credentials"


def test_every_setting_is_one_nufi_knows(overlay: Rendered) -> None:
    # An unknown NUFI_* name would be ignored silently (or break a settings file): catch typos here.
    known = {f"{ENV_PREFIX}{field.upper()}" for field in Settings.model_fields}
    names = set(_config_map(overlay)["data"]) | set(env_by_name(overlay.container))
    assert names, "no settings rendered"
    assert names <= known, f"unknown settings: {sorted(names - known)}"
    # In a pod NuFi uses its service account: a kubeconfig setting would override that.
    assert "NUFI_KUBECONFIG" not in names


def test_the_config_map_is_accepted_by_nufis_settings(
    overlay: Rendered, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Values go through the server's own validators (URLs, log format, ...), as they would at start.
    for name in list(os.environ):
        if name.startswith(ENV_PREFIX):
            monkeypatch.delenv(name)
    data = _config_map(overlay)["data"]
    fields = {name.removeprefix(ENV_PREFIX).lower(): value for name, value in data.items()}
    settings = Settings(**fields, database_url=SecretStr("postgresql+asyncpg://nufi:pw@db:5432/nufi"))
    assert settings.log_format == "json"
    assert settings.oidc_issuer is not None and settings.oidc_issuer.endswith("/realms/super-llm")
    assert settings.oidc_audience == "nufi"
    assert settings.prometheus_url is not None
    assert settings.admin_role == "nufi-admin"


def test_production_expects_an_existing_secret(production: Rendered) -> None:
    env = env_by_name(production.container)
    assert env["NUFI_DATABASE_URL"]["valueFrom"]["secretKeyRef"]["name"] == "nufi-secrets"
    assert production.of_kind("Secret") == [], "production must not ship credentials"


def test_the_example_generates_the_secret_the_pod_reads(example: Rendered) -> None:
    env = env_by_name(example.container)
    name = env["NUFI_DATABASE_URL"]["valueFrom"]["secretKeyRef"]["name"]
    secret = example.find("Secret", name, example.namespace)
    assert secret is not None, f"the pod reads Secret {name}, which is not rendered"
    url = base64.b64decode(secret["data"]["database-url"]).decode()
    assert url.startswith("postgresql+asyncpg://")
    assert "oidc-client-secret" in secret["data"]
    assert env["NUFI_DASHBOARD_SESSION_SECRET"]["valueFrom"]["secretKeyRef"] == {
        "name": name,
        "key": "dashboard-session-secret",
        "optional": True,
    }
    assert len(base64.b64decode(secret["data"]["dashboard-session-secret"])) >= 16


def test_the_ingress_keeps_a_browser_on_its_replica(example: Rendered) -> None:
    (ingress,) = example.of_kind("Ingress")
    annotations = ingress["metadata"]["annotations"]
    assert annotations["nginx.ingress.kubernetes.io/affinity"] == "cookie"
    assert annotations["nginx.ingress.kubernetes.io/session-cookie-name"] == "nufi-route"


def test_the_service_reaches_the_pods_on_the_named_port(overlay: Rendered) -> None:
    service = overlay.one("Service", "nufi")
    assert service["spec"]["type"] == "ClusterIP"
    (port,) = service["spec"]["ports"]
    assert (port["port"], port["targetPort"]) == (8080, "http")
    pod_labels = overlay.server["spec"]["template"]["metadata"]["labels"]
    assert labels_match(service["spec"]["selector"], pod_labels)


def test_the_disruption_budget_keeps_one_replica(overlay: Rendered) -> None:
    budget = overlay.one("PodDisruptionBudget", "nufi")
    assert budget["spec"]["minAvailable"] == 1
    pod_labels = overlay.server["spec"]["template"]["metadata"]["labels"]
    assert labels_match(budget["spec"]["selector"]["matchLabels"], pod_labels)


def test_the_example_ingress_routes_to_the_service(example: Rendered) -> None:
    ingress = example.one("Ingress", "nufi")
    assert ingress["metadata"]["namespace"] == example.namespace
    backend = ingress["spec"]["rules"][0]["http"]["paths"][0]["backend"]["service"]
    assert backend == {"name": "nufi", "port": {"name": "http"}}


def test_namespaced_objects_land_in_nufis_namespace(overlay: Rendered) -> None:
    cluster_scoped = {"Namespace", "ClusterRole", "ClusterRoleBinding"}
    for obj in overlay.objects:
        namespace = obj["metadata"].get("namespace")
        if obj["kind"] in cluster_scoped:
            assert namespace is None, f"{obj['kind']} {obj['metadata']['name']} is cluster-scoped"
        elif obj["kind"] == "RoleBinding" and obj["metadata"]["name"] == "nufi-workload-manager":
            assert namespace not in (None, overlay.namespace), "workload bindings live in workload namespaces"
        else:
            assert namespace == overlay.namespace, f"{obj['kind']} {obj['metadata']['name']} in {namespace}"
