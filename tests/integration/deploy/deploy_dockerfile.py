"""Just enough of the Dockerfile and .dockerignore formats to check NuFi's image recipes without Docker."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import PurePosixPath


@dataclass(frozen=True)
class Instruction:
    keyword: str  # upper case
    arguments: str


@dataclass
class Stage:
    base: str
    name: str | None
    instructions: list[Instruction] = field(default_factory=list)

    def all(self, keyword: str) -> list[str]:
        return [i.arguments for i in self.instructions if i.keyword == keyword]

    def last(self, keyword: str) -> str | None:
        found = self.all(keyword)
        return found[-1] if found else None


@dataclass
class Dockerfile:
    global_args: dict[str, str]
    stages: list[Stage]

    def stage(self, name: str) -> Stage:
        for stage in self.stages:
            if stage.name == name:
                return stage
        raise AssertionError(f"no stage named {name!r}")


def instructions(text: str) -> list[Instruction]:
    """Instructions with line continuations joined and comments dropped."""
    result: list[Instruction] = []
    pending = ""
    for raw in text.splitlines():
        line = raw.strip()
        if not pending and (not line or line.startswith("#")):
            continue
        if pending and line.startswith("#"):
            continue
        if line.endswith("\\"):
            pending += line[:-1] + " "
            continue
        whole = (pending + line).strip()
        pending = ""
        if whole:
            keyword, _, arguments = whole.partition(" ")
            result.append(Instruction(keyword.upper(), arguments.strip()))
    assert not pending, "the Dockerfile ends inside a continued line"
    return result


def parse_dockerfile(text: str) -> Dockerfile:
    global_args: dict[str, str] = {}
    stages: list[Stage] = []
    for instruction in instructions(text):
        if instruction.keyword == "FROM":
            parts = instruction.arguments.split()
            name = parts[2] if len(parts) == 3 and parts[1].upper() == "AS" else None
            stages.append(Stage(base=parts[0], name=name))
        elif not stages:
            assert instruction.keyword == "ARG", f"{instruction.keyword} before the first FROM"
            key, _, value = instruction.arguments.partition("=")
            global_args[key] = value
        else:
            stages[-1].instructions.append(instruction)
    return Dockerfile(global_args, stages)


def uv_syncs(stage: Stage) -> list[list[str]]:
    """The arguments of each `uv sync` a stage runs, in order."""
    return [run.split()[2:] for run in stage.all("RUN") if run.startswith("uv sync")]


def only_package(sync: list[str]) -> str | None:
    """The one workspace package a `uv sync` installs, or None when it may install more."""
    if any(flag in sync for flag in ("--all-packages", "--all-groups", "--group", "--only-dev", "--dev")):
        return None
    if "--no-dev" not in sync or sync.count("--package") != 1:
        return None
    return sync[sync.index("--package") + 1]


def env_pairs(arguments: str) -> dict[str, str]:
    """ENV key=value pairs (the only ENV form the image recipe uses)."""
    return dict(pair.split("=", 1) for pair in arguments.split())


def _pattern_regex(pattern: str) -> re.Pattern[str]:
    out = ""
    index = 0
    while index < len(pattern):
        if pattern.startswith("**/", index):
            out += "(?:.*/)?"
            index += 3
        elif pattern.startswith("**", index):
            out += ".*"
            index += 2
        elif pattern[index] == "*":
            out += "[^/]*"
            index += 1
        elif pattern[index] == "?":
            out += "[^/]"
            index += 1
        elif pattern[index] == "[":
            end = pattern.index("]", index)
            out += pattern[index : end + 1]
            index = end + 1
        else:
            out += re.escape(pattern[index])
            index += 1
    return re.compile(out)


def dockerignore_excludes(rules_text: str, path: str) -> bool:
    """Whether a build context path is left out, as Docker reads .dockerignore.

    Rules apply in order and the last one that matches wins; `!` brings a path back. A rule that
    matches a directory also matches everything below it.
    """
    rules = [line.strip() for line in rules_text.splitlines() if line.strip() and not line.startswith("#")]
    parts = PurePosixPath(path).parts
    prefixes = ["/".join(parts[: n + 1]) for n in range(len(parts))]
    excluded = False
    for rule in rules:
        negated = rule.startswith("!")
        pattern = rule[1:] if negated else rule
        regex = _pattern_regex(pattern.strip("/"))
        if any(regex.fullmatch(prefix) for prefix in prefixes):
            excluded = not negated
    return excluded
