"""Protobuf request bodies, as kubectl's typed clients send them, read into the JSON objects they carry."""

from __future__ import annotations

import contextlib

import pytest
from hypothesis import given
from hypothesis import strategies as st

from nufi_sandbox.devcluster.wire.protobuf import ProtobufError, UnknownKind, decode_object


def _varint(value: int) -> bytes:
    out = bytearray()
    while True:
        byte, value = value & 0x7F, value >> 7
        out.append(byte | (0x80 if value else 0))
        if not value:
            return bytes(out)


def field(number: int, value: bytes | int | str) -> bytes:
    if isinstance(value, int):
        return _varint(number << 3) + _varint(value)
    raw = value.encode() if isinstance(value, str) else value
    return _varint(number << 3 | 2) + _varint(len(raw)) + raw


def entry(number: int, key: str, value: bytes | str) -> bytes:
    return field(number, field(1, key) + field(2, value))


def body(kind: str, raw: bytes, api_version: str = "v1") -> bytes:
    type_meta = field(1, api_version) + field(2, kind)
    return b"k8s\x00" + field(1, type_meta) + field(2, raw) + field(4, "application/vnd.kubernetes.protobuf")


def test_a_configmap_as_kubectl_create_sends_it() -> None:
    meta = field(1, "settings") + field(3, "team") + entry(11, "app", "demo") + field(8, b"")
    raw = field(1, meta) + entry(2, "mode", "fast") + entry(3, "blob", b"\x00\x01") + field(4, 1)
    assert decode_object(body("ConfigMap", raw)) == {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "settings", "namespace": "team", "labels": {"app": "demo"}},
        "data": {"mode": "fast"},
        "binaryData": {"blob": "AAE="},
        "immutable": True,
    }


def test_a_quota_keeps_its_quantities_as_text() -> None:
    hard = entry(1, "requests.hyperaccel.ai/lpu", field(1, "1")) + entry(1, "limits.cpu", field(1, "2"))
    raw = field(1, field(1, "team")) + field(2, hard + field(2, "NotTerminating"))
    decoded = decode_object(body("ResourceQuota", raw))
    assert decoded["spec"] == {
        "hard": {"requests.hyperaccel.ai/lpu": "1", "limits.cpu": "2"},
        "scopes": ["NotTerminating"],
    }


def test_a_namespace_and_its_finalizers() -> None:
    raw = field(1, field(1, "kube-test")) + field(2, field(1, "kubernetes"))
    assert decode_object(body("Namespace", raw))["spec"] == {"finalizers": ["kubernetes"]}


@pytest.mark.parametrize(("kind", "api_version"), [("Notebook", "kubeflow.org/v1"), ("Job", "batch/v1")])
def test_a_kind_without_a_schema_is_unknown(kind: str, api_version: str) -> None:
    with pytest.raises(UnknownKind):
        decode_object(body(kind, b"", api_version))


def test_a_body_without_the_prefix_or_cut_short_is_refused() -> None:
    with pytest.raises(ProtobufError):
        decode_object(b'{"kind": "ConfigMap"}')
    with pytest.raises(ProtobufError):
        decode_object(body("ConfigMap", field(1, field(1, "x")))[:-3])


@given(st.binary(max_size=64))
def test_any_bytes_decode_or_are_refused_as_protobuf(tail: bytes) -> None:
    with contextlib.suppress(ProtobufError):
        decode_object(b"k8s\x00" + tail)


def test_a_deployment_as_kubectl_create_deployment_sends_it() -> None:
    port = field(1, "") + field(3, 8080) + field(4, "")
    container = (
        field(1, "nginx") + field(2, "nginx:1.27") + field(3, "nginx") + field(6, port) + field(14, "")
    )
    template = field(1, field(1, "") + entry(11, "app", "web")) + field(2, field(2, container))
    selector = entry(1, "app", "web")
    spec = field(1, 0) + field(2, selector) + field(3, template) + field(5, 0)
    decoded = decode_object(body("Deployment", field(1, field(1, "web")) + field(2, spec), "apps/v1"))
    assert decoded["spec"] == {
        "replicas": 0,
        "selector": {"matchLabels": {"app": "web"}},
        "template": {
            "metadata": {"labels": {"app": "web"}},
            "spec": {
                "containers": [
                    {
                        "name": "nginx",
                        "image": "nginx:1.27",
                        "command": ["nginx"],
                        "ports": [{"containerPort": 8080}],
                    }
                ]
            },
        },
    }, "a replica count of 0 is asked for; Go's unset plain fields are left out for the defaults to apply"


@pytest.mark.parametrize(
    ("target", "shown"), [(field(1, 0) + field(2, 8080), 8080), (field(1, 1) + field(3, "web"), "web")]
)
def test_a_service_port_targets_a_number_or_a_name(target: bytes, shown: int | str) -> None:
    port = field(1, "80-x") + field(2, "TCP") + field(3, 80) + field(4, target) + field(5, 0)
    spec = field(1, port) + entry(2, "app", "web") + field(3, "") + field(4, "ClusterIP")
    decoded = decode_object(body("Service", field(1, field(1, "web")) + field(2, spec)))
    assert decoded["spec"] == {
        "ports": [{"name": "80-x", "protocol": "TCP", "port": 80, "targetPort": shown}],
        "selector": {"app": "web"},
        "type": "ClusterIP",
    }
