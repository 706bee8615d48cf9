"""`nufi-mock inference`."""

from __future__ import annotations

import os
from typing import Annotated

import typer

from nufi_mock.deviceplugin.allocation import VISIBLE_DEVICES_ENV
from nufi_mock.logs import LogFormat, configure_logging

from .config import DEFAULT_MODEL, InferenceConfig, ServedBy

_GRACEFUL_SHUTDOWN_SECONDS = 2


def inference(
    model: Annotated[str, typer.Option(help="The one model served (GET /v1/models).")] = DEFAULT_MODEL,
    host: Annotated[
        str, typer.Option(envvar="NUFI_MOCK_INFERENCE_HOST", help="Address to listen on.")
    ] = "0.0.0.0",
    port: Annotated[
        int, typer.Option(envvar="PORT", min=1, max=65535, help="Port to listen on ($PORT when set).")
    ] = 8000,
    warmup_seconds: Annotated[
        float,
        typer.Option(min=0, help="Seconds of 'loading the model': /health and /v1/* answer 503 until then."),
    ] = 0.0,
    tokens_per_second: Annotated[
        float,
        typer.Option(min=0, help="Simulated generation speed; answers take tokens / speed. 0: at once."),
    ] = 0.0,
    devices_env: Annotated[
        str, typer.Option(help="Environment variable listing the devices held (comma-separated).")
    ] = VISIBLE_DEVICES_ENV,
    exporter_url: Annotated[
        str | None,
        typer.Option(
            envvar="NUFI_MOCK_EXPORTER_URL",
            help="The node's mock exporter (http://host:port), told this server's load. Unset: not told.",
        ),
    ] = None,
    saturation_rps: Annotated[
        float, typer.Option(min=0.001, help="Requests per second at which the devices are 100 % busy.")
    ] = 2.0,
    load_window: Annotated[
        float, typer.Option(min=0.1, help="Seconds over which the request rate is measured.")
    ] = 10.0,
    report_interval: Annotated[
        float, typer.Option(min=0.05, help="Seconds between load reports to the exporter.")
    ] = 1.0,
    log_format: Annotated[LogFormat, typer.Option(help="console or json (one object per line).")] = "console",
) -> None:
    """Serve a mock OpenAI-compatible model that says who served each answer and heats its devices.

    Every answer names the pod ($POD_NAME, else $HOSTNAME), the node ($NODE_NAME) and the devices
    (--devices-env, $LPU_VISIBLE_DEVICES by default): in the text, in a "nufi" field and in
    X-Served-By-Pod / -Node / -Devices headers. The recent request rate is reported to the node's
    exporter (POST /control/load) as the utilisation of exactly those devices. Endpoints:
    GET /v1/models, POST /v1/completions, POST /v1/chat/completions ("stream": true for server-sent
    events), GET /health.

    \b
      curl localhost:8000/v1/chat/completions -H 'Content-Type: application/json' \\
           -d '{"model": "mock-lpu-llm", "messages": [{"role": "user", "content": "hello"}]}'
    """
    configure_logging(log_format)
    # Imported here so that --help stays quick.
    import uvicorn

    from .app import create_app

    config = InferenceConfig(
        served_by=ServedBy.from_env(os.environ, devices_env),
        model=model,
        warmup_seconds=warmup_seconds,
        tokens_per_second=tokens_per_second,
        exporter_url=exporter_url or None,
        saturation_rps=saturation_rps,
        load_window_seconds=load_window,
        report_interval_seconds=report_interval,
    )
    server = uvicorn.Server(
        uvicorn.Config(
            create_app(config),
            host=host,
            port=port,
            log_config=None,
            access_log=False,
            server_header=False,
            lifespan="on",
            timeout_graceful_shutdown=_GRACEFUL_SHUTDOWN_SECONDS,
        )
    )
    server.run()
