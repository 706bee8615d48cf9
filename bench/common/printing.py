"""The figures' format: a time in milliseconds, and a labelled figure on a line of its own."""

from __future__ import annotations


def ms(seconds: float) -> str:
    return f"{seconds * 1000:8.1f} ms"


def line(label: str, value: str) -> None:
    print(f"  {label:<66} {value}", flush=True)
