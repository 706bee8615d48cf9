"""The lab proxy's pure parts: which paths it owns, how redirects map back onto NuFi's paths, what
headers reach a lab, and which route reaches a Service."""

from __future__ import annotations

import re
import string

from hypothesis import given
from hypothesis import strategies as st

from nufi.api.labproxy.forward import (
    LAB_COOKIES,
    NUFI_COOKIES,
    SESSION_COOKIE,
    Target,
    request_headers,
    without_session_cookie,
)
from nufi.api.labproxy.origin import LAB_COOKIE, SECURE_LAB_COOKIE, SECURE_STATE_COOKIE, STATE_COOKIE
from nufi.api.labproxy.proxy import LOGIN_PATH, RouteCache, match_lab_path
from nufi.auth import Principal
from nufi.cluster import ClusterGateway, KubeSource
from nufi.cluster.service_route import ClusterDnsRoute, ServiceProxyRoute, Upstream, route_from_settings
from nufi.config import Settings
from nufi.ui import signin
from nufi.workloads.labs.model import LabRoute

LABEL = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?")
labels = st.from_regex(r"\A[a-z0-9]([-a-z0-9]{0,20}[a-z0-9])?\Z")


def test_the_proxy_speaks_the_dashboards_names() -> None:
    assert SESSION_COOKIE == signin.SESSION_COOKIE
    assert {signin.SESSION_COOKIE, signin.LOGIN_COOKIE, *LAB_COOKIES} == NUFI_COOKIES
    assert {LAB_COOKIE, SECURE_LAB_COOKIE, STATE_COOKIE, SECURE_STATE_COOKIE} == LAB_COOKIES
    assert LOGIN_PATH == signin.LOGIN_PATH


@given(st.sampled_from(["labs", "notebook"]), labels, labels, st.text(alphabet=string.printable, max_size=30))
def test_lab_paths_are_parsed(family: str, project: str, name: str, rest: str) -> None:
    rest = "/" + rest.lstrip("/")
    found = match_lab_path(f"/{family}/{project}/{name}{rest}")
    assert found is not None
    assert (found.family, found.project, found.name, found.rest) == (family, project, name, rest)
    assert found.prefix == f"/{family}/{project}/{name}/"
    bare = match_lab_path(f"/{family}/{project}/{name}")
    assert bare is not None and bare.rest == ""


@given(st.text(max_size=40))
def test_other_paths_are_left_to_the_app(path: str) -> None:
    found = match_lab_path(path)
    if found is not None:
        assert LABEL.fullmatch(found.project) and LABEL.fullmatch(found.name)
        assert path.startswith(("/labs/", "/notebook/"))


def test_paths_that_are_not_a_lab_are_not_taken() -> None:
    for path in ("/labs", "/labs/", "/labs/p", "/labs/p/", "/labs/P/n/", "/labsx/p/n/", "/api/v1/labs/p/n"):
        assert match_lab_path(path) is None, path


def _target(*, serves_prefix: bool = True, rewritten: str = "") -> Target:
    upstream = Upstream(base_url="https://kube.example:6443" + rewritten, rewritten_prefix=rewritten)
    return Target(upstream, path="/", query="", prefix="/labs/p/n/", serves_prefix=serves_prefix)


def test_redirects_come_back_on_nufis_paths() -> None:
    proxied = "/api/v1/namespaces/p/services/n:80/proxy"
    via_api = _target(rewritten=proxied)
    # The services proxy prefixed its own path: taken out again, whether relative or absolute.
    assert via_api.local_location(f"{proxied}/labs/p/n/lab") == "/labs/p/n/lab"
    assert (
        via_api.local_location(f"https://kube.example:6443{proxied}/labs/p/n/lab?x=1") == "/labs/p/n/lab?x=1"
    )
    assert via_api.local_location("https://elsewhere.example/login") == "https://elsewhere.example/login"
    assert _target().local_location("/labs/p/n/tree") == "/labs/p/n/tree"
    # A lab serving at `/` redirects to `/login`: that is under its prefix on NuFi.
    at_root = _target(serves_prefix=False)
    assert at_root.local_location("/login") == "/labs/p/n/login"
    assert at_root.local_location("./login") == "./login"


