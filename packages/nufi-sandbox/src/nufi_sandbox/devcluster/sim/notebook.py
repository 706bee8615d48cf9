"""The Kubeflow notebook-controller, while the CRD notebooks.kubeflow.org exists.

For each `kubeflow.org/v1` Notebook it keeps a StatefulSet `<name>` (one replica, none while the
`kubeflow-resource-stopped` annotation is set) running `spec.template.spec` with `NB_PREFIX` on the
first container, a Service `<name>` (port 80 `http-<name>` → the notebook port) and the Notebook's
status mirrored from its pod. Both objects are owned by the Notebook, so deleting it removes them.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable
from typing import Any

from nufi_sandbox.devcluster import errors
from nufi_sandbox.devcluster.sim.controller import Controller, ObjectKey
from nufi_sandbox.devcluster.sim.events import EventRecorder
from nufi_sandbox.devcluster.sim.meta import (
    Obj,
    controlled_by,
    is_deleting,
    labels_of,
    name_of,
    namespace_of,
    owner_key,
    uid_of,
)
from nufi_sandbox.devcluster.storage.store import Store, WatchEvent

COMPONENT = "notebook-controller"
GROUP, VERSION, PLURAL, KIND = "kubeflow.org", "v1", "notebooks", "Notebook"
STOP_ANNOTATION = "kubeflow-resource-stopped"
NOTEBOOK_NAME_LABEL = "notebook-name"
DEFAULT_PORT = 8888
DEFAULT_PORT_NAME = "notebook-port"
DEFAULT_WORKING_DIR = "/home/jovyan"
_CONDITION_FIELDS = ("type", "status", "lastProbeTime", "lastTransitionTime", "reason", "message")


def _owner(notebook: Obj) -> Obj:
    return {
        "apiVersion": f"{GROUP}/{VERSION}",
        "kind": KIND,
        "name": name_of(notebook),
        "uid": uid_of(notebook),
        "controller": True,
        "blockOwnerDeletion": True,
    }


def notebook_port(pod_spec: Obj) -> int:
    containers = pod_spec.get("containers") or [{}]
    ports = containers[0].get("ports") or []
    return int(ports[0]["containerPort"]) if ports else DEFAULT_PORT


def pod_template(notebook: Obj) -> Obj:
    """The StatefulSet's pod template, as the notebook-controller generates it."""
    name, namespace = name_of(notebook), namespace_of(notebook)
    spec = copy.deepcopy(notebook.get("spec", {}).get("template", {}).get("spec") or {})
    labels = {**labels_of(notebook), "statefulset": name, NOTEBOOK_NAME_LABEL: name}
    annotations = {
        key: value
        for key, value in (notebook["metadata"].get("annotations") or {}).items()
        if "kubectl" not in key and "notebook" not in key
    }
    containers = spec.setdefault("containers", [])
    if containers:
        first = containers[0]
        first.setdefault("workingDir", DEFAULT_WORKING_DIR)
        if not first.get("ports"):
            first["ports"] = [{"containerPort": DEFAULT_PORT, "name": DEFAULT_PORT_NAME, "protocol": "TCP"}]
        env = [e for e in first.get("env") or [] if e.get("name") != "NB_PREFIX"]
        env.append({"name": "NB_PREFIX", "value": f"/notebook/{namespace}/{name}"})
        first["env"] = env
    if not any(
        e.get("name") == "ADD_FSGROUP" and e.get("value") == "false"
        for c in containers
        for e in c.get("env") or []
    ):
        spec.setdefault("securityContext", {}).setdefault("fsGroup", 100)
    metadata: Obj = {"labels": labels}
    if annotations:
        metadata["annotations"] = annotations
    return {"metadata": metadata, "spec": spec}


