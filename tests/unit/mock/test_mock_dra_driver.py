"""The mock LPU's DRA driver, its pure parts: the slices it publishes, how a pool's generation moves,
what a prepared claim's CDI spec says."""

from __future__ import annotations

import asyncio
import itertools
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from nufi_mock.dra import DRIVER_NAME, MODELS, POOL_DEVICE_LIMIT, pool_slices
from nufi_mock.dra.cdi import cdi_device_id, claim_spec
from nufi_mock.dra.prepare import PrepareError, devices_by_request
from nufi_mock.dra.publisher import SlicePublisher
from nufi_mock.exporter.readings import DeviceIdentity
from nufi_mock.inventory import mock_devices

Obj = dict[str, Any]


def test_a_node_s_lpus_are_one_pool_named_after_the_node_with_typed_attributes() -> None:
    model = MODELS["lpu-32g"]
    [published] = pool_slices("lpu-node-3", mock_devices(4, 2), model, generation=3, node_uid="u-1")
    spec = published["spec"]
    assert published["apiVersion"] == "resource.k8s.io/v1"
    assert published["kind"] == "ResourceSlice"
    assert published["metadata"]["ownerReferences"][0] == {
        "apiVersion": "v1",
        "kind": "Node",
        "name": "lpu-node-3",
        "uid": "u-1",
        "controller": True,
    }
    assert spec["driver"] == DRIVER_NAME == "lpu.hyperaccel.ai"
    assert spec["nodeName"] == "lpu-node-3"
    assert spec["pool"] == {"name": "lpu-node-3", "generation": 3, "resourceSliceCount": 1}
    assert [device["name"] for device in spec["devices"]] == ["lpu0", "lpu1", "lpu2", "lpu3"]
    lpu2 = spec["devices"][2]
    assert lpu2["attributes"] == {
        "model": {"string": "lpu-32g"},
        "firmwareVersion": {"version": "2.1.0"},
        "numaNode": {"int": 1},
        # The exporter names the same device by the same UUID.
        "uuid": {"string": DeviceIdentity("lpu-node-3", 2, 1).uuid},
        "index": {"int": 2},
    }
    assert lpu2["capacity"] == {"memory": {"value": "32Gi"}}


