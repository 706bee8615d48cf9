"""Objects are rejected with the causes and messages a real API server gives."""

from __future__ import annotations

import re
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from nufi_sandbox.devcluster.validation.objects import Cause, format_invalid_message, validate_object

from .validation_helpers import LPU, SUBDOMAIN_MESSAGE, fields, pod


def test_a_valid_pod_has_no_causes() -> None:
    gated = pod(
        readinessGates=[{"conditionType": "example.com/gpu-ready"}],
        volumes=[{"name": "data", "emptyDir": {}}],
        containers=[
            {
                "name": "main",
                "image": "nginx",
                "ports": [{"containerPort": 80}],
                "volumeMounts": [{"name": "data", "mountPath": "/data"}],
                "resources": {"requests": {"cpu": "500m", LPU: "1"}, "limits": {"cpu": "1", LPU: "1"}},
            }
        ],
    )
    assert validate_object("Pod", gated, namespaced=True) == []


def test_invalid_pod_name_message_is_the_real_one() -> None:
    bad = pod()
    bad["metadata"]["name"] = "Foo_Bar"
    assert validate_object("Pod", bad, True) == [
        Cause(reason="FieldValueInvalid", message=SUBDOMAIN_MESSAGE, field="metadata.name")
    ]


def test_name_or_generate_name_is_required() -> None:
    unnamed = pod()
    del unnamed["metadata"]["name"]
    assert fields(validate_object("Pod", unnamed, True)) == [
        ("metadata.name", "FieldValueRequired", "Required value: name or generateName is required")
    ]
    unnamed["metadata"]["generateName"] = "web-"
    assert validate_object("Pod", unnamed, True) == []
    unnamed["metadata"]["generateName"] = "Web-"
    assert [c["field"] for c in validate_object("Pod", unnamed, True)] == ["metadata.generateName"]


@pytest.mark.parametrize(
    ("kind", "name", "valid"),
    [
        ("Pod", "web.v1", True),
        ("Namespace", "web.v1", False),
        ("Namespace", "a" * 64, False),
        ("Namespace", "team-a", True),
        ("Service", "1web", False),
        ("Service", "web-1", True),
        ("ConfigMap", "my.config", True),
        ("Deployment", "a" * 254, False),
        ("Role", "system:controller", True),
        ("Role", "a/b", False),
    ],
)
def test_name_rules_per_kind(kind: str, name: str, valid: bool) -> None:
    causes = validate_object(kind, {"metadata": {"name": name}}, namespaced=False)
    assert (not [c for c in causes if c["field"] == "metadata.name"]) is valid


def test_service_names_are_dns_1035_labels() -> None:
    causes = validate_object(
        "Service", {"metadata": {"name": "1web", "namespace": "d"}, "spec": {"ports": [{"port": 80}]}}, True
    )
    assert causes[0]["message"].startswith('Invalid value: "1web": a DNS-1035 label must consist of')


def test_namespace_rules() -> None:
    assert fields(validate_object("ConfigMap", {"metadata": {"name": "c"}}, True)) == [
        ("metadata.namespace", "FieldValueRequired", "Required value")
    ]
    assert fields(validate_object("Node", {"metadata": {"name": "n", "namespace": "x"}}, False)) == [
        ("metadata.namespace", "FieldValueForbidden", "Forbidden: not allowed on this type")
    ]


def test_label_keys_and_values() -> None:
    bad = pod()
    bad["metadata"]["labels"] = {"bad key": "ok", "good": "-bad", "example.com/x": "y"}
    causes = validate_object("Pod", bad, True)
    assert [c["field"] for c in causes] == ["metadata.labels", "metadata.labels"]
    assert causes[0]["message"].startswith('Invalid value: "bad key": name part must consist of')
    assert causes[1]["message"].startswith('Invalid value: "-bad": a valid label must be an empty string')


def test_containers_are_required() -> None:
    assert fields(validate_object("Pod", pod(containers=[]), True)) == [
        ("spec.containers", "FieldValueRequired", "Required value")
    ]


