"""The exporter's repeatable options: nodes, label renames and per-node PodResources sockets."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from nufi_mock.exporter.config import ConfigError, parse_label_names, parse_nodes, parse_pod_resources

node_names = st.from_regex(r"\A[a-z0-9]([-a-z0-9]{0,10}[a-z0-9])?\Z")
label_names = st.from_regex(r"\A[a-zA-Z][a-zA-Z0-9_]{0,12}\Z")


@given(st.lists(node_names, min_size=1, max_size=5, unique=True))
def test_nodes_round_trip(nodes: list[str]) -> None:
    assert parse_nodes(" , ".join(nodes)) == tuple(nodes)


@pytest.mark.parametrize(
    ("text", "message"),
    [("", "at least one"), ("a,A", "not a node name"), ("a,b,a", "more than once"), ("-x", "not a node")],
)
def test_bad_node_lists(text: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        parse_nodes(text)


@given(st.dictionaries(label_names, label_names, max_size=4))
def test_label_renames_round_trip(renames: dict[str, str]) -> None:
    if len(set(renames.values())) < len(renames):
        with pytest.raises(ConfigError, match="several labels"):
            parse_label_names(f"{k}={v}" for k, v in renames.items())
    else:
        assert parse_label_names(f"{k}={v}" for k, v in renames.items()) == renames


@pytest.mark.parametrize(
    ("value", "message"),
    [("node", "FROM=TO"), ("=x", "FROM=TO"), ("node=1abc", "not a usable"), ("__x=y", "not a usable")],
)
def test_bad_label_renames(value: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        parse_label_names([value])


def test_the_same_label_cannot_be_renamed_twice() -> None:
    with pytest.raises(ConfigError, match="renamed twice"):
        parse_label_names(["node=a", "node=b"])


def test_single_node_defaults_to_the_kubelet_socket() -> None:
    assert parse_pod_resources([], ["n1"]) == {"n1": Path("/var/lib/kubelet/pod-resources/kubelet.sock")}
    assert parse_pod_resources([], ["n1", "n2"]) == {}


def test_template_and_explicit_entries_combine() -> None:
    sockets = parse_pod_resources(["/s/{node}/pr.sock", "n2=/other.sock"], ["n1", "n2", "n3"])
    assert sockets == {"n1": Path("/s/n1/pr.sock"), "n2": Path("/other.sock"), "n3": Path("/s/n3/pr.sock")}


def test_explicit_entries_only_cover_their_nodes() -> None:
    assert parse_pod_resources(["n1=/a.sock"], ["n1", "n2"]) == {"n1": Path("/a.sock")}


@pytest.mark.parametrize(
    ("values", "message"),
    [
        (["/shared.sock"], "would be shared by 2 nodes"),
        (["zz=/a.sock"], "not in --nodes"),
        (["n1="], "names no path"),
        (["/a/{node}", "/b/{node}"], "only one entry"),
    ],
)
def test_bad_socket_options(values: list[str], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        parse_pod_resources(values, ["n1", "n2"])


@given(st.lists(node_names, min_size=1, max_size=4, unique=True))
def test_every_node_gets_its_own_socket_from_a_template(nodes: list[str]) -> None:
    sockets = parse_pod_resources(["/state/{node}/kubelet.sock"], nodes)
    assert sockets == {n: Path(f"/state/{n}/kubelet.sock") for n in nodes}
    assert len(set(sockets.values())) == len(nodes)
