"""The published OpenAPI document, held to the real server by schemathesis: for requests generated from
the document, valid ones and invalid ones, as an admin and as a plain user, no answer is a 5xx and every
status code, media type, header and body is one the document declares.

`make test` runs a quick, repeatable pass (the same examples every run); `make fuzz` sets
NUFI_FUZZ_EXAMPLES for a long one with fresh random examples.
"""

from __future__ import annotations

import itertools
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from hypothesis.errors import Unsatisfiable
from schemathesis import GenerationMode, checks

from nufi_sandbox.processes import ManagedProcess, free_port
from support.world import World

FUZZ_EXAMPLES = int(os.environ.get("NUFI_FUZZ_EXAMPLES", "0"))
# The suite runs a short, fixed sample of each operation; `make fuzz` runs a long, random one.
EXAMPLES_PER_OPERATION = FUZZ_EXAMPLES or 12
# Stateful runs: sequences of linked calls (create -> read -> update -> delete), each this long at most.
STATEFUL_EXAMPLES = max(FUZZ_EXAMPLES // 10, 15)
STATEFUL_STEPS = 8
SLOWEST: dict[str, float] = {}
# The suite's 300 s fit the quick run; the long one's size is the caller's choice, and its time limit
# grows with it (about 0.6 s per example per operation on two cores, with room to spare).
pytestmark = pytest.mark.timeout(max(300, 3 * EXAMPLES_PER_OPERATION))


# Headers that frame the message: the HTTP client sets them from the body it sends. Generated ones
# (a Content-Length of "r hZ") make bytes that are not HTTP, which the server refuses before NuFi.
FRAMING = ("content-length", "transfer-encoding", "host")


def without_framing(case: Any) -> None:
    for name in [n for n in (case.headers or {}) if n.lower() in FRAMING]:
        del case.headers[name]


# uvicorn's own answer to bytes that are not HTTP (a Content-Length that is not a number, say): the
# request never reached NuFi, so it is not NuFi's to word.
NOT_HTTP = (400, b"Invalid HTTP request received.")


def problem_json_on_errors(ctx: Any, response: Any, case: Any) -> bool | None:
    """Every 4xx and 5xx answer NuFi gives is a problem details body."""
    if (response.status_code, response.content) == NOT_HTTP:
        return None
    if response.status_code >= 400:
        media_type = response.headers.get("content-type", [""])[0]
        assert media_type.startswith("application/problem+json"), (response.status_code, media_type)
    return None


def within_the_documented_bound(ctx: Any, response: Any, case: Any) -> bool | None:
    """No answer slower than the bound the document gives (`x-response-bound-seconds`). Recorded in
    every run; enforced in the long run of `make fuzz` only, since tests never fail on time."""
    bound = float(case.operation.schema.raw_schema["info"]["x-response-bound-seconds"])
    label = case.operation.label
    SLOWEST[label] = max(SLOWEST.get(label, 0.0), response.elapsed)
    if FUZZ_EXAMPLES:
        assert response.elapsed <= bound, f"{label} took {response.elapsed:.2f} s (bound {bound:g} s)"
    return None


CHECKS = [
    checks.not_a_server_error,
    checks.status_code_conformance,
    checks.content_type_conformance,
    checks.response_schema_conformance,
    checks.response_headers_conformance,
    problem_json_on_errors,
    within_the_documented_bound,
]


@pytest.fixture(scope="module")
def nufi_url(world: World, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """NuFi as its own process over the catalog world, as it runs in production."""
    work = tmp_path_factory.mktemp("schemathesis")
    port = free_port()
    env = {
        "NUFI_HOST": "127.0.0.1",
        "NUFI_PORT": str(port),
        "NUFI_KUBECONFIG": str(world.cluster.kubeconfig),
        "NUFI_PROMETHEUS_URL": world.prometheus.url,
        "NUFI_OIDC_ISSUER": world.idp.issuer,
        "NUFI_DATABASE_URL": f"sqlite+aiosqlite:///{work / 'nufi.db'}",
        "NUFI_LOG_FORMAT": "json",
    }
    process = ManagedProcess(
        "nufi", [str(Path(sys.executable).with_name("nufi")), "serve"], log_dir=Path(work), env=env
    )
    process.start()
    url = f"http://127.0.0.1:{port}"
    try:
        process.wait_ready(
            lambda: httpx.get(f"{url}/readyz", timeout=2).status_code == 200,
            timeout=60,
            what="NuFi answering /readyz",
        )
        yield url
    finally:
        process.stop()


@pytest.fixture(scope="module", autouse=True)
def slowest_answers() -> Iterator[None]:
    """Prints the slowest answer per operation once the module has run (see `make fuzz`)."""
    yield
    ranked = sorted(SLOWEST.items(), key=lambda item: item[1], reverse=True)[:8]
    print("\nslowest answers:", ", ".join(f"{label} {seconds * 1000:.0f} ms" for label, seconds in ranked))


def failures_of(url: str, token: str) -> dict[str, str]:
    """Each operation of the document driven by its own generated cases; what failed, per operation."""
    schema = schemathesis.openapi.from_url(f"{url}/openapi.json")
    headers = {"Authorization": f"Bearer {token}"}
    found: dict[str, str] = {}
    for result, mode in itertools.product(schema.get_all_operations(), GenerationMode):
        operation = result.ok()

        @given(case=operation.as_strategy(generation_mode=mode))
        @settings(
            max_examples=EXAMPLES_PER_OPERATION,
            deadline=None,
            derandomize=not FUZZ_EXAMPLES,
            database=None,
            suppress_health_check=list(HealthCheck),
        )
        def run(case: Any) -> None:
            without_framing(case)
            if case.operation.path.endswith("/stream"):
                opened(case, headers)
            else:
                case.call_and_validate(headers=headers, checks=CHECKS, timeout=30)

        try:
            run()
        except Unsatisfiable:
            continue  # nothing in the operation can be made invalid (it takes no input)
        except Exception as exc:  # one operation's failure must not hide the others'
            found[f"{operation.label} ({mode.value})"] = f"{type(exc).__name__}: {exc}"
    return found


def opened(case: Any, headers: dict[str, str]) -> None:
    """A stream never ends by itself, so its answer is judged by what comes before the events: no 5xx,
    a declared status, an event stream on 200 and a problem body otherwise."""
    request = case.as_transport_kwargs(headers=headers)
    with httpx.stream(
        request["method"],
        request["url"],
        params=request.get("params"),
        headers=request.get("headers"),
        cookies=request.get("cookies"),
        timeout=30,
    ) as response:
        declared = case.operation.definition.raw["responses"]
        assert response.status_code < 500, response.read()
        assert str(response.status_code) in declared, response.status_code
        media_type = response.headers.get("content-type", "")
        if response.status_code == 200:
            assert media_type.startswith("text/event-stream"), media_type
        else:
            assert media_type == "application/problem+json", (response.status_code, media_type)


def snapshot(client: httpx.Client) -> tuple[frozenset[str], frozenset[str]]:
    """The projects and device types the server holds."""
    projects = client.get("/api/v1/projects").raise_for_status().json()["items"]
    types = client.get("/api/v1/devices").raise_for_status().json()["items"]
    return frozenset(p["name"] for p in projects), frozenset(t["id"] for t in types)


def restore(client: httpx.Client, baseline: tuple[frozenset[str], frozenset[str]]) -> None:
    """Removes the projects and device types a sequence created, so that the next sequence meets the
    server as the first did: Hypothesis replays the opening steps of earlier sequences, and a replayed
    create must answer as it did then (201, not 409), or what is drawn next differs and Hypothesis
    stops with FlakyStrategyDefinition instead of testing."""
    projects, types = snapshot(client)
    for name in projects - baseline[0]:
        client.delete(f"/api/v1/admin/projects/{name}").raise_for_status()
    for type_id in types - baseline[1]:
        client.delete(f"/api/v1/admin/devices/{type_id}").raise_for_status()


def stateful_failures(url: str, token: str) -> str | None:
    """Linked sequences (the links schemathesis infers from the document's parameters and response
    schemas): what failed, with the steps of the sequence up to it, or None."""
    # A stream never ends by itself: its answers are judged by `opened` in the stateless run.
    schema = schemathesis.openapi.from_url(f"{url}/openapi.json").exclude(path_regex=r"/stream$")
    machine = schema.as_state_machine()
    headers = {"Authorization": f"Bearer {token}"}
    client = httpx.Client(base_url=url, headers=headers, timeout=30)
    baseline = snapshot(client)
    steps: list[str] = []
    # The first answer that failed a check, as it came: a failure found while generating is then
    # reported even if Hypothesis's replay of it goes another way.
    first_failure: list[str] = []

    class Signed(machine):  # type: ignore[misc, valid-type]
        def setup(self) -> None:
            super().setup()
            steps.clear()

        def teardown(self) -> None:
            super().teardown()
            restore(client, baseline)

        def get_call_kwargs(self, case: Any) -> dict[str, Any]:
            without_framing(case)
            return {"headers": headers, "timeout": 30}

        def validate_response(self, response: Any, case: Any, **kwargs: Any) -> None:
            steps.append(f"{case.method} {case.formatted_path} -> {response.status_code}")
            try:
                case.validate_response(response, checks=CHECKS, transport_kwargs=kwargs)
            except BaseException as exc:  # a FailureGroup, raised again as it is
                if not first_failure:
                    first_failure.extend([*steps, f"{response.text[:500]}\n{exc}"])
                raise

    try:
        Signed.run(
            settings=settings(
                max_examples=STATEFUL_EXAMPLES,
                stateful_step_count=STATEFUL_STEPS,
                deadline=None,
                derandomize=not FUZZ_EXAMPLES,
                database=None,
                suppress_health_check=list(HealthCheck),
            )
        )
    except (Exception, BaseExceptionGroup) as exc:  # schemathesis's FailureGroup is a BaseExceptionGroup
        first = "\n".join(first_failure or ["(no check failed)"])
        last = "\n".join(steps)
        return f"{type(exc).__name__}: {exc}\nfirst failing sequence:\n{first}\nlast sequence:\n{last}"
    finally:
        client.close()
    return None


def test_linked_sequences_as_an_admin(nufi_url: str, world: World) -> None:
    failure = stateful_failures(nufi_url, world.admin_token)
    assert failure is None, failure


def test_as_an_admin(nufi_url: str, world: World) -> None:
    failures = failures_of(nufi_url, world.admin_token)
    assert not failures, "\n\n".join(f"{label}:\n{why}" for label, why in failures.items())


def test_as_a_user(nufi_url: str, world: World) -> None:
    failures = failures_of(nufi_url, world.user_token)
    assert not failures, "\n\n".join(f"{label}:\n{why}" for label, why in failures.items())
