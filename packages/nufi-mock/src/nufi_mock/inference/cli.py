"""`nufi-mock inference`."""

from __future__ import annotations

import os
from typing import Annotated

import typer

from nufi_mock.deviceplugin.allocation import VISIBLE_DEVICES_ENV
from nufi_mock.logs import LogFormat, configure_logging

from .config import DEFAULT_MODEL, InferenceConfig, ServedBy

_GRACEFUL_SHUTDOWN_SECONDS = 2

# The command's options, one type each, so its signature reads as the list of its flags.
_Model = Annotated[str, typer.Option(help="The one model served (GET /v1/models).")]
_Host = Annotated[str, typer.Option(envvar="NUFI_MOCK_INFERENCE_HOST", help="Address to listen on.")]
_Port = Annotated[
    int, typer.Option(envvar="PORT", min=1, max=65535, help="Port to listen on ($PORT when set).")
]
_Warmup = Annotated[
    float,
    typer.Option(min=0, help="Seconds of 'loading the model': /health and /v1/* answer 503 until then."),
]
_TokensPerSecond = Annotated[
    float,
    typer.Option(min=0, help="Simulated generation speed; answers take tokens / speed. 0: at once."),
]
_DevicesEnv = Annotated[
    str, typer.Option(help="Environment variable listing the devices held (comma-separated).")
]
_ExporterUrl = Annotated[
    str | None,
    typer.Option(
        envvar="NUFI_MOCK_EXPORTER_URL",
        help="The node's mock exporter (http://host:port), told this server's load. Unset: not told.",
    ),
]
_SaturationRps = Annotated[
    float, typer.Option(min=0.001, help="Requests per second at which the devices are 100 % busy.")
]
_LoadWindow = Annotated[float, typer.Option(min=0.1, help="Seconds over which the request rate is measured.")]
_ReportInterval = Annotated[
    float, typer.Option(min=0.05, help="Seconds between load reports to the exporter.")
]
_LogFormat = Annotated[LogFormat, typer.Option(help="console or json (one object per line).")]


def inference(
    model: _Model = DEFAULT_MODEL,
    host: _Host = "0.0.0.0",
    port: _Port = 8000,
    warmup_seconds: _Warmup = 0.0,
    tokens_per_second: _TokensPerSecond = 0.0,
    devices_env: _DevicesEnv = VISIBLE_DEVICES_ENV,
    exporter_url: _ExporterUrl = None,
    saturation_rps: _SaturationRps = 2.0,
    load_window: _LoadWindow = 10.0,
    report_interval: _ReportInterval = 1.0,
    log_format: _LogFormat = "console",
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
    _serve(config, host, port)


def _serve(config: InferenceConfig, host: str, port: int) -> None:
    # Imported here so that --help stays quick.
    import uvicorn

    from .app import create_app

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
