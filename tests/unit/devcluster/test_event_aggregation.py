"""Events of one object, type and reason with ever new messages (a ReplicaSet refused by quota again and
again, each time for a new pod name) are combined as client-go's EventAggregator combines them."""

from __future__ import annotations

from nufi_sandbox.devcluster.resources import ResourceRegistry
from nufi_sandbox.devcluster.sim.events import EventRecorder
from nufi_sandbox.devcluster.storage.store import Store


def test_the_tenth_distinct_message_and_later_ones_go_to_one_combined_event() -> None:
    store = Store(ResourceRegistry.with_builtins())
    recorder = EventRecorder(store)
    meta = {"name": "web", "namespace": "default", "uid": "u1"}
    rs = {"kind": "ReplicaSet", "apiVersion": "apps/v1", "metadata": meta}
    for i in range(12):
        message = f'Error creating: pods "web-{i}" is forbidden'
        recorder.record(rs, "Warning", "FailedCreate", message, component="rs")
    events, _, _ = store.list(store.rt("", "v1", "events"), "default")
    combined = [e for e in events if e["message"].startswith("(combined from similar events): ")]
    assert len(events) == 10 and len(combined) == 1
    assert combined[0]["count"] == 3
    latest = 'Error creating: pods "web-11" is forbidden'
    assert combined[0]["message"] == f"(combined from similar events): {latest}"
    assert all(e["count"] == 1 for e in events if e not in combined)