def test_the_session_cookie_never_reaches_a_lab() -> None:
    assert without_session_cookie(["a=1; nufi_session=secret; b=2", "c=3"]) == "a=1; b=2; c=3"
    assert without_session_cookie(["nufi_session=secret"]) == ""
    assert without_session_cookie(["nufi_session_other=kept"]) == "nufi_session_other=kept"


def test_request_headers_keep_nufis_credentials_and_hops_back() -> None:
    scope = {
        "type": "http",
        "scheme": "https",
        "client": ("10.0.0.7", 5000),
        "headers": [
            (b"host", b"nufi.example"),
            (b"authorization", b"Bearer caller-token"),
            (b"cookie", b"nufi_session=s; _xsrf=x"),
            (b"connection", b"keep-alive, x-private"),
            (b"x-private", b"1"),
            (b"upgrade", b"h2c"),
            (b"proxy-authorization", b"Basic x"),
            (b"content-length", b"12"),
            (b"x-forwarded-for", b"192.0.2.1"),
            (b"accept", b"text/html"),
        ],
    }
    upstream = Upstream(
        base_url="https://kube", headers={"Authorization": "Bearer nufi-sa"}, rewritten_prefix="/p"
    )
    headers = request_headers(scope, upstream)
    assert headers["authorization"] == "Bearer nufi-sa"  # the upstream's own, not the caller's
    assert headers.getall("authorization") == ["Bearer nufi-sa"]
    assert headers["cookie"] == "_xsrf=x"
    for dropped in ("connection", "x-private", "upgrade", "proxy-authorization", "host"):
        assert dropped not in headers, dropped
    assert headers["content-length"] == "12"
    assert headers["x-forwarded-for"] == "192.0.2.1, 10.0.0.7"
    assert headers["x-forwarded-host"] == "nufi.example" and headers["x-forwarded-proto"] == "https"
    assert headers["accept-encoding"] == "identity"  # so the services proxy's HTML can be put back
    assert headers["accept"] == "text/html"


async def test_cluster_dns_fills_in_its_template() -> None:
    assert (await ClusterDnsRoute().upstream("team", "nb", 80)).base_url == "http://nb.team.svc:80"
    custom = ClusterDnsRoute("http://{service}.{namespace}.svc.corp.local:{port}")
    assert (await custom.upstream("team", "nb", 80)).base_url == "http://nb.team.svc.corp.local:80"


def test_the_route_follows_the_setting_and_where_nufi_runs() -> None:
    outside = ClusterGateway(KubeSource("kubeconfig"))
    inside = ClusterGateway(KubeSource("in-cluster"))
    assert isinstance(route_from_settings(Settings(), outside), ServiceProxyRoute)
    assert isinstance(route_from_settings(Settings(), inside), ClusterDnsRoute)
    assert isinstance(route_from_settings(Settings(lab_route="cluster-dns"), outside), ClusterDnsRoute)
    assert isinstance(route_from_settings(Settings(lab_route="service-proxy"), inside), ServiceProxyRoute)


def test_granted_routes_are_remembered_briefly_per_caller() -> None:
    now = [100.0]
    cache = RouteCache(ttl_seconds=5, size=2, clock=lambda: now[0])
    ada = Principal(subject="s1", username="ada", roles=frozenset())
    ada_admin = Principal(subject="s1", username="ada", roles=frozenset({"nufi-admin"}))
    route = LabRoute("p", "n", 80, "/labs/p/n/", serves_prefix=True, backend="statefulset")
    cache.put(RouteCache.key(ada, "p", "n"), route)
    assert cache.get(RouteCache.key(ada, "p", "n")) == route
    # The same person with other roles is another caller: their grant is decided again.
    assert cache.get(RouteCache.key(ada_admin, "p", "n")) is None
    now[0] += 5
    assert cache.get(RouteCache.key(ada, "p", "n")) is None
    for name in ("a", "b", "c"):
        cache.put(RouteCache.key(ada, "p", name), route)
    assert cache.get(RouteCache.key(ada, "p", "a")) is None  # the oldest went first
    assert cache.get(RouteCache.key(ada, "p", "c")) == route
