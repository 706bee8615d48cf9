"""The wizard's early warnings, as an admin meets them through NiceGUI's simulated user: step 1 names
the device type that already registered the key being typed (with a link to edit it), and not the type
being edited itself; an expression that parses but matches no series is amber "no series yet", not ✓.

`offline` is the dashboard with neither a cluster nor Prometheus (the catalog's official types are
there all the same); `live` has the session's real Prometheus.
"""

from __future__ import annotations

from nicegui import ui
from nicegui.testing import User

from support.polling import eventually

from .wizard_steps import open_wizard, sees
from .wizard_world import WIZARD_KEY, as_, shown

OFFICIAL = "nvidia-gpu"
OFFICIAL_KEY = "nvidia.com/gpu"
# Parses, is a vector, and no series matches it.
NO_SERIES = 'nufi_wizard_no_such_metric{node!=""}'


def _link(user: User) -> tuple[str, str]:
    """The link's text and target."""
    (link,) = user.find(marker="key-registered-link").elements
    assert isinstance(link, ui.link)
    return link.text, str(link.props["href"])


async def test_a_key_another_type_registered_is_named_with_a_link_to_it_in_english(offline: User) -> None:
    await open_wizard(offline, "en", 1)
    offline.find(marker="resource_key").type(OFFICIAL_KEY)
    await eventually(sees(offline, "key-registered", "Already registered by NVIDIA GPU"), within=10)
    assert _link(offline) == ("Edit it", f"/admin/devices/{OFFICIAL}/edit")


async def test_a_key_another_type_registered_is_named_in_korean(offline: User) -> None:
    await open_wizard(offline, "ko", 1)
    offline.find(marker="resource_key").type(OFFICIAL_KEY)
    await eventually(sees(offline, "key-registered", "이미 NVIDIA GPU", "등록된 키입니다"), within=10)
    assert _link(offline) == ("해당 유형 편집", f"/admin/devices/{OFFICIAL}/edit")


async def test_a_key_no_type_uses_is_not_called_registered(offline: User) -> None:
    await open_wizard(offline, "en", 1)
    offline.find(marker="resource_key").type(WIZARD_KEY)
    await eventually(sees(offline, "key-result", "The cluster could not be read"), within=10)
    await offline.should_not_see(marker="key-registered")


async def test_editing_a_type_does_not_call_its_own_key_registered(offline: User) -> None:
    await as_(offline, "admin", "en").open(f"/admin/devices/{OFFICIAL}/edit")
    # Its key is checked as the step opens; the cluster answer comes after the registration check.
    await eventually(sees(offline, "key-result", "The cluster could not be read"), within=10)
    assert "Already registered" not in shown(offline, "key-result")
    await offline.should_not_see(marker="key-registered")


async def test_an_expression_with_no_series_is_amber_no_series_yet_never_a_tick(live: User) -> None:
    await open_wizard(live, "en", 2)
    live.find(marker="labels.node").type("node")
    live.find(marker="labels.device").type("device")
    live.find(marker="metrics.utilization").type(NO_SERIES)
    # The service's own "no series yet" is the amber verdict, said once, in the reader's language.
    for language, expected, foreign in (
        ("en", f"No series yet: Prometheus has no data for '{NO_SERIES}'", "아직"),
        ("ko", f"아직 시리즈 없음: 지금 Prometheus에 {NO_SERIES}의 데이터가 없습니다", "has no data"),
    ):
        await open_wizard(live, language, 2)  # the same draft, read in each language
        live.find(marker="test-metrics.utilization").click()
        await eventually(sees(live, "metric-no-series", expected), within=15)
        await live.should_not_see(marker="metric-warning")
        await live.should_not_see(marker="metric-series")  # no "0 series" beside it
        assert foreign not in shown(live, "result-metrics.utilization")
        (label,) = live.find(marker="metric-no-series").elements
        assert "text-amber-700" in label.classes
        assert "✓" not in shown(live, "result-metrics.utilization")
        await live.should_not_see(marker="metric-ok")
        await live.should_not_see(marker="metric-error")
