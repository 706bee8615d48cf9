"""What a refused workload write means is decided in one place (`cluster/workload_apply.py`): each
status the write names a meaning for gets it, a quota's admission refusal stays `quota.exceeded`
even where NuFi's own rights refused would mean something else, and every other refusal is the
general `refusal_error`, whatever the write."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from nufi.cluster.kube_errors import refusal_error
from nufi.cluster.kube_rest import KubeRefused
from nufi.cluster.workload_apply import refused_as
from nufi.errors import Conflict, NotFound, NufiError

QUOTA = (
    'services "web" is forbidden: exceeded quota: no-services, requested: services=1, used: services=0, '
    "limited: services=0"
)
TAKEN = Conflict(code="workload.name_taken")
ABSENT = NotFound(code="deployment.not_found")


class _Stale(Exception):
    pass


class _Change:
    touched = True


def _refused(status: int, message: str = "no") -> KubeRefused:
    return KubeRefused(status, "Refused", message, namespace="team")


def _raised(exc: KubeRefused, **meanings: object) -> BaseException:
    with pytest.raises(BaseException) as caught, refused_as(**meanings):  # type: ignore[arg-type]
        raise exc
    return caught.value


def test_each_status_named_gets_its_meaning() -> None:
    assert _raised(_refused(409), taken=TAKEN, absent=ABSENT) is TAKEN
    assert _raised(_refused(404), taken=TAKEN, absent=ABSENT) is ABSENT
    assert isinstance(_raised(_refused(409), taken=_Stale()), _Stale)
    said = _raised(_refused(403, "rbac says no"), forbidden=lambda s: _Stale(s.status, s.message))
    assert isinstance(said, _Stale) and said.args == (403, "rbac says no")


def test_a_quota_refusal_is_quota_exceeded_even_where_forbidden_has_a_meaning() -> None:
    error = _raised(_refused(403, QUOTA), forbidden=_Stale(), field="name")
    assert isinstance(error, NufiError)
    assert (error.code, error.extra.get("field")) == ("quota.exceeded", "name")


def test_a_refused_write_leaves_its_change_untouched_and_exists_ok_swallows_a_409() -> None:
    change = _Change()
    _raised(_refused(422), change=change)
    assert change.touched is False
    with refused_as(exists_ok=True):
        raise _refused(409)


@given(st.integers(min_value=400, max_value=499), st.sampled_from(["no", QUOTA]))
def test_without_a_meaning_every_refusal_is_the_general_one(status: int, message: str) -> None:
    exc = _refused(status, message)
    error = _raised(exc, field="name")
    expected = refusal_error(exc, field="name")
    assert (type(error), getattr(error, "code", None)) == (type(expected), expected.code)
