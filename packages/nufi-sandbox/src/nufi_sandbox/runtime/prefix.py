"""The base URL a notebook server is reached under, from ``NB_PREFIX`` as Kubeflow sets it."""

from __future__ import annotations

from collections.abc import Mapping

DEFAULT_PORT = 8888
"""The notebook port Kubeflow's controller assumes when the container names none."""


def base_url(env: Mapping[str, str]) -> str:
    """``NB_PREFIX`` with one leading and one trailing slash (Kubeflow writes ``/notebook/ns/name``);
    ``/`` when it is unset or empty."""
    parts = [part for part in env.get("NB_PREFIX", "").split("/") if part]
    return "/" + "".join(f"{part}/" for part in parts)


def port(env: Mapping[str, str], given: int | None = None) -> int:
    """``$PORT`` (where the dev cluster routes to, so it wins over anything a manifest says), else
    ``--port`` when given, else 8888."""
    text = env.get("PORT", "").strip()
    if not text:
        return DEFAULT_PORT if given is None else given
    value = int(text)
    if not 0 < value < 65536:
        raise ValueError(f"PORT={text} is not a TCP port")
    return value
