"""Request bodies in Kubernetes' protobuf encoding, which kubectl's typed clients send since 1.32.

A body is the magic `k8s\\0` and a `runtime.Unknown` (apiVersion, kind, the object's bytes). Only the
kinds the dev cluster's users make with kubectl's generators (`kubectl create namespace|configmap|secret|
quota|serviceaccount|service|deployment`) are known, by their `generated.proto` field numbers, and of
those only the fields the generators fill in; any other kind is refused with 415, which is what the API
server answers for a type it holds no protobuf schema for (a custom resource). Fields the dev cluster
does not read (timestamps, managed fields) are skipped.
"""

from __future__ import annotations

import base64
from collections.abc import Iterator, Mapping
from typing import Any

CONTENT_TYPE = "application/vnd.kubernetes.protobuf"
_MAGIC = b"k8s\x00"

# A field's JSON name and how its bytes read: a scalar kind, a nested message, or a list / map of them.
Schema = Mapping[int, tuple[str, Any]]
_OWNER: Schema = {
    1: ("kind", "string"),
    3: ("name", "string"),
    4: ("uid", "string"),
    5: ("apiVersion", "string"),
    6: ("controller", "bool"),
    7: ("blockOwnerDeletion", "bool"),
}
_META: Schema = {
    1: ("name", "string"),
    2: ("generateName", "string"),
    3: ("namespace", "string"),
    5: ("uid", "string"),
    6: ("resourceVersion", "string"),
    11: ("labels", ("map", "string")),
    12: ("annotations", ("map", "string")),
    13: ("ownerReferences", ("list", _OWNER)),
    14: ("finalizers", ("list", "string")),
}
_SCOPE_REQUIREMENT: Schema = {
    1: ("scopeName", "string"),
    2: ("operator", "string"),
    3: ("values", ("list", "string")),
}
_QUOTA_SPEC: Schema = {
    1: ("hard", ("map", "quantity")),
    2: ("scopes", ("list", "string")),
    3: ("scopeSelector", {1: ("matchExpressions", ("list", _SCOPE_REQUIREMENT))}),
}
_NAMED: Schema = {1: ("name", "string")}
_LABEL_SELECTOR: Schema = {
    1: ("matchLabels", ("map", "string")),
    2: (
        "matchExpressions",
        ("list", {1: ("key", "string"), 2: ("operator", "string"), 3: ("values", ("list", "string"))}),
    ),
}
_CONTAINER: Schema = {
    1: ("name", "string"),
    2: ("image", "string"),
    3: ("command", ("list", "string")),
    4: ("args", ("list", "string")),
    6: ("ports", ("list", {1: ("name", "string"), 3: ("containerPort", "int"), 4: ("protocol", "string")})),
    7: ("env", ("list", {1: ("name", "string"), 2: ("value", "string")})),
    8: ("resources", {1: ("limits", ("map", "quantity")), 2: ("requests", ("map", "quantity"))}),
    14: ("imagePullPolicy", "string"),
}
_POD_TEMPLATE: Schema = {
    1: ("metadata", _META),
    2: ("spec", {2: ("containers", ("list", _CONTAINER)), 3: ("restartPolicy", "string")}),
}
_INT_OR_STRING: Schema = {1: ("type", "int"), 2: ("intVal", "int"), 3: ("strVal", "string")}
_SERVICE_PORT: Schema = {
    1: ("name", "string"),
    2: ("protocol", "string"),
    3: ("port", "int"),
    4: ("targetPort", "int-or-string"),
    5: ("nodePort", "int"),
}
SCHEMAS: Mapping[str, Schema] = {
    "Namespace": {1: ("metadata", _META), 2: ("spec", {1: ("finalizers", ("list", "string"))})},
    "ConfigMap": {
        1: ("metadata", _META),
        2: ("data", ("map", "string")),
        3: ("binaryData", ("map", "bytes")),
        4: ("immutable", "bool"),
    },
    "Secret": {
        1: ("metadata", _META),
        2: ("data", ("map", "bytes")),
        3: ("type", "string"),
        4: ("stringData", ("map", "string")),
        5: ("immutable", "bool"),
    },
    "ResourceQuota": {1: ("metadata", _META), 2: ("spec", _QUOTA_SPEC)},
    "Service": {
        1: ("metadata", _META),
        2: (
            "spec",
            {
                1: ("ports", ("list", _SERVICE_PORT)),
                2: ("selector", ("map", "string")),
                3: ("clusterIP", "string"),
                4: ("type", "string"),
                10: ("externalName", "string"),
            },
        ),
    },
    "apps/v1 Deployment": {
        1: ("metadata", _META),
        2: (
            "spec",
            {1: ("replicas", "int?"), 2: ("selector", _LABEL_SELECTOR), 3: ("template", _POD_TEMPLATE)},
        ),
    },
    "ServiceAccount": {
        1: ("metadata", _META),
        3: ("imagePullSecrets", ("list", _NAMED)),
        4: ("automountServiceAccountToken", "bool"),
    },
}


