"""The generated parts of docs/ARCHITECTURE.md: the layer table, read from the `nufi-layers` import
contract in pyproject.toml and each package's docstring, and the table of what `Services` holds, read
from its fields and the comments above them. The docs test compares the page with them;
`python tests/support/architecture_doc.py --write` (or `make docs`) writes them in."""

from __future__ import annotations

import ast
import inspect
import re
import sys
import tomllib
import typing
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
PAGE = REPO / "docs" / "ARCHITECTURE.md"
SRC = REPO / "src" / "nufi"
_REGION = re.compile(
    r"(<!-- generated: (?P<name>[a-z-]+) .*?-->\n)(?P<body>.*?)(<!-- end generated -->)", re.S
)


def _layers() -> list[str]:
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    (contract,) = [c for c in project["tool"]["importlinter"]["contracts"] if c["id"] == "nufi-layers"]
    return list(contract["layers"])


def _summary(name: str) -> str:
    """The first paragraph of a top-level module's or package's docstring, on one line."""
    path = SRC / name / "__init__.py" if (SRC / name).is_dir() else SRC / f"{name}.py"
    docstring = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
    return _escaped(" ".join(docstring.split("\n\n")[0].split()))


def layer_table() -> str:
    rows = ["| layer | package | what it holds |", "|---|---|---|"]
    for number, layer in enumerate(_layers(), start=1):
        for name in (part.strip() for part in layer.split("|")):
            kind = "package" if (SRC / name).is_dir() else "module"
            rows.append(f"| {number} | `nufi.{name}` ({kind}) | {_summary(name)} |")
    return "\n".join(rows) + "\n"


def _escaped(text: str) -> str:
    return text.replace("|", "\\|")


def _class_summary(hint: object) -> str:
    """The first sentence of the docstring of the class a field holds (of X in `X | None`)."""
    classes = [arg for arg in typing.get_args(hint) if arg is not type(None)] or [hint]
    # Its own docstring only: an inherited one (pydantic's, a Protocol's) says nothing of NuFi.
    docstring = inspect.cleandoc(vars(classes[0]).get("__doc__") or "")
    sentence = " ".join(docstring.split("\n\n")[0].split()).split(". ")[0].rstrip(".")
    return f"{sentence}." if sentence else ""


def service_table() -> str:
    """Each field of `Services` with its type and what it is: the comment right above it, or else the
    first sentence of its class's docstring."""
    from nufi.services import Services

    hints = typing.get_type_hints(Services)
    lines, _ = inspect.getsourcelines(Services)
    rows = ["| field | type | what it is |", "|---|---|---|"]
    comment: list[str] = []
    for line in lines[1:]:
        text = line.strip()
        if text.startswith("#"):
            comment.append(text.lstrip("# "))
            continue
        field = re.match(r"(\w+): ([^=]+?)(?: = .*)?$", text)
        if field is not None and field.group(1) in hints:
            name, annotation = field.groups()
            said = " ".join(comment) or _class_summary(hints[name])
            rows.append(f"| `{name}` | `{_escaped(annotation)}` | {_escaped(said)} |")
        comment = []
    return "\n".join(rows) + "\n"


GENERATORS = {"layers": layer_table, "services": service_table}


def render(page: str) -> str:
    """The page with every generated region written anew."""

    def fill(match: re.Match[str]) -> str:
        return match.group(1) + GENERATORS[match.group("name")]() + match.group(4)

    return _REGION.sub(fill, page)


def regions(page: str) -> list[str]:
    return [match.group("name") for match in _REGION.finditer(page)]


if __name__ == "__main__":
    text = PAGE.read_text(encoding="utf-8")
    if sys.argv[1:] == ["--write"]:
        PAGE.write_text(render(text), encoding="utf-8")
    else:
        sys.stdout.write(layer_table() + "\n" + service_table())
