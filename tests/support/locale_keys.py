"""Which catalog keys the dashboard's code uses, read from its source with `ast`, held against the catalog.

A key reaches the catalog in many ways: `text(language, "key")`, `t("key")`, `self.t("key")`,
`Translator(language)("key")`, or as a plain string handed to one of those later (a tuple of menu
entries, a `forward_key=` argument, a row of a review table). So every string in the code shaped like
a key whose first part is one of the catalog's areas (`nav.labs`, `wizard.next`) counts as a use, and
so does any string in the key position of a call of the catalog, whatever its shape.

A key built while the page runs (`f"thermal.column.{name}"`, `"thermal.field." + name`) is a
*template* (`thermal.column.{}`); each template must be declared with the values it can take
(`Values`, `FromCode`), or as `IN_CODE` when the loop around each use lists them
(`for name in ("node", "state")`, `for name in COLUMNS`), so that no built key goes unchecked.

`check` reports: keys used and missing from the catalog, keys one language has and another lacks,
keys no code uses, texts whose `{field}`s differ between languages, calls that fill other fields
than their text takes, and templates that are undeclared, declared and no longer built, or declared
`IN_CODE` where the code does not list them.
"""

from __future__ import annotations

import ast
import re
import string
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

from support.locale_sources import Site, Source, site_values, source_values

# A key: lowercase dotted words; the last parts may carry a status as Kubernetes spells it (`ScaledDown`).
KEY_SHAPE = re.compile(r"[a-z][a-z0-9_]*(?:\.[A-Za-z0-9_]+)+\Z")
# A template: a key with `{}` where the code puts a value.
TEMPLATE_SHAPE = re.compile(r"[a-z][a-z0-9_]*(?:\.(?:[A-Za-z0-9_]|\{\})+)+\Z")
# The callables whose first argument is a key: `t(...)`, `self.t(...)`, `page.t(...)`.
TRANSLATOR_NAMES = frozenset({"t"})
# `text(language, key, ...)`: the key is the second argument.
TEXT_FUNCTION = "text"
TRANSLATOR_CLASS = "Translator"

_Language = TypeVar("_Language", bound=str)


@dataclass
class Uses:
    """What the code does with keys: literal keys and templates, each with where it happens."""

    keys: dict[str, list[Site]] = field(default_factory=dict)
    # Per template, each use with the values the code around it lists (None when it lists none).
    templates: dict[str, list[tuple[Site, list[tuple[str, ...]] | None]]] = field(default_factory=dict)
    calls: list[Filled] = field(default_factory=list)


@dataclass(frozen=True)
class Filled:
    """A call of the catalog: the key or template it passes, and the fields it fills (None when it
    passes `**fields`, which the source does not tell)."""

    key: str
    built: bool
    site: Site
    fields: frozenset[str] | None


@dataclass
class Findings:
    missing: dict[str, list[Site]] = field(default_factory=dict)
    one_language: dict[str, set[str]] = field(default_factory=dict)
    unused: set[str] = field(default_factory=set)
    fields_differ: dict[str, dict[str, set[str]]] = field(default_factory=dict)
    # A call that fills other fields than its text takes: (where, key, the text's, the call's).
    unfilled: list[tuple[Site, str, set[str], set[str]]] = field(default_factory=list)
    undeclared: dict[str, list[Site]] = field(default_factory=dict)
    unresolved: dict[str, list[Site]] = field(default_factory=dict)
    stale: set[str] = field(default_factory=set)

    def problems(self) -> list[str]:
        """One readable line per problem; empty when the code and the catalog agree."""
        lines = [f"used and not in the catalog: {k} at {_sites(s)}" for k, s in sorted(self.missing.items())]
        lines += [f"only in {sorted(langs)}: {k}" for k, langs in sorted(self.one_language.items())]
        lines += [f"in the catalog, used by no code: {k}" for k in sorted(self.unused)]
        lines += [f"fields differ between languages: {k} {f}" for k, f in sorted(self.fields_differ.items())]
        lines += [
            f"{site}: {key} takes the fields {sorted(takes)}, the call fills {sorted(fills)}"
            for site, key, takes, fills in self.unfilled
        ]
        lines += [
            f"built key with no declared values: {t} at {_sites(s)}"
            for t, s in sorted(self.undeclared.items())
        ]
        lines += [
            f"declared IN_CODE, but no values listed around: {t} at {_sites(s)}"
            for t, s in sorted(self.unresolved.items())
        ]
        lines += [f"declared, and no code builds it: {t}" for t in sorted(self.stale)]
        return lines


