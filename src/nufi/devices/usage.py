"""Who uses a device type: asked before the type is deleted.

The catalog does not know what workloads are; whoever does (the workloads domain, wired in
services.py) implements this and the catalog refuses to delete a type it reports as used.
"""

from __future__ import annotations

from typing import Protocol


class DeviceTypeUsage(Protocol):
    async def users_of(self, device_type_id: str) -> list[str]:
        """What uses the type now, each as `<namespace>/<kind>/<name>`; empty when nothing does."""
        ...
