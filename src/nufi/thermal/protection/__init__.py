"""Thermal protection: the decision per device, node and pod, and the controller that applies it."""
