"""JSON patch, merge patch and strategic merge patch behave like the API server's."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from nufi_sandbox.devcluster.patching.json_patch import PatchError, apply_json_patch, apply_merge_patch
from nufi_sandbox.devcluster.patching.merge_keys import merge_keys_for
from nufi_sandbox.devcluster.patching.strategic_merge import apply_strategic_merge_patch

POD_KEYS = merge_keys_for("Pod")


def kubelet_pod() -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "web", "namespace": "default", "labels": {"app": "web"}, "finalizers": ["a"]},
        "spec": {
            "containers": [
                {
                    "name": "main",
                    "image": "nginx",
                    "env": [{"name": "A", "value": "1"}, {"name": "B", "value": "2"}],
                    "ports": [{"containerPort": 80}],
                },
                {"name": "sidecar", "image": "envoy"},
            ],
            "tolerations": [{"key": "x", "operator": "Exists"}],
            "readinessGates": [{"conditionType": "example.com/one"}],
        },
        "status": {
            "phase": "Running",
            "conditions": [
                {"type": "PodScheduled", "status": "True"},
                {"type": "Initialized", "status": "True"},
                {"type": "ContainersReady", "status": "True"},
                {"type": "Ready", "status": "False"},
            ],
        },
    }


def condition_types(pod: dict[str, Any]) -> list[str]:
    return [c["type"] for c in pod["status"]["conditions"]]


# --- the point of strategic merge: status conditions -----------------------------------------


def test_strategic_patch_adds_a_gate_condition_and_keeps_the_kubelets() -> None:
    pod = kubelet_pod()
    gate = {"type": "example.com/gpu-ready", "status": "True"}
    patched = apply_strategic_merge_patch(pod, {"status": {"conditions": [gate]}}, POD_KEYS)
    assert sorted(condition_types(patched)) == sorted([*condition_types(pod), "example.com/gpu-ready"])
    assert gate in patched["status"]["conditions"]
    assert patched["status"]["phase"] == "Running"


def test_strategic_patch_updates_the_condition_of_the_same_type_in_place() -> None:
    pod = kubelet_pod()
    patch = {"status": {"conditions": [{"type": "Ready", "status": "True", "reason": "GateOpen"}]}}
    patched = apply_strategic_merge_patch(pod, patch, POD_KEYS)
    assert condition_types(patched) == condition_types(pod)
    assert patched["status"]["conditions"][3] == {"type": "Ready", "status": "True", "reason": "GateOpen"}


def test_merge_patch_of_the_same_replaces_the_whole_list() -> None:
    pod = kubelet_pod()
    patch = {"status": {"conditions": [{"type": "Ready", "status": "True"}]}}
    patched = apply_merge_patch(pod, patch)
    assert patched["status"]["conditions"] == [{"type": "Ready", "status": "True"}]
    assert patched["status"]["phase"] == "Running"


def test_new_items_go_before_the_remaining_live_items_as_on_a_real_server() -> None:
    pod = kubelet_pod()
    patch = {"status": {"conditions": [{"type": "X", "status": "True"}]}}
    patched = apply_strategic_merge_patch(pod, patch, POD_KEYS)
    assert condition_types(patched) == ["X", "PodScheduled", "Initialized", "ContainersReady", "Ready"]
    patch = {"status": {"conditions": [{"type": "Initialized"}, {"type": "X", "status": "True"}]}}
    patched = apply_strategic_merge_patch(pod, patch, POD_KEYS)
    assert condition_types(patched) == ["PodScheduled", "Initialized", "X", "ContainersReady", "Ready"]


# --- containers and their lists ---------------------------------------------------------------


def test_container_env_merges_by_name() -> None:
    patch = {"spec": {"containers": [{"name": "main", "env": [{"name": "B", "value": "3"}, {"name": "C"}]}]}}
    patched = apply_strategic_merge_patch(kubelet_pod(), patch, POD_KEYS)
    main, sidecar = patched["spec"]["containers"]
    assert main["image"] == "nginx"
    assert main["env"] == [{"name": "A", "value": "1"}, {"name": "B", "value": "3"}, {"name": "C"}]
    assert main["ports"] == [{"containerPort": 80}]
    assert sidecar == {"name": "sidecar", "image": "envoy"}


def test_container_ports_merge_by_container_port() -> None:
    patch = {"spec": {"containers": [{"name": "main", "ports": [{"containerPort": 80, "name": "http"}]}]}}
    patched = apply_strategic_merge_patch(kubelet_pod(), patch, POD_KEYS)
    assert patched["spec"]["containers"][0]["ports"] == [{"containerPort": 80, "name": "http"}]


def test_delete_directive_removes_a_container() -> None:
    patch = {"spec": {"containers": [{"name": "sidecar", "$patch": "delete"}]}}
    patched = apply_strategic_merge_patch(kubelet_pod(), patch, POD_KEYS)
    assert [c["name"] for c in patched["spec"]["containers"]] == ["main"]


def test_set_element_order_reorders_containers() -> None:
    patch = {"spec": {"$setElementOrder/containers": [{"name": "sidecar"}, {"name": "main"}]}}
    patched = apply_strategic_merge_patch(kubelet_pod(), patch, POD_KEYS)
    assert [c["name"] for c in patched["spec"]["containers"]] == ["sidecar", "main"]
    assert patched["spec"]["containers"][1]["env"][0] == {"name": "A", "value": "1"}


def test_set_element_order_with_changes_places_new_items_where_listed() -> None:
    patch = {
        "spec": {
            "$setElementOrder/containers": [{"name": "main"}, {"name": "new"}, {"name": "sidecar"}],
            "containers": [{"name": "new", "image": "busybox"}],
        }
    }
    patched = apply_strategic_merge_patch(kubelet_pod(), patch, POD_KEYS)
    assert [c["name"] for c in patched["spec"]["containers"]] == ["main", "new", "sidecar"]


def test_set_element_order_must_agree_with_the_patch_list() -> None:
    patch = {
        "spec": {
            "$setElementOrder/containers": [{"name": "main"}],
            "containers": [{"name": "sidecar", "image": "x"}],
        }
    }
    with pytest.raises(PatchError, match="doesn't match \\$setElementOrder list"):
        apply_strategic_merge_patch(kubelet_pod(), patch, POD_KEYS)


def test_replace_directive_in_a_list_replaces_it() -> None:
    patch = {"spec": {"containers": [{"$patch": "replace"}, {"name": "only", "image": "x"}]}}
    patched = apply_strategic_merge_patch(kubelet_pod(), patch, POD_KEYS)
    assert patched["spec"]["containers"] == [{"name": "only", "image": "x"}]


def test_replace_directive_on_a_map_replaces_it() -> None:
    patch = {"metadata": {"labels": {"$patch": "replace", "tier": "front"}}}
    patched = apply_strategic_merge_patch(kubelet_pod(), patch, POD_KEYS)
    assert patched["metadata"]["labels"] == {"tier": "front"}


def test_null_deletes_a_key_and_maps_merge() -> None:
    patch = {"metadata": {"labels": {"app": None, "tier": "front"}}, "spec": {"readinessGates": None}}
    patched = apply_strategic_merge_patch(kubelet_pod(), patch, POD_KEYS)
    assert patched["metadata"]["labels"] == {"tier": "front"}
    assert "readinessGates" not in patched["spec"]


def test_lists_without_a_patch_strategy_are_replaced() -> None:
    patch = {
        "spec": {"tolerations": [{"key": "y"}], "readinessGates": [{"conditionType": "example.com/two"}]}
    }
    patched = apply_strategic_merge_patch(kubelet_pod(), patch, POD_KEYS)
    assert patched["spec"]["tolerations"] == [{"key": "y"}]
    assert patched["spec"]["readinessGates"] == [{"conditionType": "example.com/two"}]


def test_finalizers_merge_as_a_set_and_delete_from_primitive_list() -> None:
    patched = apply_strategic_merge_patch(kubelet_pod(), {"metadata": {"finalizers": ["b", "a"]}}, POD_KEYS)
    assert patched["metadata"]["finalizers"] == ["b", "a"]
    patch = {"metadata": {"$deleteFromPrimitiveList/finalizers": ["a"], "finalizers": ["c"]}}
    patched = apply_strategic_merge_patch(kubelet_pod(), patch, POD_KEYS)
    assert patched["metadata"]["finalizers"] == ["c"]


def test_retain_keys_clears_fields_not_listed() -> None:
    deployment = {"spec": {"strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 1}}}}
    patch = {"spec": {"strategy": {"$retainKeys": ["type"], "type": "Recreate"}}}
    patched = apply_strategic_merge_patch(deployment, patch, merge_keys_for("Deployment"))
    assert patched["spec"]["strategy"] == {"type": "Recreate"}
    bad = {"spec": {"strategy": {"$retainKeys": ["type"], "rollingUpdate": {}}}}
    with pytest.raises(PatchError, match="retainKeys") as caught:
        apply_strategic_merge_patch(deployment, bad, merge_keys_for("Deployment"))
    assert caught.value.status == 400


def test_missing_merge_key_is_an_error() -> None:
    patch = {"spec": {"containers": [{"image": "x"}]}}
    with pytest.raises(PatchError, match="does not contain declared merge key: name") as caught:
        apply_strategic_merge_patch(kubelet_pod(), patch, POD_KEYS)
    assert caught.value.status == 500


def test_unknown_directive_is_an_error() -> None:
    with pytest.raises(PatchError, match="unknown patch type: bogus"):
        apply_strategic_merge_patch(kubelet_pod(), {"spec": {"$patch": "bogus"}}, POD_KEYS)


def test_directives_never_reach_the_stored_object() -> None:
    patch = {"spec": {"containers": [{"name": "new", "image": "x", "$retainKeys": ["name"]}]}}
    patched = apply_strategic_merge_patch({"spec": {}}, patch, POD_KEYS)
    assert patched == {"spec": {"containers": [{"name": "new", "image": "x"}]}}


def test_inputs_are_not_mutated() -> None:
    pod, patch = kubelet_pod(), {"spec": {"containers": [{"name": "main", "$patch": "delete"}]}}
    before = (copy.deepcopy(pod), copy.deepcopy(patch))
    apply_strategic_merge_patch(pod, patch, POD_KEYS)
    apply_merge_patch(pod, {"status": None})
    apply_json_patch(pod, [{"op": "remove", "path": "/status"}])
    assert (pod, patch) == before


# --- the merge keys of the other kinds --------------------------------------------------------


@pytest.mark.parametrize(
    ("kind", "path", "key"),
    [
        ("Pod", "spec.containers", "name"),
        ("Pod", "spec.initContainers[].env", "name"),
        ("Pod", "spec.ephemeralContainers[].volumeMounts", "mountPath"),
        ("Pod", "spec.containers[].ports", "containerPort"),
        ("Pod", "spec.containers[].volumeDevices", "devicePath"),
        ("Pod", "spec.volumes", "name"),
        ("Pod", "spec.imagePullSecrets", "name"),
        ("Pod", "status.conditions", "type"),
        ("Pod", "metadata.ownerReferences", "uid"),
        ("Pod", "metadata.finalizers", ""),
        ("Pod", "spec.readinessGates", None),
        ("Pod", "spec.tolerations", None),
        ("Pod", "status.containerStatuses", None),
        ("Deployment", "spec.template.spec.containers[].env", "name"),
        ("StatefulSet", "spec.template.spec.volumes", "name"),
        ("DaemonSet", "spec.template.metadata.finalizers", ""),
        ("ReplicaSet", "status.conditions", "type"),
        ("Deployment", "status.conditions", "type"),
        ("CronJob", "spec.jobTemplate.spec.template.spec.containers", "name"),
        ("Service", "spec.ports", "port"),
        ("Node", "status.conditions", "type"),
        ("Node", "status.addresses", "type"),
        ("Node", "spec.taints", None),
        ("Node", "spec.podCIDRs", ""),
        ("ConfigMap", "metadata.ownerReferences", "uid"),
    ],
)
def test_merge_keys_are_those_of_the_real_types(kind: str, path: str, key: str | None) -> None:
    assert merge_keys_for(kind).merge_key(path) == key


def test_deployment_template_containers_merge_by_name() -> None:
    deployment = {
        "spec": {"template": {"spec": {"containers": [{"name": "a", "image": "1"}, {"name": "b"}]}}}
    }
    patch = {"spec": {"template": {"spec": {"containers": [{"name": "a", "image": "2"}]}}}}
    patched = apply_strategic_merge_patch(deployment, patch, merge_keys_for("Deployment"))
    assert patched["spec"]["template"]["spec"]["containers"] == [{"name": "a", "image": "2"}, {"name": "b"}]


def test_node_taints_are_replaced_and_addresses_merged() -> None:
    node = {
        "spec": {"taints": [{"key": "a", "effect": "NoSchedule"}]},
        "status": {"addresses": [{"type": "InternalIP", "address": "10.0.0.1"}, {"type": "Hostname"}]},
    }
    patch = {
        "spec": {"taints": [{"key": "b", "effect": "NoExecute"}]},
        "status": {"addresses": [{"type": "InternalIP", "address": "10.0.0.2"}]},
    }
    patched = apply_strategic_merge_patch(node, patch, merge_keys_for("Node"))
    assert patched["spec"]["taints"] == [{"key": "b", "effect": "NoExecute"}]
    assert patched["status"]["addresses"] == [
        {"type": "InternalIP", "address": "10.0.0.2"},
        {"type": "Hostname"},
    ]


def test_kinds_without_metadata_are_refused() -> None:
    for kind in ("Pod", "Deployment", "Service", "Node", "Scale"):
        merge_keys_for(kind)
    with pytest.raises(LookupError):
        merge_keys_for("Notebook")


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
