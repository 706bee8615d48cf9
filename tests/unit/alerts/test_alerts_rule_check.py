"""Generated rules are data: any name a person types reaches the rules as a literal that Prometheus
loads, and a group Prometheus would refuse is never written, while the other types' groups are."""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from nufi.alerts.rule_check import refusal_of, screened
from nufi.alerts.rules import RuleGroup, rule_group
from nufi.alerts.sync import RuleSync
from nufi.alerts.targets import ConfigMapTarget, PrometheusRuleTarget, RulesFileTarget, rules_document
from nufi.alerts.thresholds import AlertThresholds
from nufi.cluster.config_maps import ConfigMaps
from nufi.cluster.prometheus_rules import PrometheusRules
from nufi.devices.spec import DeviceType
from support.lpu_type import lpu_type

_NAMES = st.lists(
    st.sampled_from(["{{", "}}", "{{-", "-}}", "{", "`", '"', "'", "\\", "$labels", "\n", "디바이스", "LPU "])
    | st.text(min_size=1, max_size=5),
    min_size=1,
    max_size=10,
).map("".join)


def _type(**changes: Any) -> DeviceType:
    return DeviceType.model_validate(lpu_type(**changes) | {"kind": "custom"})


def _group(type_id: str = "lpu", name: str = "HyperAccel LPU") -> RuleGroup:
    return rule_group(_type(id=type_id, name=name), AlertThresholds(), 85.0)


def _broken(type_id: str, where: str = "annotation") -> RuleGroup:
    """A group as rules.py wrote it before names became literals: a template Prometheus refuses."""
    document = copy.deepcopy(_group(type_id).document)
    rule = document["rules"][0]
    if where == "annotation":
        rule["annotations"]["summary"] = "HyperAccel {{ device {{ $labels.device }}"
    elif where == "label":
        rule["labels"]["team"] = "{{ nodes }}"
    else:
        rule["expr"] = "max by (node (lpu_temperature_celsius)"
    return RuleGroup(type_id, document)


@settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow])
@given(_NAMES)
def test_a_type_of_any_name_makes_a_group_prometheus_loads(name: str) -> None:
    try:
        device_type = _type(name=name)
    except ValidationError:
        assume(False)
        raise
    group = rule_group(device_type, AlertThresholds(), 85.0)
    assert refusal_of(group) is None, refusal_of(group)


def test_a_broken_template_or_expression_is_refused_naming_where() -> None:
    for where, said in (("annotation", "annotation summary"), ("label", "label team"), ("expr", "expr:")):
        refusal = refusal_of(_broken("lpu", where))
        assert refusal is not None and refusal.device_type == "lpu"
        assert said in refusal.reason and "NuFiDeviceHot" in refusal.reason


def test_screening_keeps_the_good_groups_in_order() -> None:
    good, refused = screened([_group("a"), _broken("b"), _group("c")])
    assert [g.device_type for g in good] == ["a", "c"]
    assert [r.device_type for r in refused] == ["b"]


async def test_a_refused_group_is_not_written_and_what_was_written_before_stays(tmp_path: Path) -> None:
    target = RulesFileTarget(tmp_path)
    first = await target.converge([_group("a"), _group("b")])
    assert first.written == ("a", "b")
    before = (tmp_path / "nufi-b.rules.yml").read_text()

    converged = await target.converge([_group("a", name="Renamed"), _broken("b"), _group("c")])
    assert converged.written == ("a", "c") and converged.removed == ()
    assert [r.device_type for r in converged.refused] == ["b"]
    assert (tmp_path / "nufi-b.rules.yml").read_text() == before
    assert "Renamed" in (tmp_path / "nufi-a.rules.yml").read_text()
    # A type refused the first time it is written has no file at all.
    again = await RulesFileTarget(tmp_path / "fresh").converge([_broken("d")])
    assert again.written == () and not (tmp_path / "fresh" / "nufi-d.rules.yml").exists()