def test_each_container_needs_a_label_name_and_an_image() -> None:
    causes = validate_object(
        "Pod",
        pod(
            containers=[
                {"image": "x"},
                {"name": "Main"},
                {"name": "b", "image": "y"},
                {"name": "b", "image": "z"},
            ]
        ),
        True,
    )
    assert [(c["field"], c["reason"]) for c in causes] == [
        ("spec.containers[0].name", "FieldValueRequired"),
        ("spec.containers[1].name", "FieldValueInvalid"),
        ("spec.containers[1].image", "FieldValueRequired"),
        ("spec.containers[3].name", "FieldValueDuplicate"),
    ]
    assert "a lowercase RFC 1123 label must consist of" in causes[1]["message"]
    assert causes[3]["message"] == 'Duplicate value: "b"'


# --- the rest of the pod spec -----------------------------------------------------------------


def test_readiness_gate_condition_type_must_be_a_qualified_name() -> None:
    causes = validate_object(
        "Pod", pod(readinessGates=[{"conditionType": "example.com/ok"}, {"conditionType": "bad gate"}]), True
    )
    assert [c["field"] for c in causes] == ["spec.readinessGates[1].conditionType"]
    assert causes[0]["message"].startswith('Invalid value: "bad gate": name part must consist of')


def test_policies_ports_and_mounts() -> None:
    container = {
        "name": "main",
        "image": "x",
        "imagePullPolicy": "Sometimes",
        "ports": [{"containerPort": 70000}, {}],
        "volumeMounts": [{"name": "missing", "mountPath": "/d"}, {"name": "data", "mountPath": "/d"}],
    }
    causes = validate_object(
        "Pod", pod(containers=[container], restartPolicy="Maybe", volumes=[{"name": "data"}]), True
    )
    assert fields(causes) == [
        (
            "spec.containers[0].ports[0].containerPort",
            "FieldValueInvalid",
            "Invalid value: 70000: must be between 1 and 65535, inclusive",
        ),
        ("spec.containers[0].ports[1].containerPort", "FieldValueRequired", "Required value"),
        ("spec.containers[0].volumeMounts[0].name", "FieldValueNotFound", 'Not found: "missing"'),
        (
            "spec.containers[0].volumeMounts[1].mountPath",
            "FieldValueInvalid",
            'Invalid value: "/d": must be unique',
        ),
        (
            "spec.containers[0].imagePullPolicy",
            "FieldValueNotSupported",
            'Unsupported value: "Sometimes": supported values: "Always", "IfNotPresent", "Never"',
        ),
        (
            "spec.restartPolicy",
            "FieldValueNotSupported",
            'Unsupported value: "Maybe": supported values: "Always", "OnFailure", "Never"',
        ),
    ]


def test_init_container_names_must_not_clash_with_containers() -> None:
    causes = validate_object("Pod", pod(initContainers=[{"name": "main", "image": "x"}]), True)
    assert fields(causes) == [
        ("spec.initContainers[0].name", "FieldValueDuplicate", 'Duplicate value: "main"')
    ]


# --- workloads --------------------------------------------------------------------------------


def deployment(template_spec: dict[str, Any], kind_fields: dict[str, Any] | None = None) -> dict[str, Any]:
    return {
        "metadata": {"name": "web", "namespace": "default"},
        "spec": {
            "selector": {"matchLabels": {"app": "web"}},
            "template": {"metadata": {"labels": {"app": "web"}}, "spec": template_spec},
            **(kind_fields or {}),
        },
    }


@pytest.mark.parametrize("kind", ["Deployment", "ReplicaSet", "StatefulSet", "DaemonSet"])
def test_pod_templates_are_validated_under_spec_template(kind: str) -> None:
    spec = {"containers": [{"name": "main", "image": "x", "resources": {"requests": {LPU: "1"}}}]}
    assert fields(validate_object(kind, deployment(spec), True)) == [
        (
            "spec.template.spec.containers[0].resources.limits",
            "FieldValueRequired",
            "Required value: Limit must be set for non overcommitable resources",
        )
    ]


