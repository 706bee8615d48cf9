"""Prometheus scrape jobs for the sandbox: one job per exporter vendor, one target per node; and NuFi's
own /metrics (the capacity its alert rules compare the devices reporting with)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from nufi_sandbox.prometheus import ScrapeJob
from nufi_sandbox.sandbox.topology import ExporterRole, SandboxNode

NUFI_JOB = "nufi"


@dataclass
class PerTargetJob(ScrapeJob):
    """A scrape job whose targets carry their own labels, as service discovery would attach them."""

    groups: list[tuple[str, dict[str, str]]] = field(default_factory=list)

    def to_config(self) -> dict[str, Any]:
        config = super().to_config()
        config["static_configs"] = [{"targets": [target], "labels": labels} for target, labels in self.groups]
        return config


def scrape_jobs(nodes: Sequence[SandboxNode], exporter_ports: Mapping[str, int]) -> list[ScrapeJob]:
    """Every exporter of `nodes` (listening on 127.0.0.1 at `exporter_ports[node]`), grouped by vendor."""
    by_role: dict[str, tuple[ExporterRole, list[SandboxNode]]] = {}
    for node in nodes:
        by_role.setdefault(node.exporter.job, (node.exporter, []))[1].append(node)
    jobs: list[ScrapeJob] = []
    for role, members in by_role.values():
        groups = [
            (f"127.0.0.1:{exporter_ports[node.name]}", role.target_labels(node.name)) for node in members
        ]
        jobs.append(
            PerTargetJob(
                name=role.job,
                targets=[target for target, _ in groups],
                honor_labels=role.honor_labels,
                groups=groups,
            )
        )
    return jobs


def nufi_job(port: int) -> ScrapeJob:
    """NuFi's /metrics on 127.0.0.1:`port` (served without authentication)."""
    return ScrapeJob(name=NUFI_JOB, targets=[f"127.0.0.1:{port}"])
