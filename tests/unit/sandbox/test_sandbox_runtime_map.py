"""The runtime map the sandbox hands the dev cluster: every image, absolute argv from the sandbox's own
interpreter, each node's exporter URL; and sandbox.json's images."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import yaml

from nufi_sandbox.devcluster.runtime.map import load_runtime_map
from nufi_sandbox.sandbox.images import IMAGES, INFERENCE, JUPYTER, VSCODE
from nufi_sandbox.sandbox.runtime_map import EXPORTER_URL_ENV, sandbox_runtime_map, write_runtime_map
from nufi_sandbox.sandbox.state_file import SandboxState
from nufi_sandbox.sandbox.topology import NODES

REPO = Path(__file__).resolve().parents[3]
PORTS = {node.name: 9100 + i for i, node in enumerate(NODES)}


def written(tmp_path: Path, python: str | None = None) -> dict[str, object]:
    path = tmp_path / "runtime-map.json"
    write_runtime_map(path, sandbox_runtime_map(NODES, PORTS, python))
    loaded: dict[str, object] = json.loads(path.read_text())
    return loaded


def test_every_image_runs_from_the_sandbox_interpreter_by_absolute_path(tmp_path: Path) -> None:
    document = written(tmp_path)
    assert set(document) == {"images", "nodes"}
    images = document["images"]
    assert isinstance(images, dict)
    assert set(images) == {INFERENCE, JUPYTER, VSCODE} == set(IMAGES.values())
    python = str(Path(sys.executable).absolute())
    assert images[INFERENCE]["argv"] == [python, "-m", "nufi_mock"]
    assert images[JUPYTER]["argv"] == [python, "-m", "nufi_sandbox.runtime", "jupyter"]
    assert images[VSCODE]["argv"] == [python, "-m", "nufi_sandbox.runtime", "vscode"]
    for entry in images.values():
        assert Path(entry["argv"][0]).is_absolute()
        assert entry["env"]["POD_NAME"] == "{pod}" and entry["env"]["NODE_NAME"] == "{node}"
    assert images[INFERENCE]["env"]["NUFI_MOCK_INFERENCE_HOST"] == "127.0.0.1"


def test_a_venv_interpreter_is_kept_as_given_not_resolved_through_its_symlink(tmp_path: Path) -> None:
    venv_python = tmp_path / "venv" / "bin" / "python"
    venv_python.parent.mkdir(parents=True)
    venv_python.symlink_to(sys.executable)
    images = written(tmp_path, str(venv_python))["images"]
    assert isinstance(images, dict)
    assert images[INFERENCE]["argv"][0] == str(venv_python)


def test_each_node_gets_the_url_of_its_own_exporter(tmp_path: Path) -> None:
    nodes = written(tmp_path)["nodes"]
    assert nodes == {
        name: {"env": {EXPORTER_URL_ENV: f"http://127.0.0.1:{port}"}} for name, port in PORTS.items()
    }
    assert isinstance(nodes, dict) and nodes["lpu-node-1"] != nodes["lpu-node-2"]


def test_the_file_is_replaced_whole(tmp_path: Path) -> None:
    path = tmp_path / "runtime-map.json"
    path.write_text("stale")
    write_runtime_map(path, sandbox_runtime_map(NODES, PORTS))
    assert json.loads(path.read_text())["images"]
    assert [p.name for p in tmp_path.iterdir()] == ["runtime-map.json"]


def test_the_inference_image_is_the_mock_lpu_image_of_the_deploy_manifests() -> None:
    manifest = yaml.safe_load((REPO / "deploy/mock-lpu/exporter-daemonset.yaml").read_text())
    [container] = manifest["spec"]["template"]["spec"]["containers"]
    assert container["image"] == INFERENCE


def test_sandbox_json_lists_the_images() -> None:
    state = SandboxState(
        nufi_url="http://127.0.0.1:1",
        prometheus_url="http://127.0.0.1:2",
        kube_api_url="http://127.0.0.1:3",
        kubeconfig=Path("/k"),
        oidc_issuer="http://127.0.0.1:4/realms/super-llm",
        token_url="http://127.0.0.1:4/t",
        exporters={},
        alertmanager_url="http://127.0.0.1:9093",
        alert_rules_dir=Path("alert-rules"),
    )
    assert state.as_json()["images"] == {
        "inference": "nufi-mock:0.1.0",
        "jupyter": "quay.io/jupyter/base-notebook:latest",
        "vscode": "codercom/code-server:latest",
    }


def test_sandbox_json_names_alertmanager_and_the_rules_dir() -> None:
    state = SandboxState(
        nufi_url="http://127.0.0.1:1",
        prometheus_url="http://127.0.0.1:2",
        kube_api_url="http://127.0.0.1:3",
        kubeconfig=Path("/k"),
        oidc_issuer="http://127.0.0.1:4/realms/super-llm",
        token_url="http://127.0.0.1:4/t",
        exporters={},
        alertmanager_url="http://127.0.0.1:5",
        alert_rules_dir=Path("/state/alert-rules"),
    )
    written = json.loads(json.dumps(state.as_json()))
    assert written["alertmanager_url"] == "http://127.0.0.1:5"
    assert written["alert_rules_dir"] == "/state/alert-rules"


def test_the_dev_cluster_reads_the_file_the_sandbox_writes(tmp_path: Path) -> None:
    path = tmp_path / "runtime-map.json"
    write_runtime_map(path, sandbox_runtime_map(NODES, PORTS))
    loaded = load_runtime_map(path)
    entry = loaded.entry_for(INFERENCE)
    assert entry is not None and entry.argv[1:] == ("-m", "nufi_mock")
    assert loaded.node_env("lpu-node-2") == {EXPORTER_URL_ENV: f"http://127.0.0.1:{PORTS['lpu-node-2']}"}
