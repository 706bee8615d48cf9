"""The NuFi API as typed calls: each resource's requests, and the view its answer is parsed into."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, Generic, TypeVar

import httpx

from nufi.cli.client import Api, server_of
from nufi.models.answers import (
    Deployment,
    DeviceTypeRow,
    Lab,
    Listing,
    Me,
    MetricsVerdict,
    Project,
    ResourceKeyVerdict,
    Snapshot,
    ThermalStatus,
    Workload,
)
from nufi.packs.diff import ApplyOutcome

W = TypeVar("W", bound=Workload)
_V1 = "/api/v1"


class DevicesClient:
    def __init__(self, api: Api) -> None:
        self._api = api

    def list(self, enabled: bool | None = None) -> Listing[DeviceTypeRow]:
        params = {} if enabled is None else {"enabled": str(enabled).lower()}
        return self._api.read(Listing[DeviceTypeRow], "GET", f"{_V1}/devices", params=params)

    def get(self, device_id: str) -> DeviceTypeRow:
        return self._api.read(DeviceTypeRow, "GET", f"{_V1}/devices/{device_id}")

    def delete(self, device_id: str, revision: int | None = None) -> None:
        params = {} if revision is None else {"revision": revision}
        self._api.request("DELETE", f"{_V1}/admin/devices/{device_id}", params=params)

    def check_resource_key(self, device: DeviceTypeRow) -> ResourceKeyVerdict:
        body = {"resource_key": device.resource_key, "editing": device.id}
        path = f"{_V1}/admin/devices/check-resource-key"
        return self._api.read(ResourceKeyVerdict, "POST", path, json=body)

    def check_metrics(self, device: DeviceTypeRow) -> MetricsVerdict:
        body = {"labels": device.labels, "metrics": device.metrics, "fetcher": device.fetcher}
        return self._api.read(MetricsVerdict, "POST", f"{_V1}/admin/devices/check-metrics", json=body)

    def pack(self, device_id: str) -> dict[str, Any]:
        """The type's pack document, as the server wrote it (the pack format's own reader judges it)."""
        document: dict[str, Any] = self._api.json("GET", f"{_V1}/admin/devices/{device_id}/pack")
        return document


class PacksClient:
    def __init__(self, api: Api) -> None:
        self._api = api

    def apply(
        self, documents: list[dict[str, Any]], *, dry_run: bool, force: bool, prune: bool
    ) -> ApplyOutcome:
        body = {"documents": documents, "dry_run": dry_run, "force": force, "prune": prune}
        return self._api.read(ApplyOutcome, "POST", f"{_V1}/admin/device-packs/apply", json=body)


class ProjectsClient:
    def __init__(self, api: Api) -> None:
        self._api = api

    def list(self) -> Listing[Project]:
        return self._api.read(Listing[Project], "GET", f"{_V1}/projects")

    def get(self, name: str) -> Project:
        return self._api.read(Project, "GET", f"{_V1}/projects/{name}")


class WorkloadsClient(Generic[W]):
    """One kind of workload in a project (`deployments`, `labs`): the same calls for each."""

    def __init__(self, api: Api, segment: str, model: type[W]) -> None:
        self._api = api
        self._segment = segment
        self._model = model

    def path(self, project: str, name: str = "") -> str:
        return f"{_V1}/projects/{project}/{self._segment}" + (f"/{name}" if name else "")

    def list(self, project: str) -> Listing[W]:
        return self._api.read(Listing[self._model], "GET", self.path(project))  # type: ignore[name-defined]

    def get(self, project: str, name: str) -> W:
        return self._api.read(self._model, "GET", self.path(project, name))

    def create(self, project: str, body: dict[str, Any]) -> W:
        return self._api.read(self._model, "POST", self.path(project), json=body)

    def change(self, project: str, name: str, body: dict[str, Any]) -> W:
        return self._api.read(self._model, "PATCH", self.path(project, name), json=body)

    def act(self, project: str, name: str, action: str) -> None:
        self._api.request("POST", f"{self.path(project, name)}/{action}")

    def delete(self, project: str, name: str) -> None:
        self._api.request("DELETE", self.path(project, name))


class ThermalClient:
    def __init__(self, api: Api) -> None:
        self._api = api

    def status(self) -> ThermalStatus:
        return self._api.read(ThermalStatus, "GET", f"{_V1}/thermal/status")


class MonitoringClient:
    def __init__(self, api: Api) -> None:
        self._api = api

    def snapshot(self, device_type: str, params: dict[str, Any]) -> Snapshot:
        return self._api.read(Snapshot, "GET", f"{_V1}/monitoring/{device_type}", params=params)

    @contextmanager
    def stream(self, device_type: str, params: dict[str, Any]) -> Iterator[httpx.Response]:
        with self._api.stream(f"{_V1}/monitoring/{device_type}/stream", params=params) as response:
            yield response


class NufiClient:
    """The API at a server, as the caller (see `Api`), one attribute per resource."""

    def __init__(self, api: Api) -> None:
        self.api = api
        self.devices = DevicesClient(api)
        self.packs = PacksClient(api)
        self.projects = ProjectsClient(api)
        self.deployments = WorkloadsClient(api, "deployments", Deployment)
        self.labs = WorkloadsClient(api, "labs", Lab)
        self.thermal = ThermalClient(api)
        self.monitoring = MonitoringClient(api)

    @property
    def server(self) -> str:
        return self.api.server

    def me(self) -> Me:
        """Who the server sees behind this client's token."""
        return self.api.read(Me, "GET", f"{_V1}/me")


@contextmanager
def connect(server: str | None, token: str | None) -> Iterator[NufiClient]:
    """The client of a command's --server and --token, closed when the command is done."""
    with Api(server_of(server), token) as api:
        yield NufiClient(api)
