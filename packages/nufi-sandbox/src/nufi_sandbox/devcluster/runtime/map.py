"""The runtime map: which container images the dev cluster runs as local processes, and how.

The file is JSON, handed to the dev cluster with ``--runtime-map PATH``::

    {
      "images": {"<image exactly as in the container spec>": {"argv": [...], "env": {...}}},
      "nodes": {"<node name>": {"env": {...}}}
    }

``argv`` plays the image's entrypoint: the container's ``args`` are appended to it. Strings in
``argv`` and in ``env`` values may hold the placeholders in ``PLACEHOLDERS``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationError, field_validator

PLACEHOLDERS = ("{port}", "{node}", "{pod}", "{namespace}", "{workdir}")


class RuntimeMapError(ValueError):
    """A runtime map file that cannot be read or does not have the documented shape."""


def _check_env_names(env: dict[str, str]) -> dict[str, str]:
    for key in env:
        if not key or "=" in key or "\0" in key:
            raise ValueError(f"environment variable name {key!r} is not valid (empty, or holds '=')")
    return env


EnvMap = Annotated[dict[str, str], AfterValidator(_check_env_names)]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class ImageEntry(_Strict):
    argv: tuple[str, ...] = Field(min_length=1)
    env: EnvMap = Field(default_factory=dict)

    @field_validator("argv")
    @classmethod
    def _program_named(cls, argv: tuple[str, ...]) -> tuple[str, ...]:
        if not argv[0].strip():
            raise ValueError("argv[0] must name the program to run")
        return argv


class NodeEntry(_Strict):
    env: EnvMap = Field(default_factory=dict)


class RuntimeMap(_Strict):
    images: dict[str, ImageEntry] = Field(default_factory=dict)
    nodes: dict[str, NodeEntry] = Field(default_factory=dict)

    def entry_for(self, image: str) -> ImageEntry | None:
        """The entry of exactly this image reference (no normalisation: `nginx` is not `nginx:latest`)."""
        return self.images.get(image)

    def node_env(self, node: str) -> dict[str, str]:
        found = self.nodes.get(node)
        return dict(found.env) if found is not None else {}


def parse_runtime_map(text: str, source: str = "runtime map") -> RuntimeMap:
    """Validate a runtime map document; the error names the offending key and the fix."""
    try:
        return RuntimeMap.model_validate_json(text)
    except ValidationError as exc:
        problems = []
        for error in exc.errors():
            where = ".".join(str(part) for part in error["loc"]) or "(top level)"
            problems.append(f"{where}: {error['msg']}")
        raise RuntimeMapError(
            f"{source} is not a valid runtime map: " + "; ".join(problems) + ". Expected "
            '{"images": {"<image>": {"argv": ["/abs/program", "..."], "env": {"KEY": "value"}}}, '
            '"nodes": {"<node>": {"env": {"KEY": "value"}}}}'
        ) from None


def load_runtime_map(path: Path) -> RuntimeMap:
    try:
        text = path.read_text()
    except OSError as exc:
        raise RuntimeMapError(f"cannot read runtime map {path}: {exc.strerror}") from None
    return parse_runtime_map(text, source=str(path))


def dump_runtime_map(runtime_map: RuntimeMap) -> str:
    """The file form, for writers of runtime maps (the sandbox, tests)."""
    return json.dumps(runtime_map.model_dump(mode="json"), indent=2)
