"""Where the rule groups are written: PrometheusRule objects, or rule files a plain Prometheus loads.

Each target converges to the whole desired set: what differs is written, what NuFi wrote for a type
that is gone is removed, and what is already right is left untouched. So a second replica writing the
same rules changes nothing: no object's resourceVersion moves, no file is rewritten, and Prometheus is
not asked to reload.

Every group is checked as Prometheus loads it (`rule_check`) before it is written. A group Prometheus
would refuse is not written: what was written for its type before stays as it is, and the other
types' groups are written all the same, so one bad rule never stops the others from loading.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Mapping, Sequence, Set
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import yaml

from nufi.alerts.rule_check import GroupRefusal, screened
from nufi.alerts.rules import GROUP_PREFIX, RuleGroup
from nufi.cluster.config_maps import ConfigMaps
from nufi.cluster.prometheus_rules import PrometheusRules
from nufi.prom import PrometheusGateway

MANAGED_BY = "app.kubernetes.io/managed-by"
MANAGED_BY_NUFI = "nufi"
DEVICE_TYPE_LABEL = "nufi.io/device-type"
FILE_SUFFIX = ".rules.yml"
_HEADER = "# Written by NuFi from the device type {id}; edit its alert thresholds in NuFi, not this file.\n"


@dataclass(frozen=True)
class Converged:
    """What one pass changed: the types whose rules were written and those whose rules were removed."""

    written: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()
    # Where the rules live, for operators: a directory or `namespace/prometheusrules`.
    location: str = ""
    reloaded: bool = False
    # The groups Prometheus would refuse, which were not written.
    refused: tuple[GroupRefusal, ...] = ()

    @property
    def changed(self) -> bool:
        return bool(self.written or self.removed)


class RuleTarget(Protocol):
    @property
    def kind(self) -> str: ...

    async def converge(self, groups: Sequence[RuleGroup]) -> Converged: ...


def rules_document(group: RuleGroup) -> str:
    """The rule file of one group, byte for byte the same for the same rules."""
    body = yaml.safe_dump({"groups": [group.document]}, sort_keys=False, allow_unicode=True, width=100)
    return _HEADER.format(id=group.device_type) + body


@dataclass
class RulesFileTarget:
    """One `nufi-<type>.rules.yml` per type in `directory`, which Prometheus loads through
    `rule_files: [<directory>/*.yml]`; Prometheus is asked to reload after a change (and again after
    a reload that failed) when `prometheus` is given."""

    directory: Path
    prometheus: PrometheusGateway | None = None
    _reload_owed: bool = field(default=False, init=False)

    @property
    def kind(self) -> str:
        return "file"

    async def converge(self, groups: Sequence[RuleGroup]) -> Converged:
        good, refused = screened(groups)
        wanted = {_file_name(g.device_type): g for g in good}
        kept = {_file_name(r.device_type) for r in refused}
        written, removed = await asyncio.to_thread(self._write, wanted, kept)
        changed = bool(written or removed)
        reloaded = False
        if self.prometheus is not None and (changed or self._reload_owed):
            self._reload_owed = True
            await self.prometheus.reload()  # raises PrometheusUnavailable; owed until it succeeds
            self._reload_owed = False
            reloaded = True
        return Converged(tuple(written), tuple(removed), str(self.directory), reloaded, tuple(refused))

    def _write(self, wanted: Mapping[str, RuleGroup], kept: Set[str]) -> tuple[list[str], list[str]]:
        self.directory.mkdir(parents=True, exist_ok=True)
        written: list[str] = []
        for name, group in sorted(wanted.items()):
            path = self.directory / name
            text = rules_document(group)
            if path.exists() and path.read_text(encoding="utf-8") == text:
                continue
            # Written aside and renamed: Prometheus never reads half a file.
            partial = path.with_name(f".{name}.{os.getpid()}")
            partial.write_text(text, encoding="utf-8")
            partial.replace(path)
            written.append(group.device_type)
        removed: list[str] = []
        for path in sorted(self.directory.glob(f"{GROUP_PREFIX}*{FILE_SUFFIX}")):
            if path.name not in wanted and path.name not in kept:
                path.unlink(missing_ok=True)
                removed.append(_type_of(path.name))
        return written, removed


@dataclass(frozen=True)
class PrometheusRuleTarget:
    """One PrometheusRule `nufi-<type>` per type in `namespace`, carrying `labels` (what the
    Prometheus' ruleSelector picks) and NuFi's own, by which NuFi finds the ones it wrote."""

    rules: PrometheusRules
    namespace: str
    labels: Mapping[str, str]

    @property
    def kind(self) -> str:
        return "prometheusrule"

    async def converge(self, groups: Sequence[RuleGroup]) -> Converged:
        good, refused = screened(groups)
        selector = f"{MANAGED_BY}={MANAGED_BY_NUFI}"
        existing = {
            str(item["metadata"]["name"]): item
            for item in await self.rules.list(self.namespace, label_selector=selector)
        }
        for refusal in refused:
            existing.pop(f"{GROUP_PREFIX}{refusal.device_type}", None)
        written: list[str] = []
        for group in good:
            name = f"{GROUP_PREFIX}{group.device_type}"
            labels = {**self.labels, MANAGED_BY: MANAGED_BY_NUFI, DEVICE_TYPE_LABEL: group.device_type}
            spec = {"groups": [group.document]}
            found = existing.pop(name, None)
            if found is None:
                await self.rules.create(self.namespace, name, labels, spec)
            elif not _same(found, labels, spec):
                version = str(found["metadata"].get("resourceVersion", ""))
                await self.rules.update(self.namespace, name, labels, spec, resource_version=version)
            else:
                continue
            written.append(group.device_type)
        removed: list[str] = []
        for name, item in sorted(existing.items()):
            await self.rules.delete(self.namespace, name)
            labels = item["metadata"].get("labels") or {}
            removed.append(str(labels.get(DEVICE_TYPE_LABEL) or name.removeprefix(GROUP_PREFIX)))
        location = f"{self.namespace}/prometheusrules"
        return Converged(tuple(written), tuple(removed), location, refused=tuple(refused))


@dataclass(frozen=True)
class ConfigMapTarget:
    """One key `nufi-<type>.rules.yml` per type in the ConfigMap `name`, which a Prometheus in the
    cluster mounts at its rules directory; its config reloader (the chart's configmap-reload sidecar)
    reloads it once the kubelet has updated the mounted files, which takes up to a minute. Keys NuFi
    did not write are left as they are."""

    config_maps: ConfigMaps
    namespace: str
    name: str
    labels: Mapping[str, str]

    @property
    def kind(self) -> str:
        return "configmap"

    async def converge(self, groups: Sequence[RuleGroup]) -> Converged:
        good, refused = screened(groups)
        wanted = {_file_name(g.device_type): rules_document(g) for g in good}
        kept = {_file_name(r.device_type) for r in refused}
        location = f"{self.namespace}/configmaps/{self.name}"
        found = await self.config_maps.get(self.namespace, self.name)
        if found is None:
            labels = {**self.labels, MANAGED_BY: MANAGED_BY_NUFI}
            await self.config_maps.create(self.namespace, self.name, labels, wanted)
            written_now = tuple(sorted(g.device_type for g in good))
            return Converged(written_now, (), location, refused=tuple(refused))
        present: Mapping[str, str] = found.get("data") or {}
        changes: dict[str, str | None] = {k: v for k, v in wanted.items() if present.get(k) != v}
        gone = [k for k in present if _is_rules_key(k) and k not in wanted and k not in kept]
        changes |= {key: None for key in gone}
        if changes:
            version = str(found["metadata"].get("resourceVersion", ""))
            await self.config_maps.change_data(self.namespace, self.name, changes, resource_version=version)
        written = tuple(sorted(_type_of(k) for k in changes if k not in gone))
        removed = tuple(sorted(_type_of(k) for k in gone))
        return Converged(written, removed, location, refused=tuple(refused))


def _file_name(device_type: str) -> str:
    return f"{GROUP_PREFIX}{device_type}{FILE_SUFFIX}"


def _is_rules_key(key: str) -> bool:
    return key.startswith(GROUP_PREFIX) and key.endswith(FILE_SUFFIX)


def _type_of(key: str) -> str:
    return key.removeprefix(GROUP_PREFIX).removesuffix(FILE_SUFFIX)


def _same(found: Mapping[str, Any], labels: Mapping[str, str], spec: Mapping[str, Any]) -> bool:
    present = found["metadata"].get("labels") or {}
    return found.get("spec") == spec and all(present.get(k) == v for k, v in labels.items())
