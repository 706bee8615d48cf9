"""Running mapped container images as local processes: the runtime map, the process runtime, probes."""

from nufi_sandbox.devcluster.runtime.map import (
    ImageEntry,
    NodeEntry,
    RuntimeMap,
    RuntimeMapError,
    dump_runtime_map,
    load_runtime_map,
    parse_runtime_map,
)

__all__ = [
    "ImageEntry",
    "NodeEntry",
    "RuntimeMap",
    "RuntimeMapError",
    "dump_runtime_map",
    "load_runtime_map",
    "parse_runtime_map",
]