def _sites(sites: list[Site]) -> str:
    return ", ".join(str(site) for site in sites)


def python_sources(root: Path, relative_to: Path, skip: tuple[str, ...] = ()) -> dict[str, str]:
    """Every `.py` file under `root` by its path from `relative_to`, but those starting with `skip`."""
    found = {}
    for path in sorted(root.rglob("*.py")):
        name = path.relative_to(relative_to).as_posix()
        if not name.startswith(skip):
            found[name] = path.read_text()
    return found


def template_of(node: ast.expr) -> tuple[str, list[ast.expr]] | None:
    """`f"a.{x}.b"` → ("a.{}.b", [x]); `"a." + x` → ("a.{}", [x]); None for anything else."""
    if isinstance(node, ast.JoinedStr):
        parts, holes = [], []
        for value in node.values:
            if isinstance(value, ast.Constant) and isinstance(value.value, str):
                parts.append(value.value.replace("{", "{{").replace("}", "}}"))
            elif isinstance(value, ast.FormattedValue):
                parts.append("{}")
                holes.append(value.value)
        return "".join(parts), holes
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left = node.left
        if isinstance(left, ast.Constant) and isinstance(left.value, str):
            return left.value + "{}", [node.right]
    return None


def key_argument(call: ast.Call, translators: set[str]) -> ast.expr | None:
    """The expression a call of the catalog passes as the key, or None when `call` is no such call."""
    func = call.func
    name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None
    # `text` is a common name (`.text` of a response): only `text(...)` and `i18n.text(...)` count.
    bare_or_module = isinstance(func, ast.Name) or ast.unparse(func).endswith(f"i18n.{TEXT_FUNCTION}")
    translator = (
        name in TRANSLATOR_NAMES
        or (isinstance(func, ast.Name) and func.id in translators)
        or (isinstance(func, ast.Call) and _called(func) == TRANSLATOR_CLASS)
    )
    if name == TEXT_FUNCTION and bare_or_module:
        position = 1
    elif translator:
        position = 0
    else:
        return None
    if len(call.args) > position and not isinstance(call.args[position], ast.Starred):
        return call.args[position]
    return next((k.value for k in call.keywords if k.arg == "key"), None)


def _called(call: ast.Call) -> str | None:
    func = call.func
    return func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None


def translator_names(tree: ast.Module) -> set[str]:
    """Names bound to a `Translator` in a module: annotated as one, or assigned `Translator(...)`."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.arg | ast.AnnAssign) and _names_translator(node.annotation):
            target = node.arg if isinstance(node, ast.arg) else getattr(node.target, "id", None)
            if target:
                names.add(target)
        elif (
            isinstance(node, ast.Assign)
            and isinstance(node.value, ast.Call)
            and _called(node.value) == TRANSLATOR_CLASS
        ):
            names |= {t.id for t in node.targets if isinstance(t, ast.Name)}
    return names


def _names_translator(annotation: ast.expr | None) -> bool:
    if annotation is None:
        return False
    text = ast.unparse(annotation)
    return re.search(rf"\b{TRANSLATOR_CLASS}\b", text) is not None


def scan(sources: Mapping[str, str], prefixes: set[str], not_keys: frozenset[str] = frozenset()) -> Uses:
    """The keys and templates the code in `sources` (path → text) uses; `prefixes` are the catalog's areas."""
    uses = Uses()
    for path, source in sources.items():
        tree = ast.parse(source, filename=path)
        _scan_module(path, tree, prefixes, uses, not_keys)
    return uses


def _scan_module(
    path: str, tree: ast.Module, prefixes: set[str], uses: Uses, not_keys: frozenset[str]
) -> None:
    parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    translators = translator_names(tree)
    key_positions = {
        id(argument): _filled_fields(node)
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and (argument := key_argument(node, translators)) is not None
    }
    for node in ast.walk(tree):
        if not isinstance(node, ast.expr):
            continue
        site = Site(path, node.lineno)
        in_key_position = id(node) in key_positions
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            if isinstance(parents.get(node), ast.JoinedStr):
                continue  # the literal part of an f-string: the f-string is looked at as a whole
            looks_like_key = KEY_SHAPE.match(node.value) and node.value.split(".")[0] in prefixes
            if in_key_position or (looks_like_key and node.value not in not_keys):
                uses.keys.setdefault(node.value, []).append(site)
            if in_key_position:
                uses.calls.append(Filled(node.value, False, site, key_positions[id(node)]))
            continue
        built = template_of(node)
        if built is None:
            continue
        template, holes = built
        looks_like_key = TEMPLATE_SHAPE.match(template) and template.split(".")[0] in prefixes
        if in_key_position or looks_like_key:
            values = site_values(holes, node, parents, tree)
            uses.templates.setdefault(template, []).append((site, values))
        if in_key_position:
            uses.calls.append(Filled(template, True, site, key_positions[id(node)]))


