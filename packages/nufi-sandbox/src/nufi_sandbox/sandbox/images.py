"""The container images the sandbox runs as local processes, in one place.

Each is the real upstream name, so a manifest written against the sandbox also runs on a real cluster:

- ``nufi-mock:0.1.0`` is the mock LPU's own image (deploy/mock-lpu, deploy/docker/mock.Dockerfile),
  whose entrypoint is ``nufi-mock``. The sandbox maps it to the same command, so the container's args
  pick the subcommand: an inference workload says ``args: ["inference", "--model", "..."]``, listens
  on $PORT (the dev cluster's, 8000 on a real cluster) and heats the LPUs it holds.
- ``quay.io/jupyter/base-notebook:latest`` runs a real JupyterLab (``nufi_sandbox.runtime jupyter``).
- ``codercom/code-server:latest`` runs the real code-server `make setup` installs
  (``nufi_sandbox.runtime vscode``).

JupyterLab is served under ``$NB_PREFIX`` like Kubeflow's notebook images, code-server at ``/`` behind
a proxy that takes the lab's path off, as on a real cluster. An image is mapped by
its exact reference: ``nufi-mock:0.1.0`` only, not ``nufi-mock`` or another tag.
"""

from __future__ import annotations

from types import MappingProxyType

INFERENCE = "nufi-mock:0.1.0"
# What an inference workload of that image says to run.
INFERENCE_ARGS = ("inference",)
JUPYTER = "quay.io/jupyter/base-notebook:latest"
VSCODE = "codercom/code-server:latest"

IMAGES = MappingProxyType({"inference": INFERENCE, "jupyter": JUPYTER, "vscode": VSCODE})
"""What each image is for, as ``sandbox.json`` lists them."""
