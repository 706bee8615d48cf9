"""The packs and the schema the repository ships are what the code makes, and read back unchanged."""

from __future__ import annotations

from pathlib import Path

import pytest

from nufi.packs import DevicePack, dump_packs, parse_packs
from nufi.packs.shipped import OFFICIAL_DIR, SCHEMA_PATH, shipped_texts
from nufi_mock.exporter.profiles import lpu as lpu_profile

ROOT = Path(__file__).resolve().parents[3]
PACKS = sorted((ROOT / "packs").rglob("*.yaml"))


@pytest.mark.parametrize("path", sorted(shipped_texts()), ids=str)
def test_shipped_files_are_what_export_and_the_models_give(path: Path) -> None:
    # After a change of the presets or the models: python -m nufi.packs.shipped .
    assert (ROOT / path).read_text(encoding="utf-8") == shipped_texts()[path]


def test_every_official_type_ships_as_a_pack_and_nothing_else_is_official() -> None:
    shipped = {p.relative_to(ROOT) for p in PACKS if p.parent == ROOT / OFFICIAL_DIR}
    assert shipped == {p for p in shipped_texts() if p != SCHEMA_PATH}
    assert (ROOT / "packs/examples/lpu.yaml") in PACKS


@pytest.mark.parametrize("path", PACKS, ids=lambda p: str(p.relative_to(ROOT)))
def test_each_shipped_pack_round_trips_parse_model_dump_unchanged(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    documents = [DevicePack.model_validate(doc).document() for doc in parse_packs(text)]
    assert dump_packs(documents) == text


def test_the_example_lpu_is_the_mock_lpu_with_protection_and_alerts() -> None:
    (lpu,) = parse_packs((ROOT / "packs/examples/lpu.yaml").read_text(encoding="utf-8"))
    assert lpu["metadata"]["name"] == "hyperaccel-lpu"
    assert lpu["spec"]["resource_key"] == "hyperaccel.ai/lpu"
    assert {"protection", "alerts"} <= set(lpu["spec"])
    # Every quantity the mock exporter reports is mapped, its health too (1 healthy, 0 unhealthy), so
    # the example can cut unhealthy devices and raise NuFiDeviceUnhealthy once those are switched on.
    metrics = lpu["spec"]["metrics"]
    assert (metrics["temperature"], metrics["health"]) == (lpu_profile.TEMPERATURE, lpu_profile.HEALTH)
