"""Why a workload waits or broke: Kubernetes' own sentences read into codes with their figures, worded
in Korean without an English sentence, and what is not recognised kept whole as a quoted fragment."""

from __future__ import annotations

import pytest

from nufi.messages import Message
from nufi.ui.i18n import Translator
from nufi.ui.parts.workload_forms import reason_cells
from nufi.workloads.kube_reasons import (
    container_failure,
    deployment_failure,
    kubernetes_words,
    pod_failure,
    scheduler_reason,
)
from support.languages import english_sentences

pytestmark = pytest.mark.unit

LPU = "hyperaccel.ai/lpu"
NAME = "HyperAccel LPU"
# A resource key said as it is, until the caller that knows its type names it.
LPU_WORD = Message("quota.resource.other", {"resource": LPU})
# What kube-scheduler 1.24+ writes, preemption's own verdict appended.
SHORT_OF_LPU = (
    f"0/2 nodes are available: 2 Insufficient {LPU}. preemption: 0/2 nodes are available: "
    "2 No preemption victims found for incoming pod."
)


def _causes(reason: Message) -> list[Message]:
    causes = reason.params["causes"]
    assert isinstance(causes, list)
    return causes


def _korean(message: Message) -> str:
    text = message.text("ko")
    assert english_sentences(text) == [], text
    return text


def test_insufficient_devices_name_the_resource_and_the_node_counts() -> None:
    reason = scheduler_reason(SHORT_OF_LPU)
    assert reason.code == "workload.pending.no_node"
    assert reason.params["total"] == 2
    assert reason.params["causes"] == [
        Message("workload.cause.insufficient", {"nodes": 2, "resource": LPU, "what": LPU_WORD})
    ]
    assert reason.params["kubernetes"] == SHORT_OF_LPU
    assert _korean(reason) == f"노드 2개 중 파드를 받을 수 있는 노드가 없습니다: {LPU} 부족(노드 2개)"
    assert reason.text("en") == f"none of the 2 nodes can take the pod: 2 nodes lack free {LPU}"


def test_taints_selectors_and_cordons_are_each_a_cause() -> None:
    message = (
        "0/4 nodes are available: 1 node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }, "
        "1 node(s) didn't match Pod's node affinity/selector, 1 node(s) were unschedulable, "
        "1 Insufficient nvidia.com/gpu. preemption: 0/4 nodes are available: 4 Preemption is not helpful "
        "for scheduling."
    )
    reason = scheduler_reason(message)
    assert [(c.code, c.params.get("nodes")) for c in _causes(reason)] == [
        ("workload.cause.taint", 1),
        ("workload.cause.selector", 1),
        ("workload.cause.cordoned", 1),
        ("workload.cause.insufficient", 1),
    ]
    assert _causes(reason)[0].params["taint"] == "{node-role.kubernetes.io/control-plane: }"
    text = _korean(reason)
    assert "테인트 {node-role.kubernetes.io/control-plane: }(노드 1개)" in text
    assert "nvidia.com/gpu 부족(노드 1개)" in text


def test_the_older_taint_wording_with_its_own_comma_is_one_cause() -> None:
    reason = scheduler_reason(
        "0/3 nodes are available: 1 node(s) had taint {node-role.kubernetes.io/master: }, "
        "that the pod didn't tolerate, 2 Insufficient cpu."
    )
    assert [c.code for c in _causes(reason)] == [
        "workload.cause.taint",
        "workload.cause.insufficient",
    ]


def test_a_resource_of_kubernetes_own_is_said_in_the_readers_words() -> None:
    reason = scheduler_reason("0/3 nodes are available: 1 Insufficient memory, 2 Insufficient cpu.")
    assert (
        _korean(reason)
        == "노드 3개 중 파드를 받을 수 있는 노드가 없습니다: 메모리 부족(노드 1개), CPU 부족(노드 2개)"
    )
    assert reason.text("en").endswith("1 node lacks free memory; 2 nodes lack free CPU")


def test_a_cause_without_a_count_and_an_unknown_cause_are_kept() -> None:
    reason = scheduler_reason(
        "0/3 nodes are available: pod has unbound immediate PersistentVolumeClaims. preemption: "
        "0/3 nodes are available: 3 Preemption is not helpful for scheduling."
    )
    assert reason.params["causes"] == [Message("workload.cause.unbound_claims", {})]
    _korean(reason)
    odd = scheduler_reason("0/1 nodes are available: 1 node(s) had something new.")
    assert odd.params["causes"] == [
        Message("workload.cause.other", {"nodes": 1, "text": "node(s) had something new"})
    ]
    assert odd.text("ko").endswith('노드 1개: "node(s) had something new"')


def test_words_the_scheduler_is_not_known_to_say_are_quoted_whole() -> None:
    reason = scheduler_reason("no nodes available to schedule pods")
    assert reason == Message(
        "workload.pending.unschedulable", {"kubernetes": "no nodes available to schedule pods"}
    )
    assert reason.text("ko") == '스케줄러가 파드를 배치하지 못했습니다: "no nodes available to schedule pods"'


