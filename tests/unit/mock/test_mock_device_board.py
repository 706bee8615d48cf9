"""The plugin's device board: health changes wake ListAndWatch streams, unknown ids are reported."""

from __future__ import annotations

import asyncio
import contextlib

import pytest

from nufi_mock.deviceplugin.devices import DeviceBoard
from nufi_mock.inventory import mock_devices


async def test_a_change_wakes_waiters_and_bumps_the_version() -> None:
    board = DeviceBoard(mock_devices(4))
    waiter = asyncio.create_task(board.wait_newer(board.version, board.epoch))
    await asyncio.sleep(0)  # one turn of the loop: the waiter runs up to its wait, no further
    assert not waiter.done()
    unknown = await board.apply({"lpu1": "Unhealthy", "lpu9": "Unhealthy"})
    assert unknown == ["lpu9"]
    assert await asyncio.wait_for(waiter, 1) == 1
    assert board.health() == {"lpu0": "Healthy", "lpu1": "Unhealthy", "lpu2": "Healthy", "lpu3": "Healthy"}


async def test_applying_the_same_health_again_changes_nothing() -> None:
    board = DeviceBoard(mock_devices(2))
    await board.apply({"lpu0": "Unhealthy"})
    await board.apply({"lpu0": "Unhealthy"})
    assert board.version == 1
    await board.apply({})  # unlisted devices are Healthy again
    assert board.version == 2 and set(board.health().values()) == {"Healthy"}


async def test_ending_streams_releases_waiters_with_none() -> None:
    board = DeviceBoard(mock_devices(2))
    waiter = asyncio.create_task(board.wait_newer(board.version, board.epoch))
    await asyncio.sleep(0)
    await board.end_streams()
    assert await asyncio.wait_for(waiter, 1) is None
    # Streams of the new epoch wait as usual.
    later = asyncio.create_task(board.wait_newer(board.version, board.epoch))
    await asyncio.sleep(0)
    assert not later.done()
    later.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await later


async def test_bad_health_values_are_refused() -> None:
    board = DeviceBoard(mock_devices(2))
    with pytest.raises(ValueError, match="must be Healthy or Unhealthy"):
        await board.apply({"lpu0": "Sick"})
    assert board.version == 0


def test_numa_nodes_follow_the_inventory() -> None:
    assert DeviceBoard(mock_devices(4, 2)).numa_nodes() == {"lpu0": 0, "lpu1": 0, "lpu2": 1, "lpu3": 1}