@given(count=st.integers(1, 3 * POOL_DEVICE_LIMIT))
def test_a_pool_spans_as_many_slices_as_the_device_limit_needs(count: int) -> None:
    slices = pool_slices("n", mock_devices(count, 1), MODELS["lpu-16g"], generation=1)
    names = [device["name"] for item in slices for device in item["spec"]["devices"]]
    assert names == [f"lpu{i}" for i in range(count)]
    assert all(len(item["spec"]["devices"]) <= POOL_DEVICE_LIMIT for item in slices)
    assert {item["spec"]["pool"]["resourceSliceCount"] for item in slices} == {len(slices)}
    assert len(slices) == -(-count // POOL_DEVICE_LIMIT)


class _FakeApi:
    """ResourceSlices as the API server keeps them, names generated."""

    def __init__(self) -> None:
        self.slices: dict[str, Obj] = {}
        self._names = itertools.count()

    async def slices_of(self, driver: str, node: str) -> list[Obj]:
        return [
            s for s in self.slices.values() if (s["spec"]["driver"], s["spec"]["nodeName"]) == (driver, node)
        ]

    async def create_slice(self, body: Obj) -> Obj:
        name = f"{body['metadata']['generateName']}{next(self._names)}"
        self.slices[name] = body | {"metadata": {"name": name}}
        return self.slices[name]

    async def delete_slice(self, name: str) -> None:
        self.slices.pop(name, None)

    async def node_uid(self, node: str) -> str:
        return "node-uid"


def _pool(api: _FakeApi) -> list[tuple[int, list[str]]]:
    slices = api.slices.values()
    return [(s["spec"]["pool"]["generation"], [d["name"] for d in s["spec"]["devices"]]) for s in slices]


def test_an_unhealthy_device_leaves_the_pool_in_a_new_generation_and_stop_deletes_it() -> None:
    api = _FakeApi()
    publisher = SlicePublisher(api, "lpu-node-3", MODELS["lpu-32g"])
    devices = mock_devices(4, 2)

    async def walk() -> None:
        assert await publisher.publish(devices)
        assert _pool(api) == [(1, ["lpu0", "lpu1", "lpu2", "lpu3"])]
        assert not await publisher.publish(devices)
        assert await publisher.publish([d for d in devices if d.device_id != "lpu1"])
        assert _pool(api) == [(2, ["lpu0", "lpu2", "lpu3"])]
        await publisher.withdraw()
        assert api.slices == {}

    asyncio.run(walk())


def test_a_restarted_driver_publishes_above_the_generation_it_finds_and_replaces_a_deleted_slice() -> None:
    api = _FakeApi()
    devices = mock_devices(2, 1)

    async def walk() -> None:
        first = SlicePublisher(api, "n", MODELS["lpu-16g"])
        await first.publish(devices)
        await first.publish(devices[:1])
        restarted = SlicePublisher(api, "n", MODELS["lpu-16g"])
        assert await restarted.publish(devices)
        assert _pool(api) == [(3, ["lpu0", "lpu1"])]
        api.slices.clear()
        assert await restarted.publish(devices)
        assert _pool(api) == [(4, ["lpu0", "lpu1"])]

    asyncio.run(walk())


def _claim(results: list[Obj], uid: str = "c-1") -> Obj:
    return {
        "metadata": {"namespace": "ns", "name": "claim", "uid": uid},
        "status": {"allocation": {"devices": {"results": results}}},
    }


def _result(request: str, device: str, pool: str = "lpu-node-3", driver: str = DRIVER_NAME) -> Obj:
    return {"request": request, "driver": driver, "pool": pool, "device": device}


def test_preparing_takes_this_driver_s_devices_of_this_pool_by_request() -> None:
    claim = _claim(
        [
            _result("lpus", "lpu0"),
            _result("lpus", "lpu2"),
            _result("gpu", "gpu-0", driver="gpu.example.com"),
            _result("other", "lpu1", pool="lpu-node-1"),
            _result("pick/big", "lpu3"),
        ]
    )
    known = {"lpu0", "lpu1", "lpu2", "lpu3"}
    grouped = devices_by_request(claim, uid="c-1", node="lpu-node-3", known=known)
    assert grouped == {"lpus": ["lpu0", "lpu2"], "pick/big": ["lpu3"]}
    assert claim_spec("c-1", grouped) == {
        "cdiVersion": "0.6.0",
        "kind": "hyperaccel.ai/lpu",
        "devices": [
            {"name": "c-1-lpus", "containerEdits": {"env": ["LPU_VISIBLE_DEVICES=lpu0,lpu2"]}},
            {"name": "c-1-pick-big", "containerEdits": {"env": ["LPU_VISIBLE_DEVICES=lpu3"]}},
        ],
    }
    assert cdi_device_id("c-1", "pick/big") == "hyperaccel.ai/lpu=c-1-pick-big"


def test_preparing_refuses_another_claim_an_unallocated_one_and_a_device_it_does_not_have() -> None:
    known = {"lpu0"}
    for claim, uid, problem in (
        (_claim([_result("r", "lpu0")], uid="other"), "c-1", "has uid other, expected c-1"),
        ({"metadata": {"namespace": "ns", "name": "claim", "uid": "c-1"}}, "c-1", "is not allocated"),
        (_claim([_result("r", "lpu7")]), "c-1", "device lpu7 of pool lpu-node-3 is not an LPU"),
    ):
        try:
            devices_by_request(claim, uid=uid, node="lpu-node-3", known=known)
        except PrepareError as exc:
            assert problem in str(exc)
        else:
            raise AssertionError(f"prepared {claim}")