@pytest.mark.parametrize(
    ("waiting", "code"),
    [
        ("ErrImagePull", "workload.failure.image_pull"),
        ("ImagePullBackOff", "workload.failure.image_pull"),
        ("InvalidImageName", "workload.failure.invalid_image"),
        ("CrashLoopBackOff", "workload.failure.crash_loop"),
        ("CreateContainerConfigError", "workload.failure.config"),
        ("CreateContainerError", "workload.failure.create_container"),
        ("RunContainerError", "workload.failure.create_container"),
    ],
)
def test_a_stuck_container_is_named_with_its_kubernetes_reason(waiting: str, code: str) -> None:
    said = 'rpc error: code = NotFound desc = failed to pull image "vllm/vllm:nope"'
    reason = container_failure("server", waiting, said)
    assert reason == Message(code, {"container": "server", "kind": waiting, "kubernetes": said})
    text = _korean(reason)
    assert "'server'" in text and waiting in text and said not in text
    assert kubernetes_words(reason) == said


@pytest.mark.parametrize(
    "status",
    [
        {
            "phase": "Failed",
            "reason": "UnexpectedAdmissionError",
            "message": "Allocate failed due to requested number of devices unavailable for "
            f"{LPU}. Requested: 2, Available: 0, which is unexpected",
        },
        {
            "phase": "Failed",
            "reason": f"OutOf{LPU}",
            "message": f"Pod was rejected: Node didn't have enough resource: {LPU}, requested: 2, "
            "used: 6, capacity: 6",
        },
    ],
)
def test_a_pod_the_kubelet_turned_away_for_want_of_devices_names_them(status: dict[str, str]) -> None:
    reason = pod_failure(status)
    assert reason == Message(
        "workload.failure.node_short", {"resource": LPU, "what": LPU_WORD, "kubernetes": status["message"]}
    )
    assert LPU in _korean(reason)


def test_failed_pods_and_deployment_conditions() -> None:
    assert pod_failure({"phase": "Failed", "message": "OOMKilled"}).code == "workload.failure.pod_failed"
    assert pod_failure({"phase": "Succeeded"}).code == "workload.failure.pod_exited"
    # What the sandbox's kubelet (and a real one) writes when the device plugin's Allocate fails.
    plugin = {
        "phase": "Failed",
        "reason": "UnexpectedAdmissionError",
        "message": "Pod was rejected: Allocate failed due to device is on fire, which is unexpected",
    }
    assert pod_failure(plugin).code == "workload.failure.device_allocation"
    _korean(pod_failure(plugin))
    evicted = {"phase": "Failed", "reason": "Evicted", "message": "The node was low on resource: memory."}
    assert pod_failure(evicted).code == "workload.failure.evicted"
    quota = deployment_failure(
        {
            "type": "ReplicaFailure",
            "status": "True",
            "reason": "FailedCreate",
            "message": 'pods "llama-5d8-x" is forbidden: exceeded quota: team-a-lpu, requested: '
            f"{LPU}=4, used: {LPU}=8, limited: {LPU}=8",
        }
    )
    assert (quota.code, quota.params["quota"]) == ("workload.quota_exceeded", "team-a-lpu")
    assert quota.text("en") == f"project quota: {LPU} limited to 8, 8 in use"
    assert _korean(quota) == f"프로젝트 할당량: {LPU} 한도 8, 8 사용 중"
    # Without the figures (an older or other wording) the quota is still named.
    bare = deployment_failure({"type": "ReplicaFailure", "status": "True", "message": "exceeded quota: q1"})
    assert bare.code == "workload.failure.quota_exceeded"
    other = deployment_failure({"type": "ReplicaFailure", "status": "True", "message": "something"})
    assert other == Message("workload.failure.replicas", {"kubernetes": "something"})


def test_a_reason_travels_as_data_with_its_nested_messages() -> None:
    reason = Message(
        "workload.pending.with_scheduler",
        {"reason": Message("workload.pending.waiting"), "scheduler": scheduler_reason(SHORT_OF_LPU)},
    )
    data = reason.to_data()
    assert data["params"]["reason"] == {"code": "workload.pending.waiting", "params": {}}
    assert data["params"]["scheduler"]["params"]["causes"] == [
        {
            "code": "workload.cause.insufficient",
            "params": {"nodes": 2, "resource": LPU, "what": LPU_WORD.to_data()},
        }
    ]
    assert kubernetes_words(reason) == SHORT_OF_LPU


def test_a_row_shows_the_reason_in_its_readers_language_and_kubernetes_words_as_the_tooltip() -> None:
    reason = Message(
        "workload.pending.with_scheduler",
        {
            "reason": Message(
                "workload.pending.ruled_out",
                {"nodes": "lpu-node-1", "fitting": 1, "count": 2, "resource_key": LPU, "name": NAME},
            ),
            "scheduler": scheduler_reason(
                "0/3 nodes are available: 1 node(s) had untolerated taint {dedicated: lpu}, "
                "2 Insufficient hyperaccel.ai/lpu."
            ),
        },
    )
    cells = reason_cells(Translator("ko"), reason)
    assert cells["reason"] == (
        "노드 1개(lpu-node-1)에 HyperAccel LPU 2개가 남아 있지만, 스케줄러가 다른 이유로 제외했습니다 "
        "(파드의 이벤트를 확인하세요). 스케줄러: 노드 3개 중 파드를 받을 수 있는 노드가 없습니다: "
        f"파드가 허용하지 않는 테인트 {{dedicated: lpu}}(노드 1개), {LPU} 부족(노드 2개)"
    )
    assert cells["reason_source"].startswith("0/3 nodes are available: 1 node(s) had untolerated taint")
    assert reason_cells(Translator("en"), reason)["reason"].startswith(
        "lpu-node-1 has 2 free HyperAccel LPU, but the scheduler ruled them out"
    )
    assert reason_cells(Translator("ko"), None) == {"reason": "", "reason_source": ""}
