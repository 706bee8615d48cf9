"""deploy/mock-lpu and the mock image, checked offline: schemas, wiring between objects, CLI arguments."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import kubernetes_validate
import pytest
import typer
import yaml

from nufi_mock.cli import app
from nufi_mock.dra import device_class

ROOT = Path(__file__).resolve().parents[3]
DEPLOY = ROOT / "deploy" / "mock-lpu"
DOCKERFILE = ROOT / "deploy" / "docker" / "mock.Dockerfile"
RELEASES = ["1.30", "1.31", "1.32", "1.33", "1.34"]
NOT_KUBERNETES_OBJECTS = {"kustomization.yaml", "prometheus-scrape.yaml"}


def documents(name: str) -> list[dict[str, Any]]:
    return [doc for doc in yaml.safe_load_all((DEPLOY / name).read_text()) if doc]


def objects() -> dict[str, dict[str, Any]]:
    found = {}
    for path in sorted(DEPLOY.glob("*.yaml")):
        if path.name in NOT_KUBERNETES_OBJECTS:
            continue
        for doc in documents(path.name):
            found[f"{doc['kind']}/{doc['metadata']['name']}"] = doc
    return found


def pod_spec(kind_name: str) -> dict[str, Any]:
    spec: dict[str, Any] = objects()[kind_name]["spec"]["template"]["spec"]
    return spec


def container(kind_name: str) -> dict[str, Any]:
    [only] = pod_spec(kind_name)["containers"]
    return dict(only)


@pytest.mark.parametrize("release", RELEASES)
def test_core_objects_are_valid_in_strict_mode(release: str) -> None:
    checked_any = False
    for name, obj in objects().items():
        if obj["apiVersion"].startswith("monitoring.coreos.com/"):
            continue  # a CRD type the validator cannot know; see the ServiceMonitor test
        if obj["apiVersion"] == "resource.k8s.io/v1" and RELEASES.index(release) < RELEASES.index("1.34"):
            continue  # resource.k8s.io/v1 is served from 1.34 on
        try:
            used = kubernetes_validate.validate(obj, release, strict=True)
        except kubernetes_validate.ValidationError as exc:
            pytest.fail(f"{name} is invalid for Kubernetes {release}: {exc.message}")
        assert used == release, f"{name} was checked against {used}, not {release}"
        checked_any = True
    assert checked_any


def test_strict_validation_has_teeth() -> None:
    broken = objects()["DaemonSet/mock-lpu-exporter"]
    broken["spec"]["template"]["spec"]["containers"][0]["imagePullPolicyy"] = "Always"
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(broken, RELEASES[-1], strict=True)


def test_the_set_of_objects() -> None:
    assert set(objects()) == {
        "Namespace/mock-lpu",
        "DaemonSet/mock-lpu-device-plugin",
        "DaemonSet/mock-lpu-exporter",
        "Service/mock-lpu-exporter",
        "ServiceMonitor/mock-lpu-exporter",
        "DeviceClass/lpu.hyperaccel.ai",
        "ServiceAccount/mock-lpu-dra-driver",
        "ClusterRole/mock-lpu-dra-driver",
        "ClusterRoleBinding/mock-lpu-dra-driver",
        "DaemonSet/mock-lpu-dra-driver",
    }
    [kustomization] = documents("kustomization.yaml")
    assert kustomization["kind"] == "Kustomization"
    listed = set(kustomization["resources"])
    # The ServiceMonitor needs the operator's CRD, and the DRA driver Kubernetes 1.34: applied separately.
    separate = {"servicemonitor.yaml", *(p.name for p in DEPLOY.glob("dra-*.yaml"))}
    assert separate >= {"dra-deviceclass.yaml", "dra-driver-rbac.yaml", "dra-driver-daemonset.yaml"}
    assert listed == {p.name for p in DEPLOY.glob("*.yaml")} - NOT_KUBERNETES_OBJECTS - separate
    images = {image["name"] for image in kustomization["images"]}
    for daemonset in (
        "DaemonSet/mock-lpu-device-plugin",
        "DaemonSet/mock-lpu-exporter",
        "DaemonSet/mock-lpu-dra-driver",
    ):
        assert container(daemonset)["image"].split(":")[0] in images


@pytest.mark.parametrize(
    "daemonset",
    ["DaemonSet/mock-lpu-device-plugin", "DaemonSet/mock-lpu-exporter", "DaemonSet/mock-lpu-dra-driver"],
)
def test_daemonsets_select_their_pods_and_lpu_nodes(daemonset: str) -> None:
    obj = objects()[daemonset]
    labels = obj["spec"]["template"]["metadata"]["labels"]
    assert obj["spec"]["selector"]["matchLabels"].items() <= labels.items()
    spec = pod_spec(daemonset)
    assert spec["nodeSelector"]["hyperaccel.ai/lpu.present"] == "true"
    assert {"key": "hyperaccel.ai/lpu", "operator": "Exists", "effect": "NoSchedule"} in spec["tolerations"]
    security = container(daemonset)["securityContext"]
    assert security["allowPrivilegeEscalation"] is False and security["capabilities"]["drop"] == ["ALL"]
    assert security["readOnlyRootFilesystem"] is True


def _parse_args(args: list[str]) -> Any:
    """Parse a container's arguments with the real `nufi-mock` command, without running it."""
    commands = typer.main.get_command(app).commands  # type: ignore[attr-defined]
    return commands[args[0]].make_context(args[0], list(args[1:]))


