"""Where the rules go, decided on each pass from the settings and what the cluster serves."""

from __future__ import annotations

from nufi.alerts.sync import TargetChoice
from nufi.alerts.targets import ConfigMapTarget, PrometheusRuleTarget, RulesFileTarget, RuleTarget
from nufi.cluster import ClusterGateway
from nufi.cluster.config_maps import ConfigMaps
from nufi.cluster.prometheus_rules import PrometheusRules
from nufi.cluster.service_account import own_service_account
from nufi.config import Settings
from nufi.errors import DependencyUnavailable
from nufi.messages import Message
from nufi.prom import PrometheusGateway


def rule_namespace(settings: Settings, cluster: ClusterGateway) -> str:
    """NUFI_ALERTS_RULE_NAMESPACE, else NuFi's own namespace, else `default`."""
    if settings.alerts_rule_namespace:
        return settings.alerts_rule_namespace
    account = own_service_account(cluster.source, settings.project_service_account)
    return account.namespace if account else "default"


def target_choice(settings: Settings, cluster: ClusterGateway, prometheus: PrometheusGateway) -> TargetChoice:
    """`auto`: a PrometheusRule per type where the cluster serves them, else the rules directory, else
    the ConfigMap; `prometheusrule` / `file` / `configmap`: only that one; `off`: nowhere."""
    mode = settings.alerts_target
    rules = PrometheusRules(cluster)
    namespace = rule_namespace(settings, cluster)
    objects = PrometheusRuleTarget(rules, namespace, dict(settings.alerts_rule_labels))
    files: RuleTarget | None = None
    if settings.alerts_rules_dir is not None:
        reloads = prometheus if settings.alerts_reload and prometheus.configured else None
        files = RulesFileTarget(settings.alerts_rules_dir, reloads)
    config_map: RuleTarget | None = None
    if settings.alerts_configmap is not None:
        labels = dict(settings.alerts_rule_labels)
        config_map = ConfigMapTarget(ConfigMaps(cluster), namespace, settings.alerts_configmap, labels)

    async def choose() -> tuple[RuleTarget | None, Message | None]:
        if mode == "off":
            return None, Message("alerts.target_off")
        if mode in ("auto", "prometheusrule") and cluster.configured and await rules.served():
            return objects, None
        if mode == "prometheusrule":
            raise DependencyUnavailable(code="alerts.prometheusrule_not_served", dependency="kubernetes")
        if mode in ("auto", "file") and files is not None:
            return files, None
        if mode in ("auto", "configmap") and config_map is not None and cluster.configured:
            return config_map, None
        if mode == "file":
            return None, Message("alerts.rules_dir_unset")
        if mode == "configmap":
            return None, Message("alerts.configmap_unset")
        return None, Message("alerts.no_target")

    return choose
