"""NuFi's ServiceAccount gets exactly the permissions it needs, and no more."""

from __future__ import annotations

from collections.abc import Sequence

from .deploy_manifests import KUSTOMIZE_DIR, Rendered
from .deploy_rbac import CLUSTER_WIDE, Grant, grants_of, rules_of_roles

READ = ("get", "list", "watch")
MANAGE = ("create", "get", "list", "watch", "update", "patch", "delete")


def _expand(scope: str, table: Sequence[tuple[str, str, tuple[str, ...]]]) -> set[Grant]:
    return {Grant(scope, group, resource, verb) for group, resource, verbs in table for verb in verbs}


# Thermal control also taints hot nodes and records Events on nodes and pods.
# Admin → Projects lists NuFi's quotas of every project at once.
CLUSTER = [
    ("", "nodes", (*READ, "patch")),
    ("", "pods", READ),
    ("", "events", ("create",)),
    ("", "resourcequotas", ("list",)),
]
# Projects: their namespaces, and the one RoleBinding per project granting NuFi the workload role.
PROJECTS = [
    ("", "namespaces", MANAGE),
    ("rbac.authorization.k8s.io", "rolebindings", ("create", "get", "delete")),
]
WORKLOAD_ROLE = "nufi-workload-manager"
BIND_THE_WORKLOAD_ROLE = Grant(
    CLUSTER_WIDE, "rbac.authorization.k8s.io", "clusterroles", "bind", WORKLOAD_ROLE
)
WORKLOADS = [
    ("apps", "deployments", MANAGE),
    ("apps", "statefulsets", MANAGE),
    ("", "services", MANAGE),
    ("", "persistentvolumeclaims", MANAGE),
    ("", "pods", ("patch",)),
    ("discovery.k8s.io", "endpointslices", READ),
    ("kubeflow.org", "notebooks", MANAGE),
    ("", "resourcequotas", MANAGE),
]
LEADER_ELECTION = [("coordination.k8s.io", "leases", ("get", "create", "update"))]
# Alert rules as PrometheusRules in NuFi's own namespace, where the Prometheus Operator is installed.
ALERT_RULES = [("monitoring.coreos.com", "prometheusrules", ("list", "create", "patch", "delete"))]


def _workload_namespaces(overlay: Rendered) -> set[str]:
    return {
        binding["metadata"]["namespace"]
        for binding in overlay.of_kind("RoleBinding")
        if binding["roleRef"]["name"] == "nufi-workload-manager"
    }


def _account(overlay: Rendered) -> tuple[str, str]:
    return overlay.pod_spec["serviceAccountName"], overlay.namespace


def test_the_service_account_gets_exactly_what_nufi_needs(overlay: Rendered) -> None:
    account, namespace = _account(overlay)
    workload_namespaces = _workload_namespaces(overlay)
    assert workload_namespaces, "no workload namespace is bound"
    expected = (
        _expand(CLUSTER_WIDE, CLUSTER)
        | _expand(CLUSTER_WIDE, PROJECTS)
        | _expand(namespace, LEADER_ELECTION)
        | _expand(namespace, ALERT_RULES)
    )
    expected.add(BIND_THE_WORKLOAD_ROLE)
    for workload_namespace in workload_namespaces:
        expected |= _expand(workload_namespace, WORKLOADS)
    actual = grants_of(overlay, account, namespace)
    assert actual - expected == set(), f"more than needed: {sorted(actual - expected)}"
    assert expected - actual == set(), f"missing: {sorted(expected - actual)}"


def test_production_and_example_bind_their_workload_namespaces(
    production: Rendered, example: Rendered
) -> None:
    assert _workload_namespaces(production) == {"nufi-workloads"}
    assert _workload_namespaces(example) == {"nufi-workloads", "team-a"}


def test_serving_pods_can_be_relabelled_but_not_created_replaced_or_deleted(overlay: Rendered) -> None:
    account, namespace = _account(overlay)
    granted = grants_of(overlay, account, namespace)
    pod_writes = {g for g in granted if g.resource.startswith("pods") and g.verb not in READ}
    assert pod_writes == {Grant(ns, "", "pods", "patch") for ns in _workload_namespaces(overlay)}


def test_no_role_uses_wildcards_or_touches_secrets_and_rbac_only_to_bind_the_workload_role(
    overlay: Rendered,
) -> None:
    forbidden_verbs = {"*", "escalate", "impersonate"}
    for role, rule in rules_of_roles(overlay):
        assert "*" not in rule["apiGroups"], role
        assert "*" not in rule["resources"], role
        assert not any(r.endswith("/*") for r in rule["resources"]), role
        assert not forbidden_verbs & set(rule["verbs"]), role
        assert "secrets" not in rule["resources"], f"{role} grants access to secrets"
        if "rbac.authorization.k8s.io" in rule["apiGroups"]:
            # Only the project manager, and only its RoleBindings and the bind of the workload role.
            assert role == "nufi-project-manager", role
            assert rule["resources"] in (["rolebindings"], ["clusterroles"]), rule
            assert "update" not in rule["verbs"] and "patch" not in rule["verbs"], rule
        if "bind" in rule["verbs"]:
            assert rule["verbs"] == ["bind"] and rule.get("resourceNames") == [WORKLOAD_ROLE], rule
    account, namespace = _account(overlay)
    binds = {g for g in grants_of(overlay, account, namespace) if g.verb == "bind"}
    assert binds == {BIND_THE_WORKLOAD_ROLE}


def test_every_rbac_rule_is_explained() -> None:
    # Rendered objects lose comments, so read the sources.
    paths = sorted((KUSTOMIZE_DIR / "base").glob("rbac-*.yaml"))
    assert len(paths) == 5
    for path in sorted((KUSTOMIZE_DIR / "base").glob("rbac-*.yaml")):
        lines = path.read_text().splitlines()
        for index, line in enumerate(lines):
            if line.strip().startswith("- apiGroups:"):
                assert lines[index - 1].strip().startswith("#"), f"{path.name}:{index + 1} has no comment"


def test_bindings_name_the_rendered_service_account(overlay: Rendered) -> None:
    account, namespace = _account(overlay)
    for binding in overlay.of_kind("ClusterRoleBinding") + overlay.of_kind("RoleBinding"):
        for subject in binding["subjects"]:
            assert (subject["kind"], subject["name"], subject["namespace"]) == (
                "ServiceAccount",
                account,
                namespace,
            ), f"{binding['kind']} {binding['metadata']['name']} binds {subject}"