@dataclass
class _ConfigMaps:
    """A ConfigMap held in memory, as the API server would keep it."""

    data: dict[str, str] | None = None
    changes: list[Mapping[str, str | None]] = field(default_factory=list)

    async def get(self, namespace: str, name: str) -> dict[str, Any] | None:
        if self.data is None:
            return None
        return {"metadata": {"resourceVersion": "1"}, "data": dict(self.data)}

    async def create(
        self, namespace: str, name: str, labels: Mapping[str, str], data: Mapping[str, str]
    ) -> dict[str, Any]:
        self.data = dict(data)
        return {}

    async def change_data(
        self, namespace: str, name: str, changes: Mapping[str, str | None], *, resource_version: str
    ) -> dict[str, Any]:
        self.changes.append(dict(changes))
        assert self.data is not None
        for key, value in changes.items():
            if value is None:
                self.data.pop(key, None)
            else:
                self.data[key] = value
        return {}


async def test_the_configmap_target_leaves_a_refused_types_key_as_it_was() -> None:
    held = _ConfigMaps()
    target = ConfigMapTarget(cast(ConfigMaps, held), "monitoring", "rules", {})
    created = await target.converge([_group("a"), _broken("b")])
    assert created.written == ("a",) and [r.device_type for r in created.refused] == ["b"]
    assert held.data is not None and set(held.data) == {"nufi-a.rules.yml"}

    held.data["nufi-b.rules.yml"] = kept = rules_document(_group("b"))
    converged = await target.converge([_group("a"), _broken("b")])
    assert converged.removed == () and held.data["nufi-b.rules.yml"] == kept


@dataclass
class _PrometheusRules:
    """PrometheusRule objects held in memory, by name."""

    objects: dict[str, dict[str, Any]] = field(default_factory=dict)

    async def list(self, namespace: str, *, label_selector: str) -> list[dict[str, Any]]:
        return list(copy.deepcopy(self.objects).values())

    async def create(self, namespace: str, name: str, labels: Mapping[str, str], spec: Any) -> dict[str, Any]:
        self.objects[name] = {"metadata": {"name": name, "labels": dict(labels)}, "spec": spec}
        return {}

    async def update(
        self, namespace: str, name: str, labels: Mapping[str, str], spec: Any, *, resource_version: str
    ) -> dict[str, Any]:
        return await self.create(namespace, name, labels, spec)

    async def delete(self, namespace: str, name: str) -> bool:
        return self.objects.pop(name, None) is not None


async def test_the_prometheusrule_target_neither_writes_nor_deletes_a_refused_types_object() -> None:
    held = _PrometheusRules()
    target = PrometheusRuleTarget(cast(PrometheusRules, held), "monitoring", {})
    await target.converge([_group("a"), _group("b")])
    kept = copy.deepcopy(held.objects["nufi-b"])
    converged = await target.converge([_group("a", name="Renamed"), _broken("b")])
    assert converged.written == ("a",) and converged.removed == ()
    assert [r.device_type for r in converged.refused] == ["b"]
    assert held.objects["nufi-b"] == kept


@dataclass
class _Desired:
    groups: Sequence[RuleGroup]
    types: tuple[Any, ...] = ()

    async def wanted(self) -> _Desired:
        return self

    @property
    def thresholds(self) -> _Desired:
        return self

    async def remove_except(self, *_: Any, **__: Any) -> None:
        return None


async def test_the_sync_reports_the_refused_types_to_readiness_and_writes_the_others(tmp_path: Path) -> None:
    target = RulesFileTarget(tmp_path)

    async def choose() -> tuple[RulesFileTarget, None]:
        return target, None

    sync = RuleSync(desired=cast(Any, _Desired([_group("a"), _broken("b")])), choose=cast(Any, choose))
    converged = await sync.sync_now()
    assert converged is not None and converged.written == ("a",)
    status = sync.status
    assert not status.ok and status.groups == ("a",)
    assert status.problem is not None and status.problem.code == "alerts.groups_refused"
    assert status.problem.params["types"] == ["b"]
    check = await sync.check()
    assert not check.ok and not check.required and "b" in check.detail and "annotation" in check.detail
