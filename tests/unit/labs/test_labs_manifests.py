"""The objects a lab is made of, built from a plan: exact shapes for both backends and both kinds."""

from __future__ import annotations

import string

import pytest
from hypothesis import given
from hypothesis import strategies as st

from nufi.errors import ValidationFailed
from nufi.workloads.accelerators import Placement
from nufi.workloads.labs import manifests
from nufi.workloads.labs.model import PROFILES, LabKind
from nufi.workloads.labs.service import _check_lab_name

LPU = "hyperaccel.ai/lpu"
LABELS = {
    "app.kubernetes.io/managed-by": "nufi",
    "nufi.io/project": "team",
    "nufi.io/workload": "nb",
    "nufi.io/workload-kind": "lab",
    "nufi.io/device-type": "lpu",
}
TOLERATION = {"key": LPU, "operator": "Exists", "effect": "NoSchedule"}
# code-server as production runs it (docs/workloads.md): no sign-in of its own, nothing calling out.
CODE_SERVER_ARGS = [
    "--auth",
    "none",
    "--disable-telemetry",
    "--disable-update-check",
    "--disable-workspace-trust",
    "--disable-getting-started-override",
]
GALLERY_OFF = {"name": "EXTENSIONS_GALLERY", "value": '{"serviceUrl": ""}'}


ORIGIN = "https://nb--team.labs.example.com"


def plan(kind: LabKind = "jupyter", *, placed: bool = False) -> manifests.LabPlan:
    placement = Placement(
        "lpu",
        LPU,
        2,
        node_selector={"hyperaccel.ai/lpu.present": "true"} if placed else {},
        tolerations=[TOLERATION] if placed else [],
    )
    return manifests.LabPlan("team", "nb", kind, "img:1", 20, placement, PROFILES[kind], ORIGIN)


def test_a_statefulset_lab_is_exactly_this() -> None:
    assert manifests.statefulset(plan()) == {
        "apiVersion": "apps/v1",
        "kind": "StatefulSet",
        "metadata": {
            "name": "nb",
            "labels": LABELS,
            "annotations": {"nufi.io/lab-kind": "jupyter", "nufi.io/storage-gib": "20"},
        },
        "spec": {
            "replicas": 1,
            "serviceName": "nb",
            "selector": {"matchLabels": {"nufi.io/workload": "nb", "nufi.io/workload-kind": "lab"}},
            "template": {
                "metadata": {
                    "labels": LABELS,
                    "annotations": {"nufi.io/lab-kind": "jupyter", "nufi.io/storage-gib": "20"},
                },
                "spec": {
                    "containers": [
                        {
                            "name": "nb",
                            "image": "img:1",
                            "args": [
                                "start-notebook.py",
                                "--ServerApp.base_url=$(NB_PREFIX)",
                                "--ServerApp.token=",
                                "--ServerApp.password=",
                                "--ServerApp.port=8888",
                                "--ServerApp.ip=0.0.0.0",
                                f"--ServerApp.allow_origin={ORIGIN}",
                            ],
                            "ports": [{"name": "notebook-port", "containerPort": 8888, "protocol": "TCP"}],
                            "workingDir": "/home/jovyan",
                            "resources": {"limits": {LPU: "2"}, "requests": {LPU: "2"}},
                            "volumeMounts": [{"name": "home", "mountPath": "/home/jovyan"}],
                            "readinessProbe": {
                                "httpGet": {"path": "/labs/team/nb/api", "port": "notebook-port"},
                                "periodSeconds": 5,
                                "failureThreshold": 3,
                            },
                            "env": [{"name": "NB_PREFIX", "value": "/labs/team/nb/"}],
                        }
                    ],
                    "securityContext": {"fsGroup": 100},
                    "volumes": [{"name": "home", "persistentVolumeClaim": {"claimName": "nb-home"}}],
                },
            },
        },
    }


