"""Mock LPU: a kubelet device plugin and a Prometheus exporter for hyperaccel.ai/lpu."""
