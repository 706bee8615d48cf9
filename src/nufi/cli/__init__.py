"""The `nufi` command: `serve` and `db` run the server here; the other groups are the operator's
command line against a NuFi server's REST API (docs/cli.md)."""

from __future__ import annotations

from nufi.cli import account, deployments, devices, labs, monitor, projects, thermal
from nufi.cli.server import _Faces, app, build_server, reload_app_factory

app.command("login", help="cli.help.login")(account.login)
app.command("logout", help="cli.help.logout")(account.logout)
app.command("whoami", help="cli.help.whoami")(account.whoami)
app.command("monitor", help="cli.help.monitor")(monitor.monitor)
app.add_typer(devices.app)
app.add_typer(projects.app)
app.add_typer(deployments.app)
app.add_typer(labs.app)
app.add_typer(thermal.app)

__all__ = ["_Faces", "app", "build_server", "reload_app_factory"]
