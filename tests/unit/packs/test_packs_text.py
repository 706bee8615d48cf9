"""The pack format's reader, writer and checker: round trips, and refusals that name the field's path."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nufi.devices.spec import DeviceType
from nufi.errors import ValidationFailed
from nufi.packs import DevicePack, dump_packs, parse_packs
from nufi.packs.export import pack_of
from nufi.packs.text import MAX_PACK_BYTES
from nufi.packs.validate import validated_packs
from unit.packs.strategies import documents


# Each example parses PromQL and YAML: a few dozen cover the shapes without slowing the suite.
@settings(max_examples=30)
@given(st.lists(documents(), min_size=1, max_size=3))
def test_dump_then_parse_gives_the_canonical_documents_and_dumps_the_same_bytes(
    docs: list[dict[str, Any]],
) -> None:
    text = dump_packs(docs)
    parsed = parse_packs(text)
    assert parsed == [DevicePack.model_validate(doc).document() for doc in docs]
    assert dump_packs(parsed) == text
    assert text.count("\n---\n") == len(docs) - 1


@settings(max_examples=30)
@given(documents())
def test_a_type_saved_from_a_pack_exports_as_the_same_pack(doc: dict[str, Any]) -> None:
    # What apply saves (the type, its protection, its thresholds) and export reads back is the pack.
    pack = DevicePack.model_validate(doc)
    saved = DeviceType.model_validate({**pack.spec.type_fields(), "id": pack.name, "kind": "custom"})
    exported = pack_of(saved, pack.spec.protection, pack.spec.alerts)
    assert dump_packs([exported.document()]) == dump_packs([doc])


@settings(max_examples=10)
@given(documents())
def test_unicode_is_written_as_it_is(doc: dict[str, Any]) -> None:
    doc["spec"]["name"] = "하이퍼엑셀 LPU"
    text = dump_packs([doc])
    assert "name: 하이퍼엑셀 LPU" in text
    assert "\\u" not in text


def _mappings(doc: dict[str, Any], path: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    found = [path]
    for key, value in doc.items():
        if isinstance(value, dict):
            found += _mappings(value, (*path, key))
    return found


@settings(max_examples=40)
@given(documents(), st.data(), st.from_regex(r"\Azz[a-z]{3,8}\Z"))
def test_an_unknown_field_anywhere_is_refused_with_its_path(
    doc: dict[str, Any], data: st.DataObject, unknown: str
) -> None:
    where = data.draw(st.sampled_from(_mappings(doc)))
    broken = copy.deepcopy(doc)
    target = broken
    for key in where:
        target = target[key]
    target[unknown] = 1
    with pytest.raises(ValidationFailed) as caught:
        validated_packs([doc, broken])
    expected = "documents[1]" + "".join(f".{key}" for key in (*where, unknown))
    assert caught.value.field == expected
    assert caught.value.code in ("pack.unknown_field", "pack.unknown_field_suggest")
    assert expected in caught.value.text("en") and expected in caught.value.text("ko")


def test_a_misspelt_field_is_refused_with_the_field_it_probably_means() -> None:
    doc = parse_packs(_LPU)[0]
    doc["spec"]["metrics"]["tempreature"] = doc["spec"]["metrics"].pop("temperature")
    with pytest.raises(ValidationFailed) as caught:
        validated_packs([doc])
    assert caught.value.field == "documents[0].spec.metrics.tempreature"
    assert caught.value.text("en").startswith(
        "documents[0].spec.metrics.tempreature: unknown field; did you mean temperature?"
    )


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"kind": "Device"}, "documents[0].kind"),
        ({"apiVersion": "nufi.io/v2"}, "documents[0].apiVersion"),
        ({"metadata": {"name": "Not A Slug"}}, "documents[0].metadata.name"),
        ({"metadata": {"name": "lpu", "revision": "3"}}, "documents[0].metadata.revision"),
    ],
)
def test_unknown_kinds_and_versions_and_bad_values_name_their_field(
    change: dict[str, Any], field: str
) -> None:
    doc = parse_packs(_LPU)[0] | change
    with pytest.raises(ValidationFailed) as caught:
        validated_packs([doc])
    assert (caught.value.code, caught.value.field) == ("pack.invalid_field", field)


def test_a_threshold_out_of_range_names_its_field() -> None:
    doc = parse_packs(_LPU)[0]
    doc["spec"]["alerts"] = {"hot": {"celsius": 500}}
    with pytest.raises(ValidationFailed) as caught:
        validated_packs([doc])
    assert caught.value.field == "documents[0].spec.alerts.hot.celsius"


def test_a_type_given_twice_is_refused() -> None:
    doc = parse_packs(_LPU)[0]
    with pytest.raises(ValidationFailed) as caught:
        validated_packs([doc, doc])
    assert (caught.value.code, caught.value.field) == ("pack.duplicate_name", "documents[1].metadata.name")


@pytest.mark.parametrize(
    ("text", "code", "field"),
    [
        ("spec: [", "pack.yaml_invalid", "documents"),
        ("- a\n- b\n", "pack.document_not_mapping", "documents[0]"),
        ("a: 1\n---\nplain\n", "pack.document_not_mapping", "documents[1]"),
    ],
)
def test_text_that_is_not_a_pack_is_refused(text: str, code: str, field: str) -> None:
    with pytest.raises(ValidationFailed) as caught:
        parse_packs(text)
    assert (caught.value.code, caught.value.field) == (code, field)


def _laughs(levels: int) -> str:
    """The billion laughs: each level an anchored list of nine aliases of the level below."""
    lines = ["x0: &a0 [" + ", ".join(["lol"] * 9) + "]"]
    lines += [f"x{n}: &a{n} [" + ", ".join([f"*a{n - 1}"] * 9) + "]" for n in range(1, levels)]
    return "\n".join([*lines, f"bomb: *a{levels - 1}", ""])


def test_the_billion_laughs_is_refused_at_its_first_anchor() -> None:
    with pytest.raises(ValidationFailed) as caught:
        parse_packs(_laughs(10))
    assert (caught.value.code, caught.value.field) == ("pack.yaml_alias", "documents")
    assert (caught.value.params["line"], caught.value.params["column"]) == (1, 5)
    assert "line 1" in caught.value.text("en") and "1행" in caught.value.text("ko")


@settings(max_examples=30)
@given(documents(), st.data(), st.sampled_from(["&base ", "*base", "<<: *base"]))
def test_an_anchor_or_alias_anywhere_in_a_pack_is_refused_with_its_line(
    doc: dict[str, Any], data: st.DataObject, mark: str
) -> None:
    lines = dump_packs([doc]).splitlines()
    # A line holding a key and its scalar value, where an anchor or an alias may stand for the value.
    keyed = [i for i, line in enumerate(lines) if ": " in line and not line.lstrip().startswith("- ")]
    at = data.draw(st.sampled_from(keyed))
    key, _, value = lines[at].partition(": ")
    if mark == "<<: *base":
        lines.insert(at, key[: len(key) - len(key.lstrip())] + mark)
    else:
        lines[at] = f"{key}: {mark}{value if mark.startswith('&') else ''}"
    with pytest.raises(ValidationFailed) as caught:
        parse_packs("\n".join(lines) + "\n")
    assert caught.value.code == "pack.yaml_alias"
    assert caught.value.params["line"] == at + 1


def test_a_pack_larger_than_a_request_may_be_is_refused_before_it_is_parsed() -> None:
    text = "# " + "x" * MAX_PACK_BYTES + "\n" + _LPU
    with pytest.raises(ValidationFailed) as caught:
        parse_packs(text)
    assert caught.value.code == "pack.too_large"
    assert (caught.value.params["size"], caught.value.params["limit"]) == (len(text), MAX_PACK_BYTES)


def test_empty_documents_are_skipped() -> None:
    assert parse_packs("---\n" + _LPU + "---\n") == parse_packs(_LPU)


_LPU = """\
apiVersion: nufi.io/v1
kind: DeviceType
metadata:
  name: lpu
spec:
  name: HyperAccel LPU
  vendor: HyperAccel
  resource_key: hyperaccel.ai/lpu
  labels: {node: node, device: device}
  metrics:
    utilization: lpu_utilization_percent
    temperature: lpu_temperature_celsius
"""
