"""Background work: the one list of jobs (`jobs`), the runner every loop uses (`periodic`), and the
board that starts them and reports each one on /readyz and /metrics (`board`)."""
