"""``STATE_DIR/runtime-map.json``: how the dev cluster's kubelets run the sandbox's images as local
processes (see images.py for what each image is, and docs/sandbox.md for the runtime itself).

Every program is started with this interpreter (the sandbox's virtual environment, by its own path,
not resolved through symlinks, so the venv's packages are found). A VS Code lab's launcher is told
where code-server is (``NUFI_CODE_SERVER``): it runs with the pod's HOME, not the sandbox's, so it
could not find the install the sandbox's user made. Each node's entry carries the URL
of that node's mock exporter as ``NUFI_MOCK_EXPORTER_URL``, so an inference server reports its load to
the exporter of the node it runs on.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

from nufi_sandbox import code_server
from nufi_sandbox.devcluster.runtime.map import ImageEntry, NodeEntry, RuntimeMap, dump_runtime_map
from nufi_sandbox.sandbox.images import INFERENCE, JUPYTER, VSCODE
from nufi_sandbox.sandbox.topology import SandboxNode

EXPORTER_URL_ENV = "NUFI_MOCK_EXPORTER_URL"
# What a pod's own manifest would get from the downward API, given to every mapped program.
_POD_ENV = {"POD_NAME": "{pod}", "POD_NAMESPACE": "{namespace}", "NODE_NAME": "{node}"}


def sandbox_runtime_map(
    nodes: Sequence[SandboxNode], exporter_ports: Mapping[str, int], python: str | None = None
) -> RuntimeMap:
    """The map for ``nodes``, whose exporters listen on 127.0.0.1 at ``exporter_ports`` (by node)."""
    interpreter = str(Path(python or sys.executable).absolute())
    wrapper = (interpreter, "-m", "nufi_sandbox.runtime")
    images = {
        # The image's entrypoint is `nufi-mock`: the container's args pick the subcommand.
        INFERENCE: ImageEntry(
            argv=(interpreter, "-m", "nufi_mock"),
            # Only the loopback interface: the dev cluster routes to 127.0.0.1:$PORT.
            env={**_POD_ENV, "NUFI_MOCK_INFERENCE_HOST": "127.0.0.1"},
        ),
        JUPYTER: ImageEntry(argv=(*wrapper, "jupyter"), env=dict(_POD_ENV)),
        VSCODE: ImageEntry(
            argv=(*wrapper, "vscode"),
            env={**_POD_ENV, code_server.OVERRIDE_ENV: str(code_server.program())},
        ),
    }
    node_env = {
        node.name: NodeEntry(env={EXPORTER_URL_ENV: f"http://127.0.0.1:{exporter_ports[node.name]}"})
        for node in nodes
        if node.name in exporter_ports
    }
    return RuntimeMap(images=images, nodes=node_env)


def write_runtime_map(path: Path, runtime_map: RuntimeMap) -> None:
    """Replace ``path`` in one step, so the dev cluster never reads half a file."""
    partial = path.with_name(f".{path.name}.{os.getpid()}")
    partial.write_text(dump_runtime_map(runtime_map) + "\n")
    partial.replace(path)