class ProtobufError(ValueError):
    """A body that is not Kubernetes protobuf; UnknownKind for one whose kind has no schema here."""


class UnknownKind(ProtobufError):
    pass


def _varint(data: bytes, at: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        if at >= len(data):
            raise ProtobufError("truncated varint")
        byte = data[at]
        value |= (byte & 0x7F) << shift
        at, shift = at + 1, shift + 7
        if not byte & 0x80:
            return value, at


def _fields(data: bytes) -> Iterator[tuple[int, int | bytes]]:
    """(field number, value): an int for a varint, the bytes of a length-delimited field."""
    at = 0
    while at < len(data):
        tag, at = _varint(data, at)
        number, wire = tag >> 3, tag & 7
        if wire == 0:
            value, at = _varint(data, at)
            yield number, value
        elif wire == 2:
            size, at = _varint(data, at)
            if at + size > len(data):
                raise ProtobufError("truncated field")
            yield number, data[at : at + size]
            at += size
        elif wire in (1, 5):
            at += 8 if wire == 1 else 4
        else:
            raise ProtobufError(f"unsupported wire type {wire}")


def _scalar(kind: Any, value: int | bytes) -> Any:
    if isinstance(kind, Mapping):
        return decode_message(_as_bytes(value), kind)
    if kind == "bool":
        return bool(value)
    if kind in ("int", "int?"):
        number = _as_int(value)
        return number - (1 << 64) if number >= 1 << 63 else number
    if kind == "int-or-string":
        either = decode_message(_as_bytes(value), _INT_OR_STRING)
        return either.get("strVal", "") if either.get("type") == 1 else either.get("intVal", 0)
    if kind == "quantity":
        # A quantity travels as a message holding its text; JSON carries the text itself.
        return decode_message(_as_bytes(value), {1: ("text", "string")}).get("text", "0")
    raw = _as_bytes(value)
    return base64.b64encode(raw).decode() if kind == "bytes" else raw.decode()


def _as_int(value: int | bytes) -> int:
    if not isinstance(value, int):
        raise ProtobufError("expected a varint field")
    return value


def _as_bytes(value: int | bytes) -> bytes:
    if not isinstance(value, bytes):
        raise ProtobufError("expected a length-delimited field")
    return value


def decode_message(data: bytes, schema: Schema) -> dict[str, Any]:
    """The JSON form of one message; a map entry is a message of key (1) and value (2)."""
    out: dict[str, Any] = {}
    for number, value in _fields(data):
        if number not in schema:
            continue
        name, kind = schema[number]
        if isinstance(kind, tuple) and kind[0] == "map":
            entry = dict(_fields(_as_bytes(value)))
            key = _as_bytes(entry.get(1, b"")).decode()
            out.setdefault(name, {})[key] = _scalar(kind[1], entry.get(2, b""))
        elif isinstance(kind, tuple):
            out.setdefault(name, []).append(_scalar(kind[1], value))
        else:
            out[name] = _scalar(kind, value)
    # Go writes every plain field, set or not; JSON leaves the unset ones out, and so must the dev cluster
    # for its defaults to apply. Only a pointer field ("int?") keeps its zero.
    return {k: v for k, v in out.items() if v not in ("", False, 0) or _kind_of(schema, k) == "int?"}


def _kind_of(schema: Schema, name: str) -> Any:
    return next((kind for field, kind in schema.values() if field == name), None)


def decode_object(body: bytes) -> dict[str, Any]:
    """The JSON object a protobuf request body carries."""
    try:
        return _decode_object(body)
    except UnicodeDecodeError as exc:
        raise ProtobufError(f"a string is not UTF-8: {exc}") from None


def _decode_object(body: bytes) -> dict[str, Any]:
    if not body.startswith(_MAGIC):
        raise ProtobufError("the body does not start with the Kubernetes protobuf prefix")
    envelope = dict(_fields(body[len(_MAGIC) :]))
    type_meta = {n: v for n, v in _fields(_as_bytes(envelope.get(1, b"")))}
    api_version = _as_bytes(type_meta.get(1, b"")).decode()
    kind = _as_bytes(type_meta.get(2, b"")).decode()
    schema = SCHEMAS.get(kind if api_version == "v1" else f"{api_version} {kind}")
    if schema is None:
        raise UnknownKind(kind)
    return {
        "apiVersion": api_version,
        "kind": kind,
        **decode_message(_as_bytes(envelope.get(2, b"")), schema),
    }
