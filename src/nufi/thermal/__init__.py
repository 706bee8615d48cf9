"""Temperature-based traffic control: policies, the hysteresis, the controller that cuts and restores
serving pods' traffic, and its status and history.

The decision and the controller that applies it are in `protection/`, what it did in `history/`; the
policies and the service sit at the root. Import from the modules themselves.
"""
