"""Labs: Jupyter and VS Code servers a project's members open through NuFi's lab proxy."""

from nufi.workloads.labs.model import Lab, LabKind, LabRequest, LabRoute
from nufi.workloads.labs.service import LabService, LabSettings

__all__ = ["Lab", "LabKind", "LabRequest", "LabRoute", "LabService", "LabSettings"]
