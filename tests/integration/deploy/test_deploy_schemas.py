"""Every rendered object is valid for each Kubernetes release NuFi supports (offline JSON schemas)."""

from __future__ import annotations

import copy

import kubernetes_validate
import pytest
from kubernetes_validate.utils import all_versions
from packaging.version import Version

from .deploy_manifests import Rendered

SUPPORTED = ["1.30", "1.31", "1.32", "1.33", "1.34"]


def test_the_validator_ships_a_schema_for_every_supported_release() -> None:
    shipped = {f"{Version(v).major}.{Version(v).minor}" for v in all_versions()}
    missing = [release for release in SUPPORTED if release not in shipped]
    assert not missing, f"kubernetes-validate has no schemas for {missing}; upgrade it"


@pytest.mark.parametrize("release", SUPPORTED)
def test_every_object_is_valid_in_strict_mode(overlay: Rendered, release: str) -> None:
    assert overlay.objects, "the overlay rendered nothing"
    for obj in overlay.objects:
        name = f"{obj['kind']}/{obj['metadata']['name']}"
        try:
            checked = kubernetes_validate.validate(obj, release, strict=True)
        except kubernetes_validate.ValidationError as exc:
            pytest.fail(f"{overlay.name}: {name} is invalid for Kubernetes {release}: {exc.message}")
        # validate() silently falls back to an older schema set when one is missing.
        assert checked == release, f"{name} was checked against {checked}, not {release}"


@pytest.mark.parametrize("release", SUPPORTED)
def test_strict_mode_rejects_a_misspelled_field(production: Rendered, release: str) -> None:
    # Proves the check above has teeth: strict schemas forbid unknown fields, which plain ones allow.
    broken = copy.deepcopy(production.server)
    broken["spec"]["template"]["spec"]["containers"][0]["readinessProbe"]["httpGett"] = {"path": "/readyz"}
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(broken, release, strict=True)


def test_all_objects_belong_to_expected_kinds(production: Rendered, example: Rendered) -> None:
    expected = {
        "Namespace",
        "ServiceAccount",
        "ClusterRole",
        "ClusterRoleBinding",
        "Role",
        "RoleBinding",
        "ConfigMap",
        "Deployment",
        "Service",
        "PodDisruptionBudget",
    }
    assert {obj["kind"] for obj in production.objects} == expected
    # The example adds the generated Secret and the Ingress.
    assert {obj["kind"] for obj in example.objects} == expected | {"Secret", "Ingress"}
