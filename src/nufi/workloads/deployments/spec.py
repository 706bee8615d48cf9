"""What a caller asks for when deploying an inference server, checked at the edge, and the Deployment
and Service it becomes."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator
from pydantic_core import PydanticCustomError

from nufi.cluster.resources import BYTES, CPU, check_quantity
from nufi.errors import ValidationFailed
from nufi.workloads.accelerators import AcceleratorRequest, Placement
from nufi.workloads.labels import (
    TRAFFIC,
    TRAFFIC_ON,
    serving_selector,
    workload_labels,
    workload_selector,
)
from nufi.workloads.names import check_env_name, check_name

MAX_REPLICAS = 32
DEFAULT_PORT = 8000
DEFAULT_READINESS_PATH = "/health"
READINESS_PERIOD_SECONDS = 2
PORT_NAME = "http"
_MAX_ITEMS = 64
_MAX_TEXT = 4096


class _Strict(BaseModel):
    # strict: a count is a JSON number and a switch a JSON boolean, never `true` for 1 or "2" for 2.
    model_config = ConfigDict(extra="forbid", strict=True)


class EnvVar(_Strict):
    name: str = Field(description="a C identifier, e.g. MODEL_NAME")
    value: str = Field("", max_length=32768)

    @field_validator("name")
    @classmethod
    def _env_name(cls, value: str) -> str:
        return _as_custom_error(check_env_name, value, "name")


class ComputeResources(_Strict):
    """CPU and memory of the container, as Kubernetes quantities; limits equal requests."""

    cpu: str | None = Field(None, description='CPU, e.g. "500m" or "2"', examples=["500m"])
    memory: str | None = Field(None, description='memory, e.g. "2Gi"', examples=["2Gi"])

    @field_validator("cpu", "memory")
    @classmethod
    def _quantity(cls, value: str | None, info: ValidationInfo) -> str | None:
        if value is None:
            return None
        check_quantity(value, CPU if info.field_name == "cpu" else BYTES)
        return value


class ReplicasPatch(_Strict):
    replicas: int = Field(ge=0, le=MAX_REPLICAS)


class DeploymentCreate(_Strict):
    name: str = Field(description="a DNS-1123 label: the Deployment's and the Service's name")
    image: str = Field(min_length=1, max_length=512, description="the container image")
    accelerator: AcceleratorRequest
    replicas: int = Field(1, ge=0, le=MAX_REPLICAS)
    port: int = Field(DEFAULT_PORT, ge=1, le=65535, description="the port the server listens on")
    command: list[str] | None = Field(None, max_length=_MAX_ITEMS)
    args: list[str] | None = Field(None, max_length=_MAX_ITEMS)
    env: list[EnvVar] = Field(default_factory=list, max_length=_MAX_ITEMS)
    resources: ComputeResources | None = None
    readiness_path: str | None = Field(
        DEFAULT_READINESS_PATH,
        max_length=1024,
        description="HTTP path the readiness probe asks (every 2 s); null for no probe",
    )

    @field_validator("name")
    @classmethod
    def _name(cls, value: str) -> str:
        return _as_custom_error(check_name, value, "name")

    @field_validator("image")
    @classmethod
    def _image(cls, value: str) -> str:
        if any(ch.isspace() or not ch.isprintable() for ch in value):
            raise PydanticCustomError(
                "deployment.image_invalid",
                "an image reference has no spaces or control characters (e.g. 'vllm/vllm:0.6')",
            )
        return value

    @field_validator("command", "args")
    @classmethod
    def _strings(cls, value: list[str] | None) -> list[str] | None:
        for item in value or []:
            if len(item) > _MAX_TEXT:
                raise PydanticCustomError(
                    "deployment.item_too_long",
                    "each item may be at most {most} characters long",
                    {"most": _MAX_TEXT},
                )
        return value

    @field_validator("readiness_path")
    @classmethod
    def _path(cls, value: str | None) -> str | None:
        if value is None:
            return None
        if not value.startswith("/") or any(ch.isspace() or not ch.isprintable() for ch in value):
            raise PydanticCustomError(
                "deployment.readiness_path_invalid",
                "a readiness path starts with '/' and has no spaces (e.g. '/health')",
            )
        return value

    @field_validator("env")
    @classmethod
    def _unique_env(cls, value: list[EnvVar]) -> list[EnvVar]:
        seen: set[str] = set()
        for var in value:
            if var.name in seen:
                raise PydanticCustomError(
                    "deployment.env_duplicate",
                    f"env names must be unique: {var.name!r} is given twice",
                    {"name": var.name},
                )
            seen.add(var.name)
        return value


def deployment_manifest(project: str, request: DeploymentCreate, placement: Placement) -> dict[str, Any]:
    labels = workload_labels(project, request.name, "deployment", placement.device_type)
    amounts: dict[str, str] = {placement.resource_key: str(placement.count)}
    if request.resources is not None:
        if request.resources.cpu is not None:
            amounts["cpu"] = request.resources.cpu
        if request.resources.memory is not None:
            amounts["memory"] = request.resources.memory
    container: dict[str, Any] = {
        "name": request.name,
        "image": request.image,
        "ports": [{"name": PORT_NAME, "containerPort": request.port, "protocol": "TCP"}],
        # Devices cannot be overcommitted, and equal CPU and memory requests keep the pod's class
        # predictable: requests equal limits.
        "resources": {"limits": dict(amounts), "requests": dict(amounts)},
    }
    if request.command is not None:
        container["command"] = list(request.command)
    if request.args is not None:
        container["args"] = list(request.args)
    if request.env:
        container["env"] = [{"name": var.name, "value": var.value} for var in request.env]
    if request.readiness_path is not None:
        container["readinessProbe"] = {
            "httpGet": {"path": request.readiness_path, "port": request.port},
            "periodSeconds": READINESS_PERIOD_SECONDS,
        }
    pod_spec: dict[str, Any] = {"containers": [container]}
    if placement.node_selector:
        pod_spec["nodeSelector"] = dict(placement.node_selector)
    if placement.tolerations:
        pod_spec["tolerations"] = [dict(t) for t in placement.tolerations]
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": request.name, "namespace": project, "labels": labels},
        "spec": {
            "replicas": request.replicas,
            "selector": {"matchLabels": workload_selector(request.name, "deployment")},
            "template": {"metadata": {"labels": {**labels, TRAFFIC: TRAFFIC_ON}}, "spec": pod_spec},
        },
    }


def service_manifest(project: str, request: DeploymentCreate, placement: Placement) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {
            "name": request.name,
            "namespace": project,
            "labels": workload_labels(project, request.name, "deployment", placement.device_type),
        },
        "spec": {
            "type": "ClusterIP",
            "selector": serving_selector(request.name),
            "ports": [
                {"name": PORT_NAME, "port": request.port, "targetPort": request.port, "protocol": "TCP"}
            ],
        },
    }


def _as_custom_error(check: Any, value: str, field: str) -> str:
    # Inside a pydantic model the field's place is pydantic's to name: hand it the check's code, so
    # the API and the dashboard word it from the catalog like any other validation error.
    try:
        result: str = check(value, field=field)
    except ValidationFailed as exc:
        raise PydanticCustomError(exc.code, exc.detail, dict(exc.params)) from None
    return result
