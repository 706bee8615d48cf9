"""Pod processes of a dev cluster running as root run as `nobody`, in a work dir outside the state
directory: a lab's terminal cannot read the identity provider's signing key kept there, nor list the
state directory, and its files stay its own."""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from kubernetes_asyncio import client

from nufi_sandbox.devcluster.launcher import DevClusterProcess
from nufi_sandbox.devcluster.runtime.map import ImageEntry, RuntimeMap, dump_runtime_map
from support.kube import api_client, new_namespace
from support.polling import until

from .processcluster import NODES, pod_when

PROBE_IMAGE = "registry.nufi.test/probe:1"
# What a lab's terminal would try: read the key, list the state directory, write at home.
PROGRAM = textwrap.dedent("""\
    import json, os, sys, time
    key, state = sys.argv[1], sys.argv[2]
    def attempt(action):
        try:
            action()
            return "allowed"
        except PermissionError:
            return "denied"
    report = {
        "uid": os.getuid(), "gid": os.getgid(), "groups": os.getgroups(), "cwd": os.getcwd(),
        "home": os.environ.get("HOME"),
        "read_key": attempt(lambda: open(key).read()),
        "list_state": attempt(lambda: os.listdir(state)),
        "write_home": attempt(lambda: open("notebook.ipynb", "w").write("{}")),
    }
    with open("report.json.tmp", "w") as out:
        json.dump(report, out)
    os.rename("report.json.tmp", "report.json")
    time.sleep(3600)
    """)


@pytest.fixture(scope="module")
def cluster() -> Iterator[DevClusterProcess]:
    if os.geteuid() != 0:
        pytest.skip("pods run as the dev cluster's own user unless it is root; nothing to drop")
    state = Path(tempfile.mkdtemp(prefix="dcu-", dir="/tmp"))
    (state / "nodes.yaml").write_text(NODES)
    key = state / "idp" / "signing-key.pem"
    key.parent.mkdir()
    key.write_text("-----BEGIN PRIVATE KEY-----\n")
    key.chmod(0o600)
    runtime_map = RuntimeMap(
        images={PROBE_IMAGE: ImageEntry(argv=(sys.executable, "-c", PROGRAM, str(key), str(state)))}
    )
    (state / "runtime-map.json").write_text(dump_runtime_map(runtime_map))
    process = DevClusterProcess(
        state, nodes_file=state / "nodes.yaml", runtime_map=state / "runtime-map.json"
    )
    process.start()
    try:
        yield process
    finally:
        process.stop()
        shutil.rmtree(state, ignore_errors=True)


async def test_a_lab_process_runs_as_nobody_outside_the_state_directory(cluster: DevClusterProcess) -> None:
    async with api_client(cluster.kubeconfig) as api:
        v1 = client.CoreV1Api(api)
        namespace = await new_namespace(api, 6)
        container: dict[str, Any] = {"name": "notebook", "image": PROBE_IMAGE}
        await v1.create_namespaced_pod(
            namespace, {"metadata": {"name": "lab-0"}, "spec": {"containers": [container]}}
        )
        pod = await until(lambda: pod_when(v1, "lab-0", namespace, "Ready"), within=30)
    meta = pod.metadata
    link = cluster.state_dir / "pods" / f"{meta.namespace}_{meta.name}_{meta.uid}" / "notebook"

    def report() -> dict[str, Any] | None:
        try:
            loaded: dict[str, Any] = json.loads((link / "report.json").read_text())
        except OSError:
            return None
        return loaded

    async def reported() -> dict[str, Any] | None:
        return report()

    found = await until(reported, within=30)
    assert found is not None
    assert (found["uid"], found["gid"], found["groups"]) == (65534, 65534, [])
    assert found["read_key"] == "denied" and found["list_state"] == "denied"
    assert found["write_home"] == "allowed"
    workdir = Path(found["cwd"])
    state = cluster.state_dir.resolve()
    assert workdir == link.resolve() and found["home"] == str(workdir)
    assert state not in workdir.parents and workdir != state
    assert_owned_alone(workdir)


def assert_owned_alone(workdir: Path) -> None:
    assert workdir.stat().st_uid == 65534 and (workdir.stat().st_mode & 0o777) == 0o700
    # Nobody else may list the work root either: a lab cannot find its neighbours' work dirs.
    assert workdir.parents[1].stat().st_mode & 0o777 == 0o711
