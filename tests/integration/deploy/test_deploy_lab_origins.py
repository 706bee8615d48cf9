"""Labs on origins of their own, as installed: the lab base domain is set apart from the dashboard's,
and the Ingress sends every lab host (one wildcard) to NuFi's Service over TLS."""

from __future__ import annotations

from urllib.parse import urlsplit

from nufi.workloads.labs.origin import LabOrigins

from .deploy_manifests import Manifest, Rendered

LAB_SETTING = "NUFI_LAB_BASE_DOMAIN"


def _settings(overlay: Rendered) -> dict[str, str]:
    name = overlay.container["envFrom"][0]["configMapRef"]["name"]
    found = overlay.find("ConfigMap", name, overlay.namespace)
    assert found is not None, f"{overlay.name}: the pod reads ConfigMap {name}, which is not rendered"
    data: dict[str, str] = found["data"]
    return data


def _registrable(host: str) -> str:
    # The example names use one-label public suffixes (.com, .net), so the last two labels are the site.
    return ".".join(host.split(".")[-2:])


def _rule_for(ingress: Manifest, host: str) -> Manifest:
    rules = [rule for rule in ingress["spec"]["rules"] if rule.get("host") == host]
    assert len(rules) == 1, f"the Ingress has no single rule for host {host!r}: {ingress['spec']['rules']}"
    rule: Manifest = rules[0]
    return rule


def test_production_sets_a_lab_domain_apart_from_the_dashboards(production: Rendered) -> None:
    settings = _settings(production)
    assert LAB_SETTING in settings, "production must set NUFI_LAB_BASE_DOMAIN, or labs open in no browser"
    lab_domain = settings[LAB_SETTING]
    dashboard_host = urlsplit(settings["NUFI_DASHBOARD_PUBLIC_URL"]).hostname
    assert dashboard_host is not None
    # Not under the dashboard's host, nor the dashboard under it: neither may set the other's cookies.
    assert lab_domain != dashboard_host
    assert not dashboard_host.endswith("." + lab_domain)
    assert not lab_domain.endswith("." + dashboard_host)
    # As docs/install.md recommends: another registrable domain, so a lab is another site.
    assert _registrable(lab_domain) != _registrable(dashboard_host)


def test_the_ingress_routes_every_lab_host_to_nufi(example: Rendered) -> None:
    settings = _settings(example)
    lab_domain = settings[LAB_SETTING]
    wildcard = f"*.{lab_domain}"
    ingress = example.one("Ingress", "nufi")
    (path,) = _rule_for(ingress, wildcard)["http"]["paths"]
    assert (path["path"], path["pathType"]) == ("/", "Prefix")
    assert path["backend"]["service"] == {"name": "nufi", "port": {"name": "http"}}
    service = example.one("Service", "nufi")
    assert service["metadata"]["namespace"] == ingress["metadata"]["namespace"]
    # The dashboard keeps its own rule beside the labs'.
    dashboard_host = urlsplit(settings["NUFI_DASHBOARD_PUBLIC_URL"]).hostname
    assert dashboard_host is not None
    _rule_for(ingress, dashboard_host)


def test_the_lab_wildcard_has_a_certificate_of_its_own(example: Rendered) -> None:
    settings = _settings(example)
    wildcard = f"*.{settings[LAB_SETTING]}"
    dashboard_host = urlsplit(settings["NUFI_DASHBOARD_PUBLIC_URL"]).hostname
    tls = example.one("Ingress", "nufi")["spec"]["tls"]
    secrets = {host: entry["secretName"] for entry in tls for host in entry["hosts"]}
    assert wildcard in secrets, f"no TLS entry lists {wildcard}: {tls}"
    assert dashboard_host in secrets
    assert secrets[wildcard] != secrets[dashboard_host], "a wildcard certificate apart from the dashboard's"


def test_every_lab_host_nufi_makes_is_covered_by_the_wildcard(example: Rendered) -> None:
    # A wildcard host (and certificate) covers exactly one label: NuFi's lab hosts must be one label deep,
    # for readable names and for the hashed ones alike, and https like the dashboard.
    settings = _settings(example)
    origins = LabOrigins.from_settings(settings[LAB_SETTING], settings["NUFI_DASHBOARD_PUBLIC_URL"])
    assert origins is not None
    suffix = "." + settings[LAB_SETTING]
    for project, name in [("team-a", "notebook"), ("a" * 40, "b" * 40), ("team--x", "lab")]:
        host = origins.host(project, name)
        assert host.endswith(suffix)
        assert "." not in host.removesuffix(suffix), f"{host} is more than one label under the base"
        assert origins.origin(project, name) == f"https://{host}"
