"""Label and field selectors as the Kubernetes API server parses and evaluates them."""

from nufi_sandbox.devcluster.selectors.errors import SelectorError
from nufi_sandbox.devcluster.selectors.fields import (
    ALWAYS_SUPPORTED_FIELDS,
    FieldRequirement,
    FieldSelector,
    field_value,
    parse_field_selector,
)
from nufi_sandbox.devcluster.selectors.label_parser import parse_label_selector
from nufi_sandbox.devcluster.selectors.labels import (
    EVERYTHING,
    NOTHING,
    LabelSelector,
    Operator,
    Requirement,
    label_selector_from_map,
    label_selector_from_object,
)

__all__ = [
    "ALWAYS_SUPPORTED_FIELDS",
    "EVERYTHING",
    "NOTHING",
    "FieldRequirement",
    "FieldSelector",
    "LabelSelector",
    "Operator",
    "Requirement",
    "SelectorError",
    "field_value",
    "label_selector_from_map",
    "label_selector_from_object",
    "parse_field_selector",
    "parse_label_selector",
]
