"""The dev cluster as tests start it: a node layout, and a runtime map when its kubelets run programs.

Its state lives in a fresh directory directly under /tmp: the kubelet and device-plugin unix sockets
below it must fit in 108 bytes, which pytest's tmp_path does not leave room for.
"""

from __future__ import annotations

import secrets
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from nufi_sandbox.devcluster.launcher import DevClusterProcess
from nufi_sandbox.devcluster.runtime.map import RuntimeMap, dump_runtime_map

# The bearer token of every dev cluster these tests start (the kubeconfig each writes holds it too):
# NuFi's service account there, to see and make what NuFi would. Made anew by each test process.
DEV_TOKEN = secrets.token_urlsafe(32)
DEV_HEADERS = {"Authorization": f"Bearer {DEV_TOKEN}"}


def short_state_dir(prefix: str) -> Path:
    """A fresh directory directly under /tmp, for a cluster's state and sockets."""
    return Path(tempfile.mkdtemp(prefix=prefix, dir="/tmp"))


def prepared_cluster(
    state: Path,
    nodes: str | None,
    *,
    runtime_map: RuntimeMap | str | None = None,
    **options: Any,
) -> DevClusterProcess:
    """A dev cluster (not started) keeping its state in `state`, with `nodes` (a nodes.yaml text) and
    `runtime_map` (a RuntimeMap, or the JSON text of one) written beside it."""
    nodes_file = map_file = None
    if nodes is not None:
        nodes_file = state / "nodes.yaml"
        nodes_file.write_text(nodes)
    if runtime_map is not None:
        map_file = state / "runtime-map.json"
        text = runtime_map if isinstance(runtime_map, str) else dump_runtime_map(runtime_map)
        map_file.write_text(text)
    options.setdefault("token", DEV_TOKEN)
    return DevClusterProcess(state / "cluster", nodes_file=nodes_file, runtime_map=map_file, **options)


@contextmanager
def dev_cluster(
    nodes: str | None,
    *,
    prefix: str = "dc-",
    runtime_map: RuntimeMap | str | None = None,
    start_timeout: float = 30.0,
    **options: Any,
) -> Iterator[DevClusterProcess]:
    """A started dev cluster with the node layout `nodes` (see `prepared_cluster`); stopped by PID and
    its state directory removed afterwards."""
    state = short_state_dir(prefix)
    cluster = prepared_cluster(state, nodes, runtime_map=runtime_map, **options)
    try:
        cluster.start(timeout=start_timeout)
        yield cluster
    finally:
        cluster.stop()
        shutil.rmtree(state, ignore_errors=True)
