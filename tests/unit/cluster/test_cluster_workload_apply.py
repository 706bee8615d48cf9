"""What a refused workload write means is decided in one place (`cluster/workload_apply.py`): each
status the write names a meaning for gets it, a quota's admission refusal stays `quota.exceeded`
even where NuFi's own rights refused would mean something else, and every other refusal is the
general `refusal_error`, whatever the write."""

from __future__ import annotations

from typing import Any, cast

import pytest
from hypothesis import given
from hypothesis import strategies as st

from nufi.cluster.kube_errors import refusal_error
from nufi.cluster.kube_rest import KubeRefused
from nufi.cluster.objects import Kind, KubeObjects
from nufi.cluster.workload_apply import Write, apply_workload, refused_as
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


class _Objects:
    """Objects in a dict; `refuse` names the kind whose create is refused, with its status."""

    def __init__(self, refuse: tuple[str, int] | None = None) -> None:
        self.made: dict[tuple[str, str], dict[str, Any]] = {}
        self.refuse = refuse

    async def create(self, kind: Kind, namespace: str, body: dict[str, Any]) -> dict[str, Any]:
        if self.refuse is not None and self.refuse[0] == kind.kind:
            raise _refused(self.refuse[1], QUOTA if self.refuse[1] == 403 else "no")
        made = {**body, "kind": kind.kind, "metadata": {**body["metadata"], "uid": f"uid-{kind.kind}"}}
        self.made[(kind.kind, body["metadata"]["name"])] = made
        return made

    async def delete(self, kind: Kind, namespace: str, name: str) -> bool:
        return self.made.pop((kind.kind, name), None) is not None


TOP, PART, OTHER = Kind("apps/v1", "Top", "tops"), Kind("v1", "Part", "parts"), Kind("v1", "Other", "others")


def _writes() -> tuple[Write, list[Write]]:
    top = Write(TOP, {"metadata": {"name": "w"}}, TAKEN)
    return top, [
        Write(PART, {"metadata": {"name": "w"}}),
        Write(OTHER, {"metadata": {"name": "w-o"}}, field="f"),
    ]


async def test_a_workload_is_its_top_object_and_its_parts_owned_by_it() -> None:
    objects, change = _Objects(), _Change()
    top, parts = _writes()
    created = await apply_workload(cast(KubeObjects, objects), "team", top, parts, change)
    assert created["metadata"]["uid"] == "uid-Top" and change.touched
    for kind, name in (("Part", "w"), ("Other", "w-o")):
        (owner,) = objects.made[(kind, name)]["metadata"]["ownerReferences"]
        assert (owner["kind"], owner["name"], owner["uid"]) == ("Top", "w", "uid-Top")


async def test_a_refused_top_object_touches_nothing_and_a_refused_part_takes_back_what_was_written() -> None:
    objects, change = _Objects(refuse=("Top", 409)), _Change()
    top, parts = _writes()
    with pytest.raises(Conflict) as taken:
        await apply_workload(cast(KubeObjects, objects), "team", top, parts, change)
    assert taken.value is TAKEN and change.touched is False and objects.made == {}

    objects, change = _Objects(refuse=("Other", 403)), _Change()
    with pytest.raises(NufiError) as refused:
        await apply_workload(cast(KubeObjects, objects), "team", top, parts, change)
    assert (refused.value.code, refused.value.extra.get("field")) == ("quota.exceeded", "f")
    assert objects.made == {} and change.touched is True
