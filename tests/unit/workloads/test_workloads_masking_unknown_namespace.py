"""Masking by what is known: a pod whose namespace NuFi cannot tell (a type that maps `pod` but not
`namespace`) is hidden from readers who may not see some project, in snapshots and in alerts, unless
the cluster's pods on its node say whose it is."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from nufi.alerts.firing import masked, read_alerts
from nufi.monitoring.snapshots.attribution import PodHolding
from nufi.monitoring.snapshots.audience import SEES_ALL, Audiences
from nufi.monitoring.snapshots.masking import ANOTHER_PROJECT, hidden_in
from nufi.monitoring.snapshots.snapshot import DeviceEntry, NodeEntry, Snapshot, Summary

OTHER = ANOTHER_PROJECT


def _snapshot(pods: tuple[PodHolding, ...], devices: tuple[DeviceEntry, ...]) -> Snapshot:
    node = NodeEntry("n1", 4, 4, sum(p.devices for p in pods), pods, None, devices)
    return Snapshot("lpu", 0.0, Summary.of((node,)), (node,), (), ())


def _devices(snapshot: Snapshot) -> list[tuple[str | None, str | None]]:
    return [(d.pod, d.namespace) for d in snapshot.nodes[0].devices]


def test_a_pod_of_unknown_namespace_is_hidden_unless_the_node_says_whose_it_is() -> None:
    snapshot = _snapshot(
        (
            PodHolding("mine", "llm-0", 1),
            PodHolding("theirs", "secret-0", 1),
            PodHolding("mine", "twin-0", 1),
            PodHolding("theirs", "twin-0", 1),
        ),
        (
            DeviceEntry("0", pod="llm-0"),  # the node's only llm-0 is mine
            DeviceEntry("1", pod="secret-0"),  # theirs, by the node's pods
            DeviceEntry("2", pod="twin-0"),  # two namespaces hold a twin-0: cannot tell
            DeviceEntry("3", pod="ghost-0"),  # no bound pod of that name
            DeviceEntry("4"),
        ),
    )
    shown = Audiences.masked(snapshot, frozenset({"theirs"}))
    assert _devices(shown) == [("llm-0", None), (OTHER, OTHER), (OTHER, OTHER), (OTHER, OTHER), (None, None)]
    # Who may see every project sees every name, known or not.
    assert _devices(Audiences.masked(snapshot, SEES_ALL)) == _devices(snapshot)


@given(st.text(min_size=1, max_size=20), st.frozensets(st.text(min_size=1, max_size=8), min_size=1))
def test_no_pod_name_of_unknown_namespace_reaches_a_reader_who_may_not_see_some_project(
    pod: str, hidden: frozenset[str]
) -> None:
    snapshot = _snapshot((), (DeviceEntry("0", pod=pod),))
    assert _devices(Audiences.masked(snapshot, hidden)) == [(OTHER, OTHER)]


def test_alerts_of_a_pod_of_unknown_namespace_are_hidden_too() -> None:
    base = {"alertname": "NuFiDeviceHot", "nufi_alert": "hot", "device_type": "lpu", "severity": "critical"}
    alerts = read_alerts(
        {
            "alerts": [
                {"labels": base | {"node": "n", "device": "0", "pod": "secret-0"}, "state": "firing"},
                {
                    "labels": base | {"node": "n", "device": "1", "pod": "mine-0", "namespace": "mine"},
                    "state": "firing",
                },
                {"labels": base | {"node": "n", "device": "2"}, "state": "firing"},
            ]
        }
    )
    shown = masked(alerts, hidden_in(frozenset({"theirs"})))
    assert [(a.device, a.pod, a.namespace) for a in shown] == [
        ("0", OTHER, OTHER),
        ("1", "mine-0", "mine"),
        ("2", None, None),
    ]
    # Nothing is hidden from a reader who may see every project.
    assert masked(alerts, hidden_in(frozenset())) == alerts
