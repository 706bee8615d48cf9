"""What the benchmarks share: the GPU world, the sandbox, the browser, /proc readings, timing and
the printed figures' format."""
