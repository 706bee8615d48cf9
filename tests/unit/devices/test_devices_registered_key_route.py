"""The API's resource-key check answers which type already registered the key, leaving out the type the
request says is being edited; the catalog's own answer is kept as it was."""

from __future__ import annotations

from typing import Any, cast

from nufi.api.admin_devices import check_resource_key
from nufi.devices.catalog import DeviceCatalog
from nufi.devices.checks import RegisteredType, ResourceKeyCheck, ResourceKeyCheckRequest
from nufi.devices.official.nvidia import PRESET

PRESENT = ResourceKeyCheck(valid=True, found=True, message="found")


class _Catalog:
    """The two catalog calls the route makes."""

    async def check_resource_key(self, principal: Any, resource_key: str) -> ResourceKeyCheck:
        return PRESENT

    async def list(self, principal: Any) -> list[Any]:
        return [PRESET]


async def _answer(**request: Any) -> ResourceKeyCheck:
    catalog = cast(DeviceCatalog, _Catalog())
    return await check_resource_key(ResourceKeyCheckRequest(**request), cast(Any, None), catalog)


async def test_a_registered_key_is_answered_with_the_type_using_it() -> None:
    answer = await _answer(resource_key="nvidia.com/gpu")
    assert answer.registered_by == RegisteredType(id="nvidia-gpu", name="NVIDIA GPU")
    assert answer.model_dump(exclude={"registered_by"}) == PRESENT.model_dump(exclude={"registered_by"})


async def test_the_type_being_edited_is_not_answered_as_using_its_own_key() -> None:
    assert (await _answer(resource_key="nvidia.com/gpu", editing="nvidia-gpu")).registered_by is None


async def test_a_request_without_the_new_field_is_still_accepted() -> None:
    assert (await _answer(resource_key="example.com/npu")).registered_by is None
