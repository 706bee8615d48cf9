"""What a held device reports: holding is not working. A device a pod holds idles until a workload
reports load on it; an inference server's reported load heats exactly its devices; overrides still
make a node as hot as a thermal demo needs."""

from __future__ import annotations

from pathlib import Path

import pytest

from nufi_mock.exporter import ExporterConfig, ExporterEngine, PodRef, make_profile
from nufi_mock.exporter.attribution import ContainerDevices, PodResourcesClient
from nufi_mock.exporter.load import Load
from nufi_mock.exporter.overrides import Override
from nufi_mock.exporter.readings import Quantity, Reading

NODE = "n1"
LAB = ContainerDevices("team", "notes-0", "lab", "hyperaccel.ai/lpu", ("lpu0",))
SERVER = ContainerDevices("team", "infer-0", "app", "hyperaccel.ai/lpu", ("lpu1", "lpu2"))
AMBIENT = 35.0


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
async def engine(clock: Clock, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> ExporterEngine:
    """An engine whose kubelet says the lab holds lpu0 and the inference server lpu1 and lpu2."""

    async def held(_: PodResourcesClient) -> list[ContainerDevices]:
        return [LAB, SERVER]

    monkeypatch.setattr(PodResourcesClient, "list", held)
    config = ExporterConfig(
        profile="lpu", nodes=(NODE,), devices_per_node=4, pod_resources={NODE: tmp_path / "kubelet.sock"}
    )
    engine = ExporterEngine(config, make_profile("lpu"), clock=clock)
    await engine.refresh_attribution()
    assert engine.owners_of(NODE) == {
        0: PodRef("team", "notes-0", "lab"),
        1: PodRef("team", "infer-0", "app"),
        2: PodRef("team", "infer-0", "app"),
    }
    return engine


def run(engine: ExporterEngine, clock: Clock, seconds: float, *, server_load: float | None = None) -> None:
    """Step the engine for ``seconds``; with ``server_load`` the server reports it every step, as
    `nufi-mock inference` does every report interval."""
    dt = 1.0
    for _ in range(round(seconds / dt)):
        if server_load is not None:
            engine.loads.report(Load("team/infer-0", NODE, frozenset({1, 2}), server_load, clock.now + 3.0))
        clock.now += dt
        engine.step(dt)


def by_index(engine: ExporterEngine) -> dict[int, Reading]:
    return {reading.device.index: reading for reading in engine.readings()}


async def test_a_held_device_nobody_reports_working_stays_idle_and_cool(
    engine: ExporterEngine, clock: Clock
) -> None:
    # Ten minutes: twenty thermal time constants, long enough for any job's heat to show.
    run(engine, clock, 600)
    lab = by_index(engine)[0]
    assert lab.owner == PodRef("team", "notes-0", "lab")
    assert lab.utilization <= 2.0
    assert lab.temperature < AMBIENT + 3.0
    assert lab.memory_used < 0.01 * lab.memory_total


async def test_an_idle_server_keeps_its_model_in_memory_but_its_devices_stay_cool(
    engine: ExporterEngine, clock: Clock
) -> None:
    run(engine, clock, 600, server_load=0.0)
    readings = by_index(engine)
    for index in (1, 2):
        assert readings[index].utilization <= 2.0
        assert readings[index].temperature < AMBIENT + 3.0
        assert readings[index].memory_used > 0.3 * readings[index].memory_total


async def test_a_busy_server_heats_exactly_its_devices(engine: ExporterEngine, clock: Clock) -> None:
    run(engine, clock, 300, server_load=80.0)
    readings = by_index(engine)
    for index in (1, 2):
        assert 70.0 <= readings[index].utilization <= 90.0
        assert readings[index].temperature > 65.0
    for index in (0, 3):  # the idle lab's device and the free one
        assert readings[index].utilization <= 2.0
        assert readings[index].temperature < AMBIENT + 3.0


async def test_an_override_still_makes_an_idle_node_hot(engine: ExporterEngine, clock: Clock) -> None:
    engine.overrides.put(Override(NODE, None, Quantity.TEMPERATURE, 95.0, None))
    run(engine, clock, 60)
    assert {index: reading.temperature for index, reading in by_index(engine).items()} == {
        0: 95.0,
        1: 95.0,
        2: 95.0,
        3: 95.0,
    }
