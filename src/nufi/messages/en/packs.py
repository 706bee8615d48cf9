"""English: what device packs (device types exported and applied as YAML) say."""

TEXTS: dict[str, str] = {
    "pack.invalid_field": "{path}: {reason}. Fix the value and apply again.",
    "pack.unknown_field": (
        "{path}: unknown field; the fields allowed here are {allowed}. Fix its spelling or remove it."
    ),
    "pack.unknown_field_suggest": (
        "{path}: unknown field; did you mean {suggestion}? Fix its spelling or remove it."
    ),
    "pack.duplicate_name": (
        "{field}: device type {name!r} is in {first} too; give each type one document in a pack."
    ),
    "pack.revision_of_absent": (
        "{field}: revision {expected_revision} was given, but device type {device_type!r} does not exist "
        "yet; remove metadata.revision to create it."
    ),
    "pack.prune_without_documents": (
        "prune without any document would delete every custom device type, so it is refused; give the "
        "documents of the types to keep."
    ),
    "pack.yaml_invalid": "The pack is not YAML (line {line}, column {column}): {problem}",
    "pack.yaml_invalid_nowhere": "The pack is not YAML: {problem}",
    "pack.yaml_alias": (
        "The pack uses a YAML anchor or alias (line {line}, column {column}); packs do not allow them. "
        "Write the value out in full where it is used."
    ),
    "pack.too_large": (
        "The pack is {size} bytes, larger than the {limit} bytes NuFi accepts; split it into several files."
    ),
    "pack.document_not_mapping": (
        "{path}: a document must be a mapping with apiVersion, kind, metadata and spec, not a {found}."
    ),
}
