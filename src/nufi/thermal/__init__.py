"""Temperature-based traffic control: policies, the hysteresis, the controller that cuts and restores
serving pods' traffic, and its status and history."""