class NotebookController(Controller[ObjectKey]):
    name = COMPONENT
    resync_seconds = 5.0

    def __init__(self, store: Store, events: EventRecorder) -> None:
        super().__init__(store)
        self._events = events
        self._statefulsets = store.rt("apps", "v1", "statefulsets")
        self._services = store.rt("", "v1", "services")
        self._pods = store.rt("", "v1", "pods")

    def keys_for(self, event: WatchEvent) -> Iterable[ObjectKey]:
        if event.rt_key == (GROUP, PLURAL):
            yield (event.namespace, name_of(event.object))
        elif event.rt_key in (("apps", "statefulsets"), ("", "services")):
            for obj in (event.object, event.old):
                key = owner_key(obj, KIND)
                if key is not None:
                    yield key
        elif event.rt_key == ("", "pods"):
            for obj in (event.object, event.old):
                notebook = labels_of(obj or {"metadata": {}}).get(NOTEBOOK_NAME_LABEL)
                if notebook:
                    yield (event.namespace, notebook)

    def all_keys(self) -> Iterable[ObjectKey]:
        for notebook in self.store.all_of(GROUP, PLURAL):
            yield (namespace_of(notebook), name_of(notebook))

    async def reconcile(self, key: ObjectKey) -> None:
        rt = self.store.registry.lookup(GROUP, VERSION, PLURAL)
        if rt is None:
            return  # no CRD, no controller: a cluster without Kubeflow
        namespace, name = key
        notebook = self.store.find(rt, namespace, name)
        if notebook is None or is_deleting(notebook):
            return
        sts = self._ensure_statefulset(notebook)
        self._ensure_service(notebook)
        self._write_status(rt, notebook, sts)

    def _ensure_statefulset(self, notebook: Obj) -> Obj:
        namespace, name = namespace_of(notebook), name_of(notebook)
        stopped = STOP_ANNOTATION in (notebook["metadata"].get("annotations") or {})
        replicas = 0 if stopped else 1
        template = pod_template(notebook)
        existing = self.store.find(self._statefulsets, namespace, name)
        if existing is None:
            body = {
                "metadata": {"name": name, "namespace": namespace, "ownerReferences": [_owner(notebook)]},
                "spec": {
                    "replicas": replicas,
                    "selector": {"matchLabels": {"statefulset": name}},
                    "serviceName": "",
                    "template": template,
                },
            }
            created = self.store.create(self._statefulsets, namespace, body)
            self._events.record(
                notebook, "Normal", "CreatedStatefulSet", f"Created StatefulSet {name}", component=COMPONENT
            )
            return created
        if not controlled_by(existing, uid_of(notebook)):
            return existing
        spec = existing.get("spec", {})
        if spec.get("replicas") == replicas and spec.get("template") == template:
            return existing

        def update(obj: Obj) -> None:
            obj["spec"]["replicas"] = replicas
            obj["spec"]["template"] = template

        return self.store.mutate(self._statefulsets, namespace, name, update)

    def _ensure_service(self, notebook: Obj) -> None:
        namespace, name = namespace_of(notebook), name_of(notebook)
        if self.store.find(self._services, namespace, name) is not None:
            return
        port = notebook_port(notebook.get("spec", {}).get("template", {}).get("spec") or {})
        body = {
            "metadata": {"name": name, "namespace": namespace, "ownerReferences": [_owner(notebook)]},
            "spec": {
                "type": "ClusterIP",
                "selector": {"statefulset": name},
                "ports": [{"name": f"http-{name}", "port": 80, "targetPort": port, "protocol": "TCP"}],
            },
        }
        try:
            self.store.create(self._services, namespace, body)
        except errors.ApiError as exc:
            if exc.reason != "AlreadyExists":
                raise

    def _write_status(self, rt: Any, notebook: Obj, sts: Obj) -> None:
        name = name_of(notebook)
        pod = self.store.find(self._pods, namespace_of(notebook), f"{name}-0")
        status: Obj = {
            "readyReplicas": int(sts.get("status", {}).get("readyReplicas") or 0),
            "conditions": [],
            "containerState": {},
        }
        if pod is not None and controlled_by(pod, uid_of(sts)):
            pod_status = pod.get("status", {})
            status["conditions"] = [
                {field: c[field] for field in _CONDITION_FIELDS if c.get(field) is not None}
                for c in pod_status.get("conditions") or []
            ]
            for container in pod_status.get("containerStatuses") or []:
                if container.get("name") == name:
                    status["containerState"] = copy.deepcopy(container.get("state") or {})
        if notebook.get("status") == status:
            return

        def write(obj: Obj) -> None:
            obj["status"] = status

        self.store.mutate(rt, namespace_of(notebook), name, write, subresource="status")
