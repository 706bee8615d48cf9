"""The units of work `make test` hands its pytest-xdist workers (`support.xdist_scheduling`)."""

from __future__ import annotations

from support.xdist_scheduling import work_unit


def test_an_area_with_package_fixtures_is_one_unit_and_any_other_module_its_own() -> None:
    # Both catalog modules on one worker: its package fixtures (an exporter scraped by Prometheus)
    # start once, not once per worker and again after each module of another package.
    assert work_unit("tests/integration/catalog/test_catalog_api.py::test_x[sqlite]") == (
        "tests/integration/catalog"
    )
    assert work_unit("tests/integration/catalog/test_catalog_bounds.py::Test::test_y") == (
        "tests/integration/catalog"
    )
    assert work_unit("tests/integration/thermal/test_thermal_dry_run.py::test_z") == (
        "tests/integration/thermal/test_thermal_dry_run.py"
    )
    # The e2e and unit folders of the same name are not the integration area.
    assert work_unit("tests/e2e/labs/test_e2e_lab_origins_browser.py::test_a") == (
        "tests/e2e/labs/test_e2e_lab_origins_browser.py"
    )
    assert work_unit("tests/unit/monitoring/test_monitoring_refresher.py::test_b") == (
        "tests/unit/monitoring/test_monitoring_refresher.py"
    )
