"""The `nufi-mock` command: the mock LPU's device plugin, DRA driver and exporter, and an inference server."""

from __future__ import annotations

import typer

from nufi_mock.deviceplugin.cli import device_plugin, set_health
from nufi_mock.dra.cli import dra_driver
from nufi_mock.exporter.cli import exporter
from nufi_mock.inference.cli import inference

app = typer.Typer(
    name="nufi-mock",
    help="Mock LPU (hyperaccel.ai/lpu): a real kubelet device plugin, a DRA driver (lpu.hyperaccel.ai) "
    "and a real Prometheus exporter.",
    no_args_is_help=True,
    add_completion=False,
    # Plain click help: paragraphs re-flow to the terminal width.
    rich_markup_mode=None,
)
app.command("device-plugin")(device_plugin)
app.command("dra-driver")(dra_driver)
app.command("set-health")(set_health)
app.command("exporter")(exporter)
app.command("inference")(inference)