def test_the_claim_and_the_service() -> None:
    assert manifests.claim(plan()) == {
        "apiVersion": "v1",
        "kind": "PersistentVolumeClaim",
        "metadata": {
            "name": "nb-home",
            "labels": LABELS,
            "annotations": {"nufi.io/lab-kind": "jupyter", "nufi.io/storage-gib": "20"},
        },
        "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "20Gi"}}},
    }
    service = manifests.service(plan())
    assert service["spec"] == {
        "type": "ClusterIP",
        "selector": {"nufi.io/workload": "nb", "nufi.io/workload-kind": "lab"},
        "ports": [{"name": "http-nb", "port": 80, "targetPort": "notebook-port", "protocol": "TCP"}],
    }
    assert service["metadata"]["labels"] == LABELS


def test_a_placement_with_a_node_selector_and_tolerations_carries_them_to_the_pod() -> None:
    for spec in (
        manifests.statefulset(plan(placed=True))["spec"]["template"]["spec"],
        manifests.notebook(plan(placed=True))["spec"]["template"]["spec"],
    ):
        assert spec["nodeSelector"] == {"hyperaccel.ai/lpu.present": "true"}
        assert spec["tolerations"] == [TOLERATION]
    spec = manifests.statefulset(plan())["spec"]["template"]["spec"]
    assert "nodeSelector" not in spec and "tolerations" not in spec


def test_a_notebook_leaves_nb_prefix_to_its_controller() -> None:
    notebook = manifests.notebook(plan())
    assert notebook["apiVersion"] == "kubeflow.org/v1" and notebook["kind"] == "Notebook"
    assert notebook["metadata"]["labels"] == LABELS
    (container,) = notebook["spec"]["template"]["spec"]["containers"]
    assert "env" not in container
    assert container["readinessProbe"]["httpGet"]["path"] == "/notebook/team/nb/api"
    assert set(notebook["spec"]["template"]) == {"spec"}  # a PodSpec only, no metadata


def test_vscode_serves_at_the_root_and_asks_the_notebook_controller_to_rewrite() -> None:
    (container,) = manifests.statefulset(plan("vscode"))["spec"]["template"]["spec"]["containers"]
    assert container["ports"][0]["containerPort"] == 8080
    assert container["readinessProbe"]["httpGet"]["path"] == "/healthz"
    assert container["args"] == ["--bind-addr", "0.0.0.0:8080", *CODE_SERVER_ARGS, "/home/coder"]
    assert container["env"] == [GALLERY_OFF, {"name": "NB_PREFIX", "value": "/labs/team/nb/"}]
    notebook = manifests.notebook(plan("vscode"))
    # The Notebook controller sets NB_PREFIX; the gallery stays off there too.
    assert notebook["spec"]["template"]["spec"]["containers"][0]["env"] == [GALLERY_OFF]
    assert notebook["metadata"]["annotations"]["notebooks.kubeflow.org/http-rewrite-uri"] == "/"
    assert (
        "notebooks.kubeflow.org/http-rewrite-uri" not in manifests.notebook(plan())["metadata"]["annotations"]
    )


_LABEL_CHARS = string.ascii_lowercase + string.digits + "-"


@given(st.text(alphabet=_LABEL_CHARS, min_size=1, max_size=60))
def test_lab_names_are_short_dns_labels_starting_with_a_letter(name: str) -> None:
    valid = len(name) <= 52 and name[0] in string.ascii_lowercase and not name.endswith("-")
    if valid:
        assert _check_lab_name(name) == name
    else:
        with pytest.raises(ValidationFailed) as refused:
            _check_lab_name(name)
        assert refused.value.field == "name"


@given(st.text(min_size=1, max_size=10).filter(lambda s: any(c not in _LABEL_CHARS for c in s)))
def test_anything_else_is_refused_naming_the_field(name: str) -> None:
    with pytest.raises(ValidationFailed) as refused:
        _check_lab_name(name)
    assert refused.value.field == "name"


def test_jupyter_takes_sockets_from_the_lab_s_own_origin_only() -> None:
    args = PROFILES["jupyter"].args(ORIGIN)
    assert [a for a in args if "allow_origin" in a] == [f"--ServerApp.allow_origin={ORIGIN}"]
    # No lab base domain: no browser reaches the lab, and Jupyter keeps its same-origin default.
    assert not [a for a in PROFILES["jupyter"].args() if "allow_origin" in a]
    assert not [a for a in PROFILES["vscode"].args(ORIGIN) if "origin" in a]
