"""NuFi: run AI workloads on any accelerator in Kubernetes."""

__version__ = "0.1.0"