def _mounted(kind_name: str, path: str) -> dict[str, Any]:
    spec = pod_spec(kind_name)
    [mount] = [m for m in container(kind_name)["volumeMounts"] if path.startswith(m["mountPath"])]
    [volume] = [v for v in spec["volumes"] if v["name"] == mount["name"]]
    return {"mount": mount, "hostPath": volume["hostPath"]["path"]}


def test_device_plugin_serves_in_the_kubelets_directory() -> None:
    ctx = _parse_args(container("DaemonSet/mock-lpu-device-plugin")["args"])
    assert ctx.params["resource_name"] == "hyperaccel.ai/lpu" and ctx.params["devices"] == 4
    plugin_dir = str(ctx.params["plugin_dir"])
    wired = _mounted("DaemonSet/mock-lpu-device-plugin", plugin_dir)
    assert wired["hostPath"] == "/var/lib/kubelet/device-plugins" == wired["mount"]["mountPath"] == plugin_dir
    assert not wired["mount"].get("readOnly", False)


def test_exporter_reads_pod_resources_and_serves_its_port() -> None:
    exporter = container("DaemonSet/mock-lpu-exporter")
    ctx = _parse_args(exporter["args"])
    assert ctx.params["profile"].value == "lpu"
    [socket] = ctx.params["pod_resources_socket"]
    wired = _mounted("DaemonSet/mock-lpu-exporter", socket)
    assert wired["hostPath"] == "/var/lib/kubelet/pod-resources" and wired["mount"]["readOnly"] is True
    [port] = exporter["ports"]
    assert port["name"] == "metrics" and port["containerPort"] == ctx.params["port"] == 9850
    node_env = {e["name"]: e for e in exporter["env"]}["NODE_NAME"]
    assert node_env["valueFrom"]["fieldRef"]["fieldPath"] == "spec.nodeName"
    assert exporter["readinessProbe"]["httpGet"] == {"path": "/healthz", "port": "metrics"}


def test_the_dra_driver_serves_the_kubelets_plugin_directories_off_the_device_plugins_nodes() -> None:
    driver = container("DaemonSet/mock-lpu-dra-driver")
    ctx = _parse_args(driver["args"])
    assert ctx.params["node"] == "$(NODE_NAME)" and ctx.params["devices"] == 4
    for param, host in (
        ("registry_dir", "/var/lib/kubelet/plugins_registry"),
        ("plugins_dir", "/var/lib/kubelet/plugins"),
        ("cdi_dir", "/var/run/cdi"),
    ):
        [mount] = [m for m in driver["volumeMounts"] if m["mountPath"] == str(ctx.params[param])]
        [volume] = [
            v for v in pod_spec("DaemonSet/mock-lpu-dra-driver")["volumes"] if v["name"] == mount["name"]
        ]
        assert volume["hostPath"]["path"] == host == mount["mountPath"] and not mount.get("readOnly", False)
    node_env = {e["name"]: e for e in driver["env"]}["NODE_NAME"]
    assert node_env["valueFrom"]["fieldRef"]["fieldPath"] == "spec.nodeName"
    assert pod_spec("DaemonSet/mock-lpu-dra-driver")["nodeSelector"]["hyperaccel.ai/lpu.dra"] == "true"
    plugin_terms = pod_spec("DaemonSet/mock-lpu-device-plugin")["affinity"]["nodeAffinity"][
        "requiredDuringSchedulingIgnoredDuringExecution"
    ]["nodeSelectorTerms"]
    assert plugin_terms == [
        {"matchExpressions": [{"key": "hyperaccel.ai/lpu.dra", "operator": "NotIn", "values": ["true"]}]}
    ]
    binding = objects()["ClusterRoleBinding/mock-lpu-dra-driver"]
    assert binding["subjects"][0]["name"] == pod_spec("DaemonSet/mock-lpu-dra-driver")["serviceAccountName"]
    rules = {
        r["resources"][0]: set(r["verbs"]) for r in objects()["ClusterRole/mock-lpu-dra-driver"]["rules"]
    }
    assert {"list", "create", "delete"} <= rules["resourceslices"] and "get" in rules["resourceclaims"]


