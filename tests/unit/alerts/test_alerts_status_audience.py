"""The rules' status and Alertmanager as each reader may see them: admins get where the rules are,
why a pass failed and the Alertmanager link; everyone else a neutral status by code and no link. And a
reload answered the way VictoriaMetrics answers it says that alerts need Prometheus."""

from __future__ import annotations

from typing import Any, cast

import httpx
import pytest

from nufi.alerts.service import AlertService
from nufi.alerts.sync import RulesStatus, RuleSync
from nufi.auth import Principal
from nufi.messages import Message
from nufi.prom import PrometheusGateway
from nufi.prom.errors import PrometheusUnavailable

ADMIN = Principal(subject="a", username="admin", roles=frozenset({"nufi-admin"}))
MEMBER = Principal(subject="u", username="user", roles=frozenset())
ALERTMANAGER = "http://alertmanager.internal:9093"
RELOAD_FAILED = Message(
    "prometheus.reload_failed",
    {"url": "http://prometheus.internal:9090/-/reload", "status": 500, "reason": "error loading /etc/rules"},
)


def _service(status: RulesStatus) -> AlertService:
    sync = RuleSync(desired=cast(Any, None), choose=cast(Any, None), status=status)
    nothing = cast(Any, None)
    return AlertService(
        catalog=nothing,
        database=nothing,
        prometheus=nothing,
        visibility=nothing,
        sync=sync,
        alertmanager_url=ALERTMANAGER,
    )


def _failing() -> RulesStatus:
    return RulesStatus(
        target="file", configured=True, ok=False, location="/srv/prometheus/rules", problem=RELOAD_FAILED
    )


def test_admins_see_the_status_and_alertmanager_as_they_are() -> None:
    view = _service(_failing()).rules_only(ADMIN)
    assert view.rules == _failing() and view.alertmanager_url == ALERTMANAGER


@pytest.mark.parametrize(
    ("status", "neutral"),
    [
        (_failing(), "alerts.status.failing"),
        (RulesStatus(problem=Message("alerts.no_target")), "alerts.status.not_configured"),
    ],
)
def test_members_get_a_neutral_status_without_servers_paths_or_alertmanager(
    status: RulesStatus, neutral: str
) -> None:
    view = _service(status).rules_only(MEMBER)
    assert view.alertmanager_url is None
    assert view.rules.location == ""
    assert view.rules.problem == Message(neutral)
    assert (view.rules.ok, view.rules.configured, view.rules.target) == (
        status.ok,
        status.configured,
        status.target,
    )
    for language in ("en", "ko"):
        said = view.rules.problem.text(language)
        assert "internal" not in said and "/srv" not in said and "/etc" not in said


def test_members_keep_a_working_status_but_not_where_it_is() -> None:
    working = RulesStatus(target="file", configured=True, ok=True, location="/srv/rules", groups=("lpu",))
    view = _service(working).rules_only(MEMBER)
    assert view.rules.ok and view.rules.groups == ("lpu",) and view.rules.location == ""
    assert view.rules.problem is None and view.alertmanager_url is None


def _answering(status: int) -> PrometheusGateway:
    return PrometheusGateway(
        "http://engine.test", transport=httpx.MockTransport(lambda request: httpx.Response(status))
    )


async def test_a_reload_answered_204_says_the_engine_evaluates_no_rules() -> None:
    with pytest.raises(PrometheusUnavailable) as caught:
        await _answering(204).reload()
    assert caught.value.code == "prometheus.reload_without_rules"
    english = Message(caught.value.code, caught.value.params).text("en")
    assert "VictoriaMetrics" in english and "need Prometheus" in english and "HTTP 204: )" not in english
    assert "Prometheus" in Message(caught.value.code, caught.value.params).text("ko")


async def test_a_refused_reload_is_still_a_reload_failure_and_200_is_success() -> None:
    with pytest.raises(PrometheusUnavailable) as caught:
        await _answering(403).reload()
    assert caught.value.code == "prometheus.reload_failed"
    await _answering(200).reload()