def _filled_fields(call: ast.Call) -> frozenset[str] | None:
    if any(keyword.arg is None for keyword in call.keywords):
        return None
    return frozenset(keyword.arg for keyword in call.keywords if keyword.arg and keyword.arg != "key")


def check(
    sources: Mapping[str, str],
    catalog: Mapping[_Language, Mapping[str, str]],
    dynamic: Mapping[str, Source],
    not_keys: frozenset[str] = frozenset(),
) -> Findings:
    """Hold the code in `sources` against `catalog` (language → key → text), with `dynamic` declaring
    the values of each template the code builds keys from; `not_keys` are strings shaped like keys
    that are something else (the services' message codes, worded by `nufi.messages`). The catalog
    may be the one the dashboard words from, the services' codes joined in: those are not held to be
    used by the dashboard, and their areas' names do not make a string a key."""
    every = set().union(*(set(texts) for texts in catalog.values()))
    prefixes = {key.split(".")[0] for key in every - not_keys}
    uses = scan(sources, prefixes, not_keys)
    findings = Findings()
    used = {key: list(sites) for key, sites in uses.keys.items()}
    built: dict[tuple[str, Site], list[str]] = {}
    for template, template_uses in uses.templates.items():
        if template not in dynamic:
            findings.undeclared[template] = [site for site, _ in template_uses]
            continue
        declared = source_values(dynamic[template])
        for site, listed in template_uses:
            # Values the code lists where it builds the key count too, beside the declared ones.
            values = listed if declared is None else declared + (listed or [])
            if values is None:
                findings.unresolved.setdefault(template, []).append(site)
                continue
            for value in values:
                used.setdefault(template.format(*value), []).append(site)
                built.setdefault((template, site), []).append(template.format(*value))
    findings.stale = set(dynamic) - set(uses.templates)
    findings.missing = {key: sites for key, sites in used.items() if key not in every}
    for key in sorted(every):
        having = [language for language, texts in catalog.items() if key in texts]
        if len(having) != len(catalog):
            findings.one_language[key] = {str(language) for language in having}
        fields = {str(language): format_fields(catalog[language][key]) for language in having}
        if len({frozenset(f) for f in fields.values()}) > 1:
            findings.fields_differ[key] = fields
    findings.unused = every - set(used) - not_keys
    findings.unfilled = _unfilled(uses.calls, built, catalog)
    return findings


def _unfilled(
    calls: list[Filled],
    built: dict[tuple[str, Site], list[str]],
    catalog: Mapping[_Language, Mapping[str, str]],
) -> list[tuple[Site, str, set[str], set[str]]]:
    """Calls whose fields are not those of their text: a field left out shows as `{name}`, or raises."""
    found = []
    for call in calls:
        if call.fields is None:
            continue
        for key in built.get((call.key, call.site), []) if call.built else [call.key]:
            takes = set().union(*(format_fields(texts[key]) for texts in catalog.values() if key in texts))
            if takes != call.fields:
                found.append((call.site, key, takes, set(call.fields)))
    return found


def format_fields(template: str) -> set[str]:
    """The names of a text's `str.format` fields: `{node}` and `{node.name}` both give `node`."""
    names = set()
    for _, name, _, _ in string.Formatter().parse(template):
        if name is not None:
            names.add(re.split(r"[.\[]", name, maxsplit=1)[0])
    return names


def duplicate_dict_keys(source: str) -> list[str]:
    """Keys a dict literal in `source` writes twice (the later silently wins in Python)."""
    twice = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Dict):
            seen: set[object] = set()
            for key in node.keys:
                if isinstance(key, ast.Constant):
                    if key.value in seen:
                        twice.append(str(key.value))
                    seen.add(key.value)
    return twice
