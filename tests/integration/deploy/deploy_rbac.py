"""What a ServiceAccount may do, computed from rendered RBAC objects as the API server would."""

from __future__ import annotations

from dataclasses import dataclass

from .deploy_manifests import Manifest, Rendered

CLUSTER_WIDE = "*cluster*"


@dataclass(frozen=True, order=True)
class Grant:
    """One verb on one resource of one API group, cluster-wide or in one namespace."""

    scope: str  # a namespace, or CLUSTER_WIDE
    api_group: str
    resource: str
    verb: str
    name: str = ""  # one of the rule's resourceNames; "" when the rule names none (every object)


def grants_of(rendered: Rendered, account: str, namespace: str) -> set[Grant]:
    """Every grant reaching ServiceAccount `namespace/account` through the rendered bindings.

    A ClusterRoleBinding grants its ClusterRole everywhere; a RoleBinding grants its Role or
    ClusterRole in the binding's namespace only. Roles that are not rendered grant nothing.
    """
    granted: set[Grant] = set()
    for binding in rendered.of_kind("ClusterRoleBinding") + rendered.of_kind("RoleBinding"):
        if not _binds(binding, account, namespace):
            continue
        scope = CLUSTER_WIDE if binding["kind"] == "ClusterRoleBinding" else binding["metadata"]["namespace"]
        role = _role(rendered, binding)
        for rule in role.get("rules", []):
            assert "nonResourceURLs" not in rule, "NuFi needs no non-resource URLs"
            for group in rule["apiGroups"]:
                for resource in rule["resources"]:
                    for verb in rule["verbs"]:
                        for name in rule.get("resourceNames") or [""]:
                            granted.add(Grant(scope, group, resource, verb, name))
    return granted


def rules_of_roles(rendered: Rendered) -> list[tuple[str, Manifest]]:
    """(role name, rule) for every rule of every rendered Role and ClusterRole."""
    return [
        (role["metadata"]["name"], rule)
        for role in rendered.of_kind("ClusterRole") + rendered.of_kind("Role")
        for rule in role.get("rules", [])
    ]


def _binds(binding: Manifest, account: str, namespace: str) -> bool:
    return any(
        subject["kind"] == "ServiceAccount"
        and subject["name"] == account
        and subject.get("namespace") == namespace
        for subject in binding.get("subjects", [])
    )


def _role(rendered: Rendered, binding: Manifest) -> Manifest:
    ref = binding["roleRef"]
    assert ref["apiGroup"] == "rbac.authorization.k8s.io"
    role_namespace = None if ref["kind"] == "ClusterRole" else binding["metadata"]["namespace"]
    role = rendered.find(ref["kind"], ref["name"], role_namespace)
    assert role is not None, (
        f"binding {binding['metadata']['name']} refers to a missing {ref['kind']} {ref['name']}"
    )
    return role
