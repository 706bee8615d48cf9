"""A message travels one way: `Message.to_data`/`from_data` and the one wire model `MessageModel`,
with messages nested in params, in lists and in mappings, and no face writing a serialiser of its own."""

from __future__ import annotations

import ast
import json
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from nufi.messages import Message, MessageModel

SRC = Path(__file__).resolve().parents[3] / "src" / "nufi"

codes = st.from_regex(r"[a-z]{1,8}(\.[a-z_]{1,8}){0,2}", fullmatch=True)
# `code` is left out: a mapping of exactly `code` and `params` *is* a message on the wire.
names = st.from_regex(r"[a-z_]{1,10}", fullmatch=True).filter(lambda name: name != "code")
leaves = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=12)
    | st.builds(Message, codes)
)
values = st.recursive(
    leaves,
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(names, inner, max_size=3)
        | st.builds(Message, codes, st.dictionaries(names, inner, max_size=3))
    ),
    max_leaves=12,
)
messages = st.builds(Message, codes, st.dictionaries(names, values, max_size=4))


@given(messages)
def test_a_message_round_trips_through_its_data_with_every_nested_message(message: Message) -> None:
    data = message.to_data()
    assert json.loads(json.dumps(data)) == data  # plain JSON, no Message left inside
    assert Message.from_data(data) == message


@given(messages)
def test_the_wire_model_carries_the_same_data(message: Message) -> None:
    model = MessageModel.of(message)
    assert model.model_dump() == message.to_data()
    assert MessageModel.model_validate_json(model.model_dump_json()).message() == message


def test_nested_messages_are_worded_the_same_after_the_trip() -> None:
    absent = Message("metric_check.label_absent", {"count": 1, "total": 2, "name": "node"})
    both = Message("metric_check.both", {"first": absent, "second": absent})
    data = both.to_data()
    assert data["params"]["first"] == {
        "code": "metric_check.label_absent",
        "params": {"count": 1, "total": 2, "name": "node"},
    }
    for language in ("ko", "en"):
        assert MessageModel.model_validate(data).text(language) == both.text(language)
        assert Message.from_data(data).text(language) == both.text(language)


# -- no serialiser or wire model beside the one ------------------------------------------------------

_RETIRED = {"as_dict", "message_data", "plain", "_plain_value"}


def _modules() -> list[tuple[Path, ast.Module]]:
    return [(path, ast.parse(path.read_text())) for path in sorted(SRC.rglob("*.py"))]


def _is_message_shape(node: ast.Dict) -> bool:
    keys = {key.value for key in node.keys if isinstance(key, ast.Constant)}
    return len(node.keys) == 2 and keys == {"code", "params"}


def findings(modules: list[tuple[Path, ast.Module]]) -> list[str]:
    """Serialisers and wire models of a message written beside `Message.to_data` and `MessageModel`."""
    found = []
    for path, tree in modules:
        name = path.relative_to(SRC.parent).as_posix()
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef) and node.name in _RETIRED:
                found.append(f"{name}:{node.lineno} def {node.name}")
            if isinstance(node, ast.Dict) and _is_message_shape(node) and name != "nufi/messages/catalog.py":
                found.append(f"{name}:{node.lineno} a message written out by hand")
            if isinstance(node, ast.ClassDef) and node.name not in ("Message", "MessageModel"):
                fields = {
                    item.target.id
                    for item in node.body
                    if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name)
                }
                if fields == {"code", "params"}:
                    found.append(f"{name}:{node.lineno} class {node.name}, a second message model")
    return found


def test_every_face_serialises_a_message_the_one_way() -> None:
    assert findings(_modules()) == []


def test_the_check_finds_each_kind_of_second_serialiser() -> None:
    code = (
        "class Said(BaseModel):\n    code: str\n    params: dict\n"
        "def message_data(m):\n    return {'code': m.code, 'params': dict(m.params)}\n"
    )
    found = findings([(SRC / "devices" / "said.py", ast.parse(code))])
    assert [line.split(" ", 1)[1] for line in found] == [
        "class Said, a second message model",
        "def message_data",
        "a message written out by hand",
    ]
