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
# The server's own bound on a request body (NUFI_MAX_REQUEST_BODY_BYTES' default): a pack larger than
# it could not be applied anyway, and the reader refuses it before parsing a line.
MAX_PACK_BYTES = 1024 * 1024


class _AliasRefused(Exception):
    def __init__(self, mark: yaml.Mark) -> None:
        super().__init__()
        self.mark = mark


class _PackLoader(yaml.SafeLoader):
    """The safe loader without anchors and aliases. A pack never needs them, and a few nested
    aliases expand a text of a few hundred bytes into billions of nodes once turned into JSON;
    refusing them while composing means nothing is ever expanded."""

    def compose_node(self, parent: yaml.Node | None, index: int) -> yaml.Node | None:
        event = self.peek_event()  # type: ignore[no-untyped-call]
        if isinstance(event, yaml.AliasEvent) or getattr(event, "anchor", None) is not None:
            raise _AliasRefused(event.start_mark)
        return super().compose_node(parent, index)


def parse_packs(text: str) -> list[dict[str, Any]]:
    """The documents of a YAML text (safe load, `---` between documents); empty documents are
    skipped. Refused (422) when the text is larger than a request may be, is not YAML, holds an
    anchor or alias, or a document is not a mapping."""
    size = len(text.encode("utf-8", errors="surrogatepass"))
    if size > MAX_PACK_BYTES:
        raise ValidationFailed(
            code="pack.too_large", field="documents", params={"size": size, "limit": MAX_PACK_BYTES}
        )
    try:
        loaded = list(yaml.load_all(text, Loader=_PackLoader))
    except _AliasRefused as refused:
        raise ValidationFailed(
            code="pack.yaml_alias",
            field="documents",
            params={"line": refused.mark.line + 1, "column": refused.mark.column + 1},
        ) from None
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