def test_workload_templates_must_restart_always_and_jobs_must_not() -> None:
    never = {"containers": [{"name": "c", "image": "x"}], "restartPolicy": "Never"}
    assert fields(validate_object("Deployment", deployment(never), True)) == [
        (
            "spec.template.spec.restartPolicy",
            "FieldValueNotSupported",
            'Unsupported value: "Never": supported values: "Always"',
        )
    ]
    job = {
        "metadata": {"name": "j", "namespace": "d"},
        "spec": {"template": {"spec": {"containers": [{"name": "c", "image": "x"}]}}},
    }
    assert fields(validate_object("Job", job, True)) == [
        (
            "spec.template.spec.restartPolicy",
            "FieldValueNotSupported",
            'Unsupported value: "Always": supported values: "OnFailure", "Never"',
        )
    ]


def test_template_labels_and_replicas() -> None:
    bad = deployment({"containers": [{"name": "c", "image": "x"}]}, {"replicas": -1})
    bad["spec"]["template"]["metadata"]["labels"]["bad key"] = "x"
    assert [c["field"] for c in validate_object("Deployment", bad, True)] == [
        "spec.replicas",
        "spec.template.labels",
    ]


def test_service_ports() -> None:
    svc = {
        "metadata": {"name": "web", "namespace": "d"},
        "spec": {"ports": [{"port": 80}, {"port": 0, "name": "b"}]},
    }
    assert fields(validate_object("Service", svc, True)) == [
        ("spec.ports[0].name", "FieldValueRequired", "Required value"),
        (
            "spec.ports[1].port",
            "FieldValueInvalid",
            "Invalid value: 0: must be between 1 and 65535, inclusive",
        ),
    ]
    headless = {"metadata": {"name": "web", "namespace": "d"}, "spec": {"clusterIP": "None"}}
    assert validate_object("Service", headless, True) == []


# --- the top-level message --------------------------------------------------------------------


def test_invalid_message_with_one_and_several_causes() -> None:
    one = [Cause(reason="FieldValueRequired", message="Required value", field="spec.containers")]
    assert format_invalid_message("Pod", "x", one) == 'Pod "x" is invalid: spec.containers: Required value'
    two = [*one, Cause(reason="FieldValueInvalid", message='Invalid value: "A": bad', field="metadata.name")]
    assert format_invalid_message("Deployment", "web", two) == (
        'Deployment.apps "web" is invalid: '
        '[spec.containers: Required value, metadata.name: Invalid value: "A": bad]'
    )
    assert (
        format_invalid_message("Pod", "x", one + one) == 'Pod "x" is invalid: spec.containers: Required value'
    )
    assert format_invalid_message("Notebook", "nb", [], group="") == 'Notebook "nb" is invalid'


# --- properties against reference regexes -----------------------------------------------------

SUBDOMAIN = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*")
LABEL = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?")
names = st.text(alphabet="ab-.Z_9", min_size=1, max_size=12)


@given(names)
def test_pod_names_are_valid_exactly_when_they_are_subdomains(name: str) -> None:
    causes = validate_object("Pod", {**pod(), "metadata": {"name": name, "namespace": "d"}}, True)
    assert (causes == []) is bool(SUBDOMAIN.fullmatch(name))


@given(names)
def test_container_names_are_valid_exactly_when_they_are_labels(name: str) -> None:
    causes = validate_object("Pod", pod(containers=[{"name": name, "image": "x"}]), True)
    assert (causes == []) is bool(LABEL.fullmatch(name))


@given(
    st.dictionaries(
        st.text(alphabet="aZ9-_./", min_size=1, max_size=10),
        st.text(alphabet="aZ9-_.", max_size=8),
        max_size=3,
    )
)
def test_label_causes_agree_with_the_label_grammar(labels: dict[str, str]) -> None:
    name_part = r"([A-Za-z0-9][-A-Za-z0-9_.]{0,61})?[A-Za-z0-9]"
    key_ok = re.compile(rf"({SUBDOMAIN.pattern}/)?{name_part}")
    value_ok = re.compile(r"(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?")
    expected_valid = all(key_ok.fullmatch(k) and value_ok.fullmatch(v) for k, v in labels.items())
    subject = pod()
    subject["metadata"]["labels"] = labels
    assert (validate_object("Pod", subject, True) == []) is expected_valid
