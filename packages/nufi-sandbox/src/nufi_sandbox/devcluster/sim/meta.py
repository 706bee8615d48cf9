"""Object metadata the controllers share: owner references, generated names, template hashes, times."""

from __future__ import annotations

import json
import secrets
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

Obj = dict[str, Any]

# The alphabet apimachinery's rand.String draws from: no vowels, no digits that read like letters.
NAME_ALPHABET = "bcdfghjklmnpqrstvwxz2456789"


def now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def now_micro() -> str:
    """MicroTime, the format of Lease renew times and event times: exactly six fractional digits."""
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def parse_time(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def seconds_since(text: str) -> float:
    return (datetime.now(UTC) - parse_time(text)).total_seconds()


def random_suffix(length: int = 5) -> str:
    return "".join(secrets.choice(NAME_ALPHABET) for _ in range(length))


def _fnv32a(data: bytes) -> int:
    value = 0x811C9DC5
    for byte in data:
        value ^= byte
        value = (value * 0x01000193) & 0xFFFFFFFF
    return value


def safe_encode(text: str) -> str:
    """Map each character into NAME_ALPHABET so a hash reads like the ones real controllers print."""
    return "".join(NAME_ALPHABET[ord(ch) % len(NAME_ALPHABET)] for ch in text)


def template_hash(template: Obj, collision_count: int = 0) -> str:
    """A pod-template-hash: 32-bit FNV-1a of the template, its decimal digits encoded as a name."""
    data = json.dumps(template, sort_keys=True, separators=(",", ":")).encode()
    if collision_count:
        data += str(collision_count).encode()
    return safe_encode(str(_fnv32a(data)))


def name_of(obj: Obj) -> str:
    return str(obj["metadata"]["name"])


def namespace_of(obj: Obj) -> str:
    return str(obj["metadata"].get("namespace", ""))


def uid_of(obj: Obj) -> str:
    return str(obj["metadata"].get("uid", ""))


def labels_of(obj: Obj) -> dict[str, str]:
    return dict(obj.get("metadata", {}).get("labels") or {})


def controller_ref(owner: Obj) -> Obj:
    return {
        "apiVersion": owner["apiVersion"],
        "kind": owner["kind"],
        "name": name_of(owner),
        "uid": uid_of(owner),
        "controller": True,
        "blockOwnerDeletion": True,
    }


def controller_of(obj: Obj | None) -> Obj | None:
    if obj is None:
        return None
    for ref in obj.get("metadata", {}).get("ownerReferences") or []:
        if ref.get("controller"):
            return dict(ref)
    return None


def controlled_by(obj: Obj, owner_uid: str) -> bool:
    ref = controller_of(obj)
    return ref is not None and ref.get("uid") == owner_uid


def owner_key(obj: Obj | None, kind: str) -> tuple[str, str] | None:
    """(namespace, name) of the controller of ``obj`` when that controller is of ``kind``."""
    ref = controller_of(obj)
    if obj is None or ref is None or ref.get("kind") != kind:
        return None
    return namespace_of(obj), str(ref.get("name", ""))


def is_deleting(obj: Obj) -> bool:
    return bool(obj.get("metadata", {}).get("deletionTimestamp"))


def without_zero(counts: Mapping[str, int]) -> dict[str, int]:
    """Status counters are `omitempty` int32s in the Go types: zero never reaches the wire."""
    return {key: value for key, value in counts.items() if value}
