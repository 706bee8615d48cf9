"""JSON patch and merge patch behave like the API server's; strategic merge agrees with merge patch."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from nufi_sandbox.devcluster.patching.json_patch import PatchError, apply_json_patch, apply_merge_patch
from nufi_sandbox.devcluster.patching.strategic_merge import apply_strategic_merge_patch

from .patch_helpers import POD_KEYS, kubelet_pod

# --- JSON patch -------------------------------------------------------------------------------


def test_json_patch_applies_operations_in_order() -> None:
    ops = [
        {"op": "test", "path": "/metadata/name", "value": "web"},
        {"op": "add", "path": "/metadata/labels/tier", "value": "front"},
        {"op": "remove", "path": "/metadata/labels/app"},
        {"op": "replace", "path": "/spec/containers/0/image", "value": "nginx:2"},
    ]
    patched = apply_json_patch(kubelet_pod(), ops)
    assert patched["metadata"]["labels"] == {"tier": "front"}
    assert patched["spec"]["containers"][0]["image"] == "nginx:2"


@pytest.mark.parametrize(
    "ops",
    [
        [{"op": "test", "path": "/metadata/name", "value": "other"}],
        [{"op": "remove", "path": "/metadata/labels/missing"}],
        [{"op": "add", "path": "/spec/containers/9", "value": {}}],
        [{"op": "replace", "path": "", "value": []}],
    ],
)
def test_failed_json_patch_is_unprocessable(ops: list[dict[str, Any]]) -> None:
    with pytest.raises(PatchError) as caught:
        apply_json_patch(kubelet_pod(), ops)
    assert caught.value.status == 422


@pytest.mark.parametrize(
    "ops",
    [{"op": "add"}, [{"path": "/a"}], [{"op": "bogus", "path": "/a"}], [{"op": "add", "path": "a"}], ["x"]],
)
def test_malformed_json_patch_is_a_bad_request(ops: Any) -> None:
    with pytest.raises(PatchError) as caught:
        apply_json_patch(kubelet_pod(), ops)
    assert caught.value.status == 400


# --- merge patch ------------------------------------------------------------------------------


def test_merge_patch_rules() -> None:
    original = {"a": {"b": 1, "c": [1, 2]}, "d": "x"}
    patched = apply_merge_patch(original, {"a": {"b": None, "c": [3], "e": {"f": None, "g": 1}}, "d": None})
    assert patched == {"a": {"c": [3], "e": {"g": 1}}}
    with pytest.raises(PatchError):
        apply_merge_patch(original, [1])


json_scalars = st.one_of(st.booleans(), st.integers(), st.text(max_size=4))
json_values = st.recursive(
    json_scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(st.text("abc", max_size=2), inner, max_size=3)
    ),
    max_leaves=8,
)
json_objects = st.dictionaries(st.text("abcd", max_size=2), json_values, max_size=4)


def diff(source: Any, target: Any) -> Any:
    """The RFC 7386 patch that turns `source` into `target`."""
    if not (isinstance(source, dict) and isinstance(target, dict)):
        return target
    patch: dict[str, Any] = {key: None for key in source if key not in target}
    for key, value in target.items():
        if key not in source:
            patch[key] = value
        elif source[key] != value or type(source[key]) is not type(value):
            patch[key] = diff(source[key], value)
    return patch


@given(json_objects, json_objects)
def test_merge_patch_computed_as_a_diff_yields_the_target(
    source: dict[str, Any], target: dict[str, Any]
) -> None:
    assert apply_merge_patch(source, diff(source, target)) == target


maps_of_scalars = st.recursive(
    st.dictionaries(st.sampled_from("abc"), st.one_of(json_scalars, st.none()), max_size=3),
    lambda inner: st.dictionaries(
        st.sampled_from("abc"), st.one_of(json_scalars, st.none(), inner), max_size=3
    ),
    max_leaves=8,
)


@given(maps_of_scalars, maps_of_scalars)
def test_strategic_merge_without_lists_equals_merge_patch(
    source: dict[str, Any], patch: dict[str, Any]
) -> None:
    source = apply_merge_patch({}, source)  # no nulls in a stored object
    assert apply_strategic_merge_patch(source, patch, POD_KEYS) == apply_merge_patch(source, patch)


conditions = st.lists(
    st.fixed_dictionaries({"type": st.sampled_from("ABCDE"), "status": st.sampled_from(["True", "False"])}),
    max_size=5,
    unique_by=lambda c: c["type"],
)


@given(conditions, conditions)
def test_condition_merge_is_a_keyed_union_where_the_patch_wins(
    live: list[dict[str, str]], patch: list[dict[str, str]]
) -> None:
    pod = {"status": {"conditions": live}}
    merged = apply_strategic_merge_patch(pod, {"status": {"conditions": patch}}, POD_KEYS)["status"][
        "conditions"
    ]
    expected = {c["type"]: c["status"] for c in live} | {c["type"]: c["status"] for c in patch}
    assert {c["type"]: c["status"] for c in merged} == expected
    assert len(merged) == len(expected)
    order = [c["type"] for c in merged]
    patched_types = [c["type"] for c in patch]
    live_only = [c["type"] for c in live if c["type"] not in patched_types]
    assert [t for t in order if t in patched_types] == patched_types
    assert [t for t in order if t in live_only] == live_only
