"""Pod processes of a dev cluster running as root run each as a user of the pod's own, in a work dir
outside the state directory: a lab's terminal cannot read the identity provider's signing key kept
there, nor list the state directory; its files stay its own; another pod's home, environment and
working directory are closed to it, and so is the dev cluster's API without the token it is not
given."""

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
from nufi_sandbox.devcluster.runtime.unprivileged import POD_IDS
from support.kube import api_client, new_namespace
from support.polling import until

from .processcluster import NODES, pod_when

PROBE_IMAGE = "registry.nufi.test/probe:1"
# What a lab's terminal would try: read the key, list the state directory, write at home; then, once
# told where a neighbour runs (probe.json, written by the test), its home, environment and working
# directory, and the dev cluster's API.
PROGRAM = textwrap.dedent("""\
    import json, os, sys, time, urllib.error, urllib.request
    key, state, api = sys.argv[1], sys.argv[2], sys.argv[3]
    def attempt(action):
        try:
            action()
            return "allowed"
        except PermissionError:
            return "denied"
    def write(name, report):
        with open(name + ".tmp", "w") as out:
            json.dump(report, out)
        os.rename(name + ".tmp", name)
    write("report.json", {
        "uid": os.getuid(), "gid": os.getgid(), "groups": os.getgroups(), "cwd": os.getcwd(),
        "home": os.environ.get("HOME"), "pid": os.getpid(), "env": dict(os.environ),
        "read_key": attempt(lambda: open(key).read()),
        "list_state": attempt(lambda: os.listdir(state)),
        "write_home": attempt(lambda: open("notebook.ipynb", "w").write("{}")),
    })
    while not os.path.exists("probe.json"):
        time.sleep(0.05)
    other = json.load(open("probe.json"))
    def api_status():
        try:
            return urllib.request.urlopen(api + other["pods_path"], timeout=10).status
        except urllib.error.HTTPError as exc:
            return exc.code
    write("probe-report.json", {
        "list_home": attempt(lambda: os.listdir(other["home"])),
        "read_file": attempt(lambda: open(os.path.join(other["home"], "notebook.ipynb")).read()),
        "environ": attempt(lambda: open(f"/proc/{other['pid']}/environ").read()),
        "cwd": attempt(lambda: os.readlink(f"/proc/{other['pid']}/cwd")),
        "api": api_status(),
    })
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
    process = DevClusterProcess(
        state, nodes_file=state / "nodes.yaml", runtime_map=state / "runtime-map.json"
    )
    argv = (sys.executable, "-c", PROGRAM, str(key), str(state), process.url)
    runtime_map = RuntimeMap(images={PROBE_IMAGE: ImageEntry(argv=argv)})
    (state / "runtime-map.json").write_text(dump_runtime_map(runtime_map))
    process.start()
    try:
        yield process
    finally:
        process.stop()
        shutil.rmtree(state, ignore_errors=True)


async def start_lab(cluster: DevClusterProcess, api: client.ApiClient) -> tuple[Path, dict[str, Any]]:
    """A lab pod in a namespace of its own: its work dir link and what it reported."""
    v1 = client.CoreV1Api(api)
    namespace = await new_namespace(api, 6)
    container: dict[str, Any] = {"name": "notebook", "image": PROBE_IMAGE}
    await v1.create_namespaced_pod(
        namespace, {"metadata": {"name": "lab-0"}, "spec": {"containers": [container]}}
    )
    pod = await until(lambda: pod_when(v1, "lab-0", namespace, "Ready"), within=30)
    meta = pod.metadata
    link = cluster.state_dir / "pods" / f"{meta.namespace}_{meta.name}_{meta.uid}" / "notebook"
    return link, await until(lambda: written(link / "report.json"), within=30)


def read_json(path: Path) -> dict[str, Any] | None:
    try:
        loaded: dict[str, Any] = json.loads(path.read_text())
    except OSError:
        return None
    return loaded


async def written(path: Path) -> dict[str, Any] | None:
    """What a pod wrote to `path` (it renames a finished file there), once it has."""
    return read_json(path)


async def test_a_lab_process_runs_as_its_own_user_outside_the_state_directory(
    cluster: DevClusterProcess,
) -> None:
    async with api_client(cluster.kubeconfig) as api:
        link, found = await start_lab(cluster, api)
    assert found["uid"] in POD_IDS and found["uid"] != 65534
    assert (found["gid"], found["groups"]) == (found["uid"], [])
    assert found["read_key"] == "denied" and found["list_state"] == "denied"
    assert found["write_home"] == "allowed"
    workdir = Path(found["cwd"])
    state = cluster.state_dir.resolve()
    assert workdir == link.resolve() and found["home"] == str(workdir)
    assert state not in workdir.parents and workdir != state
    assert_owned_alone(workdir, found["uid"])
    # The dev cluster's API token reaches no pod.
    assert cluster.token not in json.dumps(found["env"])


async def test_a_lab_cannot_read_another_labs_home_environment_or_working_directory(
    cluster: DevClusterProcess,
) -> None:
    async with api_client(cluster.kubeconfig) as api:
        (a_link, a), (b_link, b) = await start_lab(cluster, api), await start_lab(cluster, api)
    assert a["uid"] != b["uid"]
    b_namespace = b_link.parent.name.split("_")[0]
    probe = {"home": b["cwd"], "pid": b["pid"], "pods_path": f"/api/v1/namespaces/{b_namespace}/pods"}
    (a_link / "probe.json.tmp").write_text(json.dumps(probe))
    (a_link / "probe.json.tmp").rename(a_link / "probe.json")
    tried = await until(lambda: written(a_link / "probe-report.json"), within=30)
    assert tried == {
        "list_home": "denied",
        "read_file": "denied",
        "environ": "denied",
        "cwd": "denied",
        "api": 401,
    }


def assert_owned_alone(workdir: Path, uid: int) -> None:
    assert workdir.stat().st_uid == uid and (workdir.stat().st_mode & 0o777) == 0o700
    # Nobody else may list the work root either: a lab cannot find its neighbours' work dirs.
    assert workdir.parents[1].stat().st_mode & 0o777 == 0o711
