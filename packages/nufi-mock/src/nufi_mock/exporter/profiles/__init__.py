"""Vendor profiles: which metric names, labels and units the exporter emits."""

from __future__ import annotations

from enum import StrEnum

from .base import Families, Naming, OverrideTarget, Profile
from .dcgm import DcgmProfile
from .furiosa import FuriosaProfile
from .lpu import LpuProfile
from .rbln import RblnProfile

PROFILES: dict[str, type[Profile]] = {
    cls.name: cls for cls in (LpuProfile, DcgmProfile, FuriosaProfile, RblnProfile)
}


class ProfileName(StrEnum):
    """The keys of PROFILES, as a choice for command-line options."""

    LPU = LpuProfile.name
    DCGM = DcgmProfile.name
    FURIOSA = FuriosaProfile.name
    RBLN = RblnProfile.name


def make_profile(name: str, naming: Naming = Naming.CURRENT, *, quirks: bool = False) -> Profile:
    """The profile called ``name``; ValueError names the choices when there is none."""
    try:
        cls = PROFILES[name]
    except KeyError:
        raise ValueError(f"unknown profile {name!r}; choose one of {', '.join(PROFILES)}") from None
    return cls(naming, quirks=quirks)


__all__ = ["PROFILES", "Families", "Naming", "OverrideTarget", "Profile", "ProfileName", "make_profile"]
