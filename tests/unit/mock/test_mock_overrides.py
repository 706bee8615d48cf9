"""Overrides from the control endpoint: replacement, precedence, expiry and removal by keys."""

from __future__ import annotations

from nufi_mock.exporter.overrides import Override, OverrideBook
from nufi_mock.exporter.readings import Quantity

T = Quantity.TEMPERATURE


def test_device_override_beats_node_override_whatever_the_order() -> None:
    book = OverrideBook()
    book.put(Override("n1", 1, T, 40.0, None))
    book.put(Override("n1", None, T, 95.0, None))
    assert book.value_for("n1", 0, T, now=0) == 95.0
    assert book.value_for("n1", 1, T, now=0) == 40.0
    assert book.value_for("n2", 0, T, now=0) is None
    assert book.value_for("n1", 0, Quantity.POWER, now=0) is None


def test_same_keys_replace() -> None:
    book = OverrideBook()
    assert book.put(Override("n1", None, T, 90.0, None)) is None
    previous = book.put(Override("n1", None, T, 95.0, None))
    assert previous is not None and previous.value == 90.0
    assert [o.value for o in book.active(0)] == [95.0]


def test_overrides_end_when_their_time_is_up() -> None:
    book = OverrideBook()
    book.put(Override("n1", None, T, 95.0, expires_at=10.0))
    assert book.value_for("n1", 0, T, now=9.99) == 95.0
    assert book.value_for("n1", 0, T, now=10.0) is None
    assert book.active(10.0) == []


def test_remove_matches_only_the_given_keys() -> None:
    book = OverrideBook()
    book.put(Override("n1", None, T, 95.0, None))
    book.put(Override("n1", 2, T, 50.0, None))
    book.put(Override("n2", None, Quantity.UTILIZATION, 100.0, None))
    assert [o.key for o in book.remove(node="n1", device=None)] == [("n1", None, T)]
    assert [o.key for o in book.remove(quantity=Quantity.UTILIZATION)] == [("n2", None, Quantity.UTILIZATION)]
    assert [o.key for o in book.remove()] == [("n1", 2, T)]
    assert book.active(0) == []
