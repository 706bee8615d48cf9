"""The runtime map's reader and the command line and environment a mapped container gets."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from nufi_sandbox.devcluster.runtime.env import Placeholders, expand_references, launch_spec
from nufi_sandbox.devcluster.runtime.map import (
    ImageEntry,
    NodeEntry,
    RuntimeMap,
    RuntimeMapError,
    dump_runtime_map,
    load_runtime_map,
    parse_runtime_map,
)

names = st.text(st.characters(codec="ascii", exclude_characters="=\0"), min_size=1, max_size=12)
values = st.text(max_size=20)
entries = st.builds(
    ImageEntry,
    argv=st.lists(values.filter(str.strip), min_size=1, max_size=4).map(tuple),
    env=st.dictionaries(names, values, max_size=4),
)
maps = st.builds(
    RuntimeMap,
    images=st.dictionaries(names, entries, max_size=3),
    nodes=st.dictionaries(names, st.builds(NodeEntry, env=st.dictionaries(names, values, max_size=3))),
)


@given(maps)
def test_a_written_map_reads_back_the_same(runtime_map: RuntimeMap) -> None:
    assert parse_runtime_map(dump_runtime_map(runtime_map)) == runtime_map


@pytest.mark.parametrize(
    ("document", "named"),
    [
        ({"images": {"img": {"argv": []}}}, "images.img.argv"),
        ({"images": {"img": {"argv": ["  "]}}}, "images.img.argv"),
        ({"images": {"img": {"argv": ["x"], "env": {"A=B": "1"}}}}, "images.img.env"),
        ({"images": {"img": {"argv": ["x"], "entrypoint": ["y"]}}}, "images.img.entrypoint"),
        ({"nodes": {"n": {"env": {"K": 1}}}}, "nodes.n.env.K"),
        ({"image": {}}, "image"),
        ([], "(top level)"),
    ],
)
def test_a_wrong_map_is_refused_naming_the_key(document: object, named: str) -> None:
    with pytest.raises(RuntimeMapError) as raised:
        parse_runtime_map(json.dumps(document), source="m.json")
    assert f"{named}:" in str(raised.value) and str(raised.value).startswith("m.json is not a valid")


def test_a_missing_file_is_named(tmp_path: Path) -> None:
    with pytest.raises(RuntimeMapError, match="cannot read runtime map"):
        load_runtime_map(tmp_path / "absent.json")


@given(st.text(max_size=30), st.dictionaries(st.from_regex(r"[A-Z_][A-Z0-9_]{0,5}", fullmatch=True), values))
def test_reference_expansion_leaves_text_without_references_alone(text: str, env: dict[str, str]) -> None:
    if "$" not in text:
        assert expand_references(text, env) == text


def test_reference_expansion_as_the_kubelet_does() -> None:
    env = {"A": "one", "B": "two"}
    assert expand_references("$(A)-$(B)", env) == "one-two"
    assert expand_references("$(MISSING)", env) == "$(MISSING)"
    assert expand_references("$$(A)", env) == "$(A)"


def test_launch_spec_layers_the_env_and_fills_placeholders(tmp_path: Path) -> None:
    entry = ImageEntry(argv=("/bin/serve", "--port", "{port}"), env={"WHO": "{pod}@{node}", "LAYER": "map"})
    pod = {
        "metadata": {"name": "p", "namespace": "ns", "uid": "u-1"},
        "spec": {"nodeName": "n1"},
    }
    container = {
        "name": "c",
        "args": ["--name", "$(WHO)"],
        "env": [
            {"name": "LAYER", "value": "container"},
            {"name": "PORT", "value": "1"},
            {"name": "IP", "valueFrom": {"fieldRef": {"fieldPath": "status.podIP"}}},
            {"name": "LIMIT", "valueFrom": {"resourceFieldRef": {"resource": "limits.cpu"}}},
        ],
    }
    spec = launch_spec(
        entry,
        container,
        pod,
        pod_ip="10.244.1.2",
        placeholders=Placeholders(4242, "n1", "p", "ns", tmp_path),
        node_env={"NODE_ONLY": "{workdir}", "LAYER": "node"},
        device_env={"LPU_VISIBLE_DEVICES": "0,1", "LAYER": "device"},
        base_env={"PATH": "/usr/bin", "HOME": "/root", "SECRET": "never"},
    )
    assert spec.argv == ["/bin/serve", "--port", "4242", "--name", "p@n1"]
    assert spec.env == {
        "PATH": "/usr/bin",
        "HOME": "/root",
        "WHO": "p@n1",
        "LAYER": "container",
        "NODE_ONLY": str(tmp_path),
        "LPU_VISIBLE_DEVICES": "0,1",
        "IP": "10.244.1.2",
        "PORT": "4242",
        "HOSTNAME": "p",
    }
    assert spec.skipped == ["LIMIT (resourceFieldRef)"]
