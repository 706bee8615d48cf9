"""Which device type already registered a resource key, for the wizard's step 1 and its API check."""

from __future__ import annotations

from nufi.devices.checks import RegisteredType, registered_by
from nufi.devices.official.nvidia import PRESET

OTHER = PRESET.model_copy(update={"id": "another-gpu", "name": "Another GPU"})


def test_the_type_using_the_key_is_named_by_id_and_name() -> None:
    assert registered_by("nvidia.com/gpu", [PRESET]) == RegisteredType(id="nvidia-gpu", name="NVIDIA GPU")


def test_a_key_no_type_uses_is_registered_by_none() -> None:
    assert registered_by("example.com/npu", [PRESET]) is None


def test_the_type_being_edited_is_not_a_duplicate_of_itself() -> None:
    assert registered_by("nvidia.com/gpu", [PRESET], editing="nvidia-gpu") is None


def test_another_type_with_the_key_still_counts_while_one_is_edited() -> None:
    found = registered_by("nvidia.com/gpu", [PRESET, OTHER], editing="nvidia-gpu")
    assert found == RegisteredType(id="another-gpu", name="Another GPU")


def test_surrounding_spaces_do_not_hide_the_match() -> None:
    assert registered_by(" nvidia.com/gpu ", [PRESET]) is not None


def test_keys_are_case_sensitive_as_in_kubernetes() -> None:
    assert registered_by("NVIDIA.com/gpu", [PRESET]) is None
