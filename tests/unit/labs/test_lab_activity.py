"""A lab's activity read from its server's own answers: code-server's `/healthz` and Jupyter's status
and kernels, with anything else unreadable (never a wrong "no use")."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from nufi.workloads.labs.activity import (
    ACTIVE_WINDOW,
    Activity,
    Unreadable,
    from_code_server,
    from_jupyter,
)

READ_AT = datetime(2026, 12, 7, 12, 0, 0, tzinfo=UTC)
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=10),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)
# Millisecond timestamps code-server can send: 0 (no heartbeat yet) up to the year 2286.
heartbeats = st.integers(min_value=0, max_value=10**13)
instants = st.datetimes(
    min_value=datetime(2000, 1, 1), max_value=datetime(2100, 1, 1), timezones=st.just(UTC)
)


def _jupyter_time(at: datetime) -> str:
    return at.isoformat().replace("+00:00", "Z")  # as jupyter_server's isoformat writes it


@given(st.sampled_from(["alive", "expired"]), heartbeats)
def test_code_server_health_is_read_as_its_heartbeat(status: str, beat: int) -> None:
    activity = from_code_server({"status": status, "lastHeartbeat": beat}, READ_AT)
    assert activity.source == "code-server"
    assert activity.state == ("alive" if status == "alive" else "idle")
    if beat == 0:
        # No heartbeat since the server started: no use yet, which is not the same as unknown.
        assert activity.last_active is None
    else:
        assert activity.last_active is not None
        assert round(activity.last_active.timestamp() * 1000) == beat


@given(json_values)
def test_any_other_answer_is_unreadable_not_a_time(body: Any) -> None:
    try:
        activity = from_code_server(body, READ_AT)
    except Unreadable:
        return
    assert body["status"] in ("alive", "expired")
    assert isinstance(body["lastHeartbeat"], int | float) and not isinstance(body["lastHeartbeat"], bool)
    assert activity.state in ("alive", "idle")


@pytest.mark.parametrize(
    "body",
    [
        {"status": "ok"},  # a plain health check, not code-server's
        {"status": "alive"},
        {"status": "alive", "lastHeartbeat": "1765000000000"},
        {"status": "alive", "lastHeartbeat": True},
        {"status": "alive", "lastHeartbeat": -1},
        {"status": "alive", "lastHeartbeat": 10**20},
        [],
    ],
)
def test_a_health_answer_that_is_not_code_servers_is_unreadable(body: object) -> None:
    with pytest.raises(Unreadable):
        from_code_server(body, READ_AT)


@given(instants, st.lists(st.tuples(st.sampled_from(["idle", "starting"]), instants), max_size=4))
def test_jupyter_is_last_active_at_its_latest_time(server: datetime, kernels: list[Any]) -> None:
    read_at = max([server, *(at for _, at in kernels)]) + timedelta(seconds=30)
    listed = [{"execution_state": state, "last_activity": _jupyter_time(at)} for state, at in kernels]
    activity = from_jupyter({"last_activity": _jupyter_time(server)}, listed, read_at)
    latest = max([server, *(at for _, at in kernels)])
    assert activity == Activity("jupyter", "alive", latest, read_at)
    later = from_jupyter({"last_activity": _jupyter_time(server)}, listed, latest + ACTIVE_WINDOW)
    assert later.state == "idle" and later.last_active == latest


@given(instants, st.integers(min_value=0, max_value=3))
def test_a_busy_kernel_is_active_now(server: datetime, idle: int) -> None:
    listed = [{"execution_state": "idle", "last_activity": _jupyter_time(server)}] * idle
    listed.append({"execution_state": "busy", "last_activity": _jupyter_time(server)})
    activity = from_jupyter({"last_activity": _jupyter_time(server)}, listed, READ_AT)
    assert activity == Activity("jupyter", "busy", READ_AT, READ_AT)


@given(json_values, json_values)
def test_jupyter_answers_that_are_not_its_own_are_unreadable(status: Any, kernels: Any) -> None:
    try:
        activity = from_jupyter(status, kernels, READ_AT)
    except Unreadable:
        return
    assert isinstance(status, dict) and isinstance(kernels, list)
    assert activity.last_active is not None


def test_a_jupyter_time_without_a_zone_is_utc() -> None:
    activity = from_jupyter({"last_activity": "2026-12-07T11:59:30"}, [], READ_AT)
    assert activity.last_active == datetime(2026, 12, 7, 11, 59, 30, tzinfo=UTC)
