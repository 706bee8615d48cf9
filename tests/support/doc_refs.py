"""What the README and docs/*.md name — repository paths, `make` targets, Python modules and API routes —
checked against the repository, so a guide never sends a reader to something that is gone.

Only what a reader would copy is looked at: the text in backticks and the targets of Markdown links,
outside fenced blocks. A backticked word counts as a path when its first folder is one the repository
has at its top or inside a package (`src/...`, `api/...`) or when it names a file by its extension
(`deploy/mock-lpu/kustomization.yaml`); placeholders (`<name>`, `{id}`, `...`, `DIR/`) make a word an
example, never a path.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

# Where a path that does not start at the repository's top is looked for: the packages' own folders,
# as the docs name their modules (`api/labproxy/proxy.py`, `devcluster/storage/garbage.py`).
ROOTS = (
    ".",
    "src/nufi",
    "packages/nufi-sandbox/src/nufi_sandbox",
    "packages/nufi-mock/src/nufi_mock",
    "deploy/kustomize",
)
# First folders that make a backticked word a path: the repository's top and the packages' folders.
# Fixed here (not read from the tree) so that a folder that is removed is still recognised, and reported.
PATH_HEADS = frozenset(
    {
        "src", "tests", "docs", "deploy", "packages", "bench",
        "api", "auth", "cluster", "db", "devices", "monitoring", "prom", "thermal", "ui", "workloads",
        "devcluster", "runtime", "sandbox", "exporter", "deviceplugin", "inference", "idp",
    }
)  # fmt: skip
FILE_SUFFIXES = (".py", ".md", ".yaml", ".yml", ".json", ".toml", ".proto", ".Dockerfile", ".env")
MODULE_HEADS = frozenset({"nufi", "nufi_mock", "nufi_sandbox", "bench"})
# Dotted words that start like a module but name something else: hosts and files.
_NOT_MODULE_TAILS = frozenset({"com", "io", "org", "env", "json", "yaml", "md", "py"})
_PLACEHOLDER = re.compile(r"[<>{}*\[\]]|\.\.\.|…|^[A-Z_]+/")
_FENCE = re.compile(r"^(```|~~~).*?^\1", re.S | re.M)
_BACKTICKED = re.compile(r"`([^`\n]+)`")
_LINK = re.compile(r"\]\(([^)\s]+)\)")
_MAKE = re.compile(r"\bmake ([a-z][a-z0-9-]*)")
_METHOD_ROUTE = re.compile(r"\b(GET|POST|PUT|PATCH|DELETE) (/api/v1/\S*)")
_ROUTE = re.compile(r"(?:^|\s)(/api/v1/\S*)")
_FENCED_MAKE = re.compile(r"^\s*make ([a-z][a-z0-9-]*)", re.M)
_FENCED_MODULE = re.compile(r"\s-m ([\w.]+)")
_FENCED_ROUTE = re.compile(r"\$\{?NUFI\}?(/api/v1/[^\"'\s]*)")
_MAKE_TARGET = re.compile(r"^([A-Za-z0-9_.-]+)\s*:(?!=)", re.M)
_PARAM = re.compile(r"^(\{[^}/]+\}|<[^>/]+>)$")


@dataclass(frozen=True)
class Route:
    """A route the API serves: its path template (`/api/v1/devices/{id}`) and methods."""

    path: str
    methods: frozenset[str]


@dataclass(frozen=True)
class Missing:
    """One name in a doc that resolves to nothing."""

    doc: str
    kind: str
    name: str

    def __str__(self) -> str:
        return f"{self.doc}: {self.kind} `{self.name}` does not exist"


def spans(text: str) -> Iterator[str]:
    """The backticked spans and link targets of a Markdown text, outside fenced blocks, and from the
    fenced blocks what a reader runs against the repository: `make` lines, `-m` modules and NuFi's
    routes (`"$NUFI/api/v1/..."`)."""
    prose = _FENCE.sub("", text)
    yield from _BACKTICKED.findall(prose)
    yield from (f"\0link {target}" for target in _LINK.findall(prose))
    for block in _FENCE.finditer(text):
        shell = block.group(0)
        yield from (f"make {target}" for target in _FENCED_MAKE.findall(shell))
        yield from _FENCED_MODULE.findall(shell)
        yield from _FENCED_ROUTE.findall(shell)


def _word(raw: str) -> str:
    return raw.strip("\"'(),;")


def path_words(span: str) -> Iterator[str]:
    """The words of a backticked span that name a repository path (with `::test` for a test's node id)."""
    words = span.split()
    for at, raw in enumerate(words):
        word = _word(raw)
        # kubectl names objects as kind/name (`deploy/nufi`); only its -f/-k arguments are files.
        if words[0] == "kubectl" and (at == 0 or words[at - 1] not in ("-f", "-k")):
            continue
        file_part = word.split("::", 1)[0]
        if "/" not in file_part or "://" in word or file_part.startswith(("/", "$", ".", "-")):
            continue
        if _PLACEHOLDER.search(file_part) or "=" in word or ":" in file_part:
            continue
        head = file_part.split("/", 1)[0]
        if head in PATH_HEADS or file_part.endswith(FILE_SUFFIXES):
            yield word


def module_words(span: str) -> Iterator[str]:
    """Dotted names in a span that name a module or an attribute of one (`nufi.api.create_app`)."""
    for raw in span.split():
        word = re.sub(r"\(.*\)$", "", _word(raw))
        parts = word.split(".")
        if len(parts) < 2 or parts[0] not in MODULE_HEADS or parts[-1] in _NOT_MODULE_TAILS:
            continue
        if all(part.isidentifier() for part in parts):
            yield word


def routes_named(span: str) -> Iterator[tuple[str | None, str]]:
    """`(method or None, path)` for each NuFi API route a span names."""
    found = [(method, path) for method, path in _METHOD_ROUTE.findall(span)]
    if not found:
        found = [(None, path) for path in _ROUTE.findall(span)]
    yield from found


def path_exists(word: str, repo: Path, roots: Sequence[str] = ROOTS) -> bool:
    file_part, _, test_name = word.partition("::")
    for root in roots:
        base = repo / root
        matches = list(base.glob(file_part)) if "*" in file_part else [base / file_part]
        for match in matches:
            if not match.exists():
                continue
            if not test_name:
                return True
            source = match.read_text(encoding="utf-8") if match.is_file() else ""
            if re.search(rf"^\s*(async )?def {re.escape(test_name)}\(", source, re.M):
                return True
    return False


def module_exists(dotted: str) -> bool:
    """True when the longest importable prefix of `dotted` holds the rest as attributes; `bench.x`,
    run from the repository's top with `python -m`, is a file there."""
    parts = dotted.split(".")
    if parts[0] == "bench":
        return (REPO.joinpath(*parts).with_suffix(".py")).is_file() or REPO.joinpath(*parts).is_dir()
    for cut in range(len(parts), 0, -1):
        try:
            found: object = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for attribute in parts[cut:]:
            if not hasattr(found, attribute):
                try:
                    found = importlib.import_module(f"{getattr(found, '__name__', '')}.{attribute}")
                    continue
                except ImportError:
                    return False
            found = getattr(found, attribute)
        return True
    return False


def _segments(path: str) -> list[str]:
    return [segment for segment in path.strip("/").split("/")]


def route_exists(method: str | None, path: str, routes: Iterable[Route]) -> bool:
    """Whether a route serves `path`; a `{param}` or `<param>` in either matches any one segment, and
    a path that ends with `/` or `...` names every route below it."""
    path = re.sub(r"\[.*?\]", "", path).split("?", 1)[0].rstrip(",;:)")
    prefix = path.endswith(("/", "...", "…"))
    wanted = _segments(path.rstrip(".…"))
    for route in routes:
        if method is not None and method not in route.methods:
            continue
        served = _segments(route.path)
        if len(served) < len(wanted) or (len(served) > len(wanted) and not prefix):
            continue
        if all(a == b or _PARAM.match(a) or _PARAM.match(b) for a, b in zip(wanted, served, strict=False)):
            return True
    return False


def make_targets(makefile: str) -> set[str]:
    return set(_MAKE_TARGET.findall(makefile))


@dataclass(frozen=True)
class World:
    """What names resolve against: the repository on disk, the Makefile's targets, the API's routes,
    and how to tell whether a module exists."""

    repo: Path
    targets: Collection[str]
    routes: Collection[Route]
    module_exists: Callable[[str], bool] = module_exists


def missing_in(doc: str, text: str, world: World, *, allowed: Collection[str] = ()) -> list[Missing]:
    """Every path, target, module and route named in `text` (the doc at `doc`) that does not exist."""
    found: list[Missing] = []
    here = (world.repo / doc).parent
    for span in spans(text):
        if span.startswith("\0link "):
            target = span.removeprefix("\0link ").split("#", 1)[0]
            external = "://" in target or target.startswith("mailto:")
            if target and not external and not (here / target).exists():
                found.append(Missing(doc, "link", target))
            continue
        if span in allowed:
            continue
        found += [Missing(doc, "path", w) for w in path_words(span) if not path_exists(w, world.repo)]
        found += [Missing(doc, "make target", t) for t in _MAKE.findall(span) if t not in world.targets]
        found += [Missing(doc, "module", m) for m in module_words(span) if not world.module_exists(m)]
        for method, path in routes_named(span):
            if not route_exists(method, path, world.routes):
                found.append(Missing(doc, "route", f"{method} {path}" if method else path))
    return found
