"""What a lab is: its request, the two kinds NuFi runs, and the view a caller gets back."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from nufi.messages import Message
from nufi.workloads.accelerators import AcceleratorRequest
from nufi.workloads.labs.activity import Activity

LabKind = Literal["jupyter", "vscode"]
Backend = Literal["notebook", "statefulset"]
LabStatus = Literal["Ready", "Starting", "Stopped", "Pending", "Error"]

MAX_STORAGE_GIB = 4096
# A lab names a StatefulSet whose pods are `<name>-0` and whose revisions are labelled
# `<name>-<10-character hash>`; label values stop at 63 characters, so names stop at 52.
MAX_LAB_NAME_LENGTH = 52
# code-server's switches besides where it listens: no sign-in of its own (the lab proxy is the door),
# and nothing that calls out of a lab, which may have no way out: telemetry, the update check, the
# workspace-trust prompt (everything in a lab's home is its owner's) and the getting-started page.
CODE_SERVER_SWITCHES = (
    "--auth",
    "none",
    "--disable-telemetry",
    "--disable-update-check",
    "--disable-workspace-trust",
    "--disable-getting-started-override",
)
# VS Code takes its extension gallery from this variable, not an option; one without a service URL is
# no gallery at all, where a lab could not reach Open VSX anyway.
NO_GALLERY = ("EXTENSIONS_GALLERY", '{"serviceUrl": ""}')


class LabRequest(BaseModel):
    """POST /api/v1/projects/{project}/labs."""

    model_config = ConfigDict(extra="forbid", strict=True)

    name: str = Field(description="a DNS-1123 label starting with a letter, at most 52 characters")
    kind: LabKind = Field(description="jupyter (JupyterLab) or vscode (code-server)")
    image: str | None = Field(
        default=None,
        min_length=1,
        max_length=512,
        pattern=r"^\S+$",
        description="the container image; unset, NUFI_LAB_JUPYTER_IMAGE or NUFI_LAB_VSCODE_IMAGE",
    )
    accelerator: AcceleratorRequest
    storage_gib: int = Field(default=10, ge=1, le=MAX_STORAGE_GIB, description="the home volume's size")


@dataclass(frozen=True)
class KindProfile:
    """How a kind of lab is run: the port it serves, where its home is, how its health is read."""

    kind: LabKind
    port: int
    home: str
    fs_group: int
    # Jupyter serves under the lab's path prefix itself (base_url); code-server serves at `/`, and
    # the proxy takes the prefix off before passing a request on (Kubeflow's http-rewrite-uri does
    # the same for it).
    serves_prefix: bool
    health_path: str  # under the prefix when serves_prefix, else from `/`
    env: tuple[tuple[str, str], ...] = ()  # the container's environment, besides NB_PREFIX

    def args(self, origin: str | None = None) -> list[str]:
        """The container's args; `origin` is the lab's own (nufi.workloads.labs.origin), if it has one."""
        if self.kind == "jupyter":
            # The docker-stacks start script passes these to Jupyter Server. NuFi's proxy lets only
            # the project's members and admins through, so Jupyter's own token is off.
            args = [
                "start-notebook.py",
                "--ServerApp.base_url=$(NB_PREFIX)",
                "--ServerApp.token=",
                "--ServerApp.password=",
                f"--ServerApp.port={self.port}",
                "--ServerApp.ip=0.0.0.0",
            ]
            if origin:
                # Jupyter takes a WebSocket (or a cross-origin API call) from the origin its Host
                # names, and behind the proxy Host names the Service: it is told the lab's own origin,
                # and refuses every other. Without one, no browser reaches the lab (only bearer
                # callers, who send no Origin) and Jupyter's same-origin default refuses any Origin.
                args.append(f"--ServerApp.allow_origin={origin}")
            return args
        return ["--bind-addr", f"0.0.0.0:{self.port}", *CODE_SERVER_SWITCHES, self.home]


PROFILES: dict[LabKind, KindProfile] = {
    "jupyter": KindProfile(
        "jupyter", port=8888, home="/home/jovyan", fs_group=100, serves_prefix=True, health_path="api"
    ),
    "vscode": KindProfile(
        "vscode",
        port=8080,
        home="/home/coder",
        fs_group=1000,
        serves_prefix=False,
        health_path="healthz",
        env=(NO_GALLERY,),
    ),
}
# The Service in front of a lab listens where the Notebook controller's does.
SERVICE_PORT = 80


@dataclass(frozen=True)
class LabAccelerator:
    device_type: str
    resource_key: str
    count: int


@dataclass(frozen=True)
class Lab:
    project: str
    name: str
    kind: LabKind
    image: str
    backend: Backend
    accelerator: LabAccelerator
    storage_gib: int
    status: LabStatus
    url: str
    # Where the lab's pages are served: on its own origin, None when no lab base domain is set.
    origin_url: str | None = None
    # Why it waits or what broke, as a message of the catalogs (Kubernetes' words in its params).
    reason: Message | None = None
    created_at: str | None = None
    # When it was last used, as its server says (`labs/activity.py`); None for a lab not Ready, and
    # where its activity was not asked for.
    activity: Activity | None = None


@dataclass(frozen=True)
class LabRoute:
    """Where the proxy sends a lab's traffic: a Service port, the path the lab is opened at, and
    whether the lab itself serves under that path (else the proxy takes it off)."""

    namespace: str
    service: str
    port: int
    prefix: str  # "/labs/<project>/<name>/" or "/notebook/<namespace>/<name>/"
    serves_prefix: bool
    backend: Backend


def statefulset_prefix(project: str, name: str) -> str:
    return f"/labs/{project}/{name}/"


def notebook_prefix(namespace: str, name: str) -> str:
    """The path the Kubeflow Notebook controller gives a notebook (its NB_PREFIX), with the slash."""
    return f"/notebook/{namespace}/{name}/"
