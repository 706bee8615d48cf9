"""What an audit record changed, leaf by leaf: nested objects flattened, the writers' bookkeeping left
out, a deployment override's JSON text opened, and equal states changing nothing."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from nufi.db.audit_changes import ABSENT, LeafChange, leaf_changes

_keys = st.sampled_from(["enabled", "trip_celsius", "unhealthy", "devices", "lpu", "source", "name"])
# (Text holding a JSON object is opened; that has a test of its own.)
_leaves = st.none() | st.booleans() | st.integers(-5, 5) | st.text(alphabet="ab1 ", max_size=3)
_states = st.recursive(
    st.dictionaries(_keys, _leaves, max_size=4), lambda inner: st.dictionaries(_keys, inner, max_size=4)
)


def test_a_nested_change_is_its_leaves() -> None:
    before = {"unhealthy": {"enabled": False, "resume_hold_seconds": 30, "trip_hold_seconds": 0}}
    after = {"unhealthy": {"enabled": True, "resume_hold_seconds": 30, "trip_hold_seconds": 0}}
    assert leaf_changes(before, after) == [LeafChange(("unhealthy", "enabled"), False, True)]


def test_a_per_type_map_changes_by_type() -> None:
    changes = leaf_changes({"devices": {"lpu": 3}}, {"devices": {"lpu": 4, "rngd": 1}})
    assert changes == [
        LeafChange(("devices", "lpu"), 3, 4),
        LeafChange(("devices", "rngd"), ABSENT, 1),
    ]


def test_the_writers_bookkeeping_is_no_change() -> None:
    policy = {"enabled": True, "trip_celsius": 85.0}
    assert leaf_changes(policy | {"source": "admin"}, policy) == []
    assert leaf_changes(policy | {"revision": 3}, policy | {"revision": 4}) == []
    # Only at the top: a field of that name inside a state is the state's own.
    assert leaf_changes({"custom": {"source": "a"}}, {"custom": {"source": "b"}}) == [
        LeafChange(("custom", "source"), "a", "b")
    ]


def test_a_creation_lists_every_leaf_it_made() -> None:
    assert leaf_changes(None, {"name": "chat", "accelerator": {"count": 1}}) == [
        LeafChange(("accelerator", "count"), ABSENT, 1),
        LeafChange(("name",), ABSENT, "chat"),
    ]
    assert leaf_changes({"running": True}, None) == [LeafChange(("running",), True, ABSENT)]


def test_an_override_kept_as_json_text_changes_by_its_fields() -> None:
    changes = leaf_changes({"value": None}, {"value": '{"trip_celsius": 80}'})
    assert changes == [LeafChange(("value",), None, {"trip_celsius": 80})]
    changes = leaf_changes({"value": '{"trip_celsius": 80}'}, {"value": '{"trip_celsius": 70}'})
    assert changes == [LeafChange(("value", "trip_celsius"), 80, 70)]
    # Text that only starts like an object stays text.
    assert leaf_changes({"value": "{x"}, {"value": "{y"}) == [LeafChange(("value",), "{x", "{y")]


@given(_states)
def test_a_state_saved_again_changes_nothing(state: dict[str, Any]) -> None:
    assert leaf_changes(state, dict(state)) == []


@given(_states, _states)
def test_each_change_is_a_differing_leaf(before: dict[str, Any], after: dict[str, Any]) -> None:
    changes = leaf_changes(before, after)
    assert [change.path for change in changes] == sorted(change.path for change in changes)
    for change in changes:
        assert change.before != change.after
        assert _at(before, change.path) == change.before
        assert _at(after, change.path) == change.after
    if changes == []:
        assert _leaves_of(before) == _leaves_of(after)


def _at(state: object, path: tuple[str, ...]) -> object:
    for key in path:
        if not isinstance(state, dict) or key not in state:
            return ABSENT
        state = state[key]
    return state


def _leaves_of(state: dict[str, Any], path: tuple[str, ...] = ()) -> dict[tuple[str, ...], object]:
    found: dict[tuple[str, ...], object] = {}
    for key, value in state.items():
        if not path and key == "source":
            continue
        if isinstance(value, dict):
            found |= _leaves_of(value, (*path, key))
        else:
            found[(*path, key)] = value
    return found
