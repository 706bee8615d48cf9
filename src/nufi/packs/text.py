"""Device packs as YAML text: one reader and one writer, shared by the server and the `nufi` command,
so a pack printed by either is byte for byte what the other prints for the same types."""

from __future__ import annotations

from typing import Any

import yaml
from pydantic import ValidationError

from nufi.errors import ValidationFailed
from nufi.packs.model import DevicePack

# Long PromQL stays on one line: folding it would make diffs of packs hard to read.
_WIDTH = 1 << 16


def parse_packs(text: str) -> list[dict[str, Any]]:
    """The documents of a YAML text (safe load, `---` between documents); empty documents are
    skipped. Refused (422) when the text is not YAML or a document is not a mapping."""
    try:
        loaded = list(yaml.safe_load_all(text))
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        problem = str(getattr(exc, "problem", None) or exc)
        if mark is None:
            raise ValidationFailed(
                code="pack.yaml_invalid_nowhere", field="documents", params={"problem": problem}
            ) from None
        raise ValidationFailed(
            code="pack.yaml_invalid",
            field="documents",
            params={"line": mark.line + 1, "column": mark.column + 1, "problem": problem},
        ) from None
    documents = [document for document in loaded if document is not None]
    for index, document in enumerate(documents):
        if not isinstance(document, dict):
            raise ValidationFailed(
                code="pack.document_not_mapping",
                field=f"documents[{index}]",
                params={"path": f"documents[{index}]", "found": type(document).__name__},
            )
    return documents


def canonical(document: dict[str, Any]) -> dict[str, Any]:
    """A valid pack document in its canonical form (the models' field order, nulls left out); any
    other document as it is, so the writer never refuses what it is given."""
    try:
        return DevicePack.model_validate(document).document()
    except ValidationError:
        return document


def dump_packs(documents: list[dict[str, Any]]) -> str:
    """YAML text of the documents: block style, keys in the models' order, unicode as it is, `---`
    between documents."""
    return yaml.dump_all(
        [canonical(document) for document in documents],
        Dumper=_PackDumper,
        default_flow_style=False,
        sort_keys=False,
        allow_unicode=True,
        width=_WIDTH,
        explicit_start=False,
    )


class _PackDumper(yaml.SafeDumper):
    """Multi-line strings as literal blocks, the way a person writes a long expression."""


def _text(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    style = "|" if "\n" in value else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_PackDumper.add_representer(str, _text)
