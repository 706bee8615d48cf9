"""Strategic merge patch merges status conditions, containers and lists like the API server's."""

from __future__ import annotations

import copy

import pytest

from nufi_sandbox.devcluster.patching.json_patch import PatchError, apply_json_patch, apply_merge_patch
from nufi_sandbox.devcluster.patching.merge_keys import merge_keys_for
from nufi_sandbox.devcluster.patching.strategic_merge import apply_strategic_merge_patch

from .patch_helpers import POD_KEYS, condition_types, kubelet_pod

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
