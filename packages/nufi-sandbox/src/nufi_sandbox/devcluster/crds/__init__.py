"""CustomResourceDefinitions that turn on parts of the dev cluster (the Kubeflow notebook controller)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

HERE = Path(__file__).parent
NOTEBOOKS_CRD_FILE = HERE / "kubeflow-notebooks.yaml"
NOTEBOOKS_CRD_NAME = "notebooks.kubeflow.org"


def notebooks_crd() -> dict[str, Any]:
    """The Notebook CRD manifest as an object, ready to POST to apiextensions.k8s.io/v1."""
    loaded: dict[str, Any] = yaml.safe_load(NOTEBOOKS_CRD_FILE.read_text())
    return loaded
