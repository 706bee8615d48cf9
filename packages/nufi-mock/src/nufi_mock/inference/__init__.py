"""`nufi-mock inference`: a small OpenAI-compatible model server that says who served each answer.

It plays the inference workload of a pod holding mock LPUs: its answers name the pod, the node and the
devices (from the environment the kubelet gives the container), and its request rate is reported to
the node's mock exporter as the load of exactly those devices, so traffic heats them.
"""

from __future__ import annotations

from .app import create_app
from .config import InferenceConfig, ServedBy

__all__ = ["InferenceConfig", "ServedBy", "create_app"]