def test_the_device_class_is_the_one_the_driver_serves() -> None:
    assert objects()["DeviceClass/lpu.hyperaccel.ai"] == device_class()


def test_service_reaches_the_exporter_pods() -> None:
    service = objects()["Service/mock-lpu-exporter"]
    pod_labels = objects()["DaemonSet/mock-lpu-exporter"]["spec"]["template"]["metadata"]["labels"]
    assert service["spec"]["selector"].items() <= pod_labels.items()
    [port] = service["spec"]["ports"]
    assert port["name"] == "metrics" and port["targetPort"] == "metrics"


def test_service_monitor_shape() -> None:
    monitor = objects()["ServiceMonitor/mock-lpu-exporter"]
    service = objects()["Service/mock-lpu-exporter"]
    assert monitor["apiVersion"] == "monitoring.coreos.com/v1"
    assert set(monitor) == {"apiVersion", "kind", "metadata", "spec"}
    spec = monitor["spec"]
    assert set(spec) <= {"selector", "namespaceSelector", "endpoints", "jobLabel", "targetLabels"}
    assert spec["selector"]["matchLabels"].items() <= service["metadata"]["labels"].items()
    assert service["metadata"]["namespace"] in spec["namespaceSelector"]["matchNames"]
    [endpoint] = spec["endpoints"]
    assert endpoint["port"] == service["spec"]["ports"][0]["name"]
    assert endpoint["path"] == "/metrics" and re.fullmatch(r"\d+[smh]", endpoint["interval"])
    assert endpoint["honorLabels"] is True
    allowed = {"sourceLabels", "targetLabel", "action", "regex", "replacement", "separator", "modulus"}
    for rule in endpoint["relabelings"]:
        assert set(rule) <= allowed
        assert rule.get("action", "replace") in {"replace", "labeldrop", "keep", "drop", "labelmap"}
        re.compile(rule.get("regex", ".*"))
    dropped = [r for r in endpoint["relabelings"] if r.get("action") == "labeldrop"]
    assert dropped and all(re.fullmatch(dropped[0]["regex"], name) for name in ("pod", "namespace"))


def test_plain_prometheus_config_is_accepted_by_promtool_and_keeps_the_exporter(tmp_path: Path) -> None:
    config = yaml.safe_load((DEPLOY / "prometheus-scrape.yaml").read_text())
    [job] = config["scrape_configs"]
    assert job["honor_labels"] is True
    assert job["kubernetes_sd_configs"] == [{"role": "pod", "namespaces": {"names": ["mock-lpu"]}}]
    # Debian's promtool is built without Kubernetes discovery: it checks the rest with static targets.
    simulated = {**job, "static_configs": [{"targets": ["127.0.0.1:9850"]}]}
    del simulated["kubernetes_sd_configs"]
    checked = tmp_path / "prometheus.yml"
    checked.write_text(yaml.safe_dump({**config, "scrape_configs": [simulated]}))
    promtool = shutil.which("promtool") or "/usr/bin/promtool"
    done = subprocess.run(
        [promtool, "check", "config", "--syntax-only", str(checked)],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    pod_labels = objects()["DaemonSet/mock-lpu-exporter"]["spec"]["template"]["metadata"]["labels"]
    keep = {
        tuple(r["source_labels"]): r["regex"] for r in job["relabel_configs"] if r.get("action") == "keep"
    }
    assert re.fullmatch(
        keep[("__meta_kubernetes_pod_label_app_kubernetes_io_name",)], pod_labels["app.kubernetes.io/name"]
    )
    assert re.fullmatch(keep[("__meta_kubernetes_pod_container_port_name",)], "metrics")


def test_image_is_slim_non_root_and_runs_nufi_mock() -> None:
    lines = [
        line.strip()
        for line in DOCKERFILE.read_text().splitlines()
        if line.strip() and not line.startswith("#")
    ]
    args = dict(re.findall(r"^ARG (\w+)=(\S+)$", "\n".join(lines), re.MULTILINE))
    stages = [line for line in lines if line.startswith("FROM ")]
    assert args["PYTHON_IMAGE"].startswith("python:3.11-slim")
    assert stages[-1].startswith("FROM ${PYTHON_IMAGE}")
    runtime = lines[lines.index(stages[-1]) :]
    [user] = [line for line in runtime if line.startswith("USER ")]
    uid = user.split()[1].split(":")[0]
    assert uid.isdigit() and int(uid) != 0
    assert 'ENTRYPOINT ["nufi-mock"]' in runtime
