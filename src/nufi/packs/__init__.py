"""Device packs: device types with their protection policy and alert thresholds as YAML documents
(`apiVersion: nufi.io/v1`, `kind: DeviceType`), exported, diffed and applied (docs/packs.md)."""

from nufi.packs.model import API_VERSION, KIND, DevicePack, json_schema
from nufi.packs.text import dump_packs, parse_packs

__all__ = ["API_VERSION", "KIND", "DevicePack", "dump_packs", "json_schema", "parse_packs"]
