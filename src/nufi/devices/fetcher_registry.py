"""Finding the fetcher a device type names: the built-ins, plus third-party fetchers from plugins.

A plugin is any installed distribution with an entry point in the group `nufi.device_fetchers`:

```toml
[project.entry-points."nufi.device_fetchers"]
acme-npu = "acme_nufi.fetcher:AcmeFetcher"
```

The entry point's name is the fetcher name a device type sets in `fetcher`; its object is a
`DeviceFetcher`, or a class or factory that builds one with no arguments. A plugin that fails to import,
build or fit the interface is logged and skipped: one broken package must not keep NuFi from starting.
"""

from __future__ import annotations

import inspect
import logging
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from importlib.metadata import EntryPoint, entry_points
from typing import Any

from nufi.devices.fetcher import DeviceFetcher, GenericFetcher
from nufi.devices.official.nvidia import FETCHER_NAME as DCGM_FETCHER
from nufi.devices.official.nvidia import DcgmFetcher
from nufi.devices.spec import GENERIC_FETCHER, DeviceType, is_fetcher_name
from nufi.errors import ValidationFailed

ENTRY_POINT_GROUP = "nufi.device_fetchers"
_SYNC_METHODS = ("labels_read", "usable", "inventory")
log = logging.getLogger(__name__)

EntryPointSource = Callable[[str], Iterable[EntryPoint]]


@dataclass(frozen=True)
class PluginFailure:
    """A plugin entry point that was skipped, and why."""

    name: str
    target: str
    reason: str


class UnknownFetcher(ValidationFailed):
    """A device type names a fetcher that is neither built in nor installed."""


def builtin_fetchers() -> dict[str, DeviceFetcher]:
    return {GENERIC_FETCHER: GenericFetcher(), DCGM_FETCHER: DcgmFetcher()}


def _group_entry_points(group: str) -> Iterable[EntryPoint]:
    return entry_points(group=group)


def load_plugin_fetchers(
    *,
    taken: Iterable[str] = (),
    group: str = ENTRY_POINT_GROUP,
    source: EntryPointSource = _group_entry_points,
) -> tuple[dict[str, DeviceFetcher], list[PluginFailure]]:
    """Fetchers from the installed plugins, and the entry points that had to be skipped."""
    loaded: dict[str, DeviceFetcher] = {}
    failures: list[PluginFailure] = []
    reserved = set(taken)
    for entry in source(group):
        try:
            fetcher = _load(entry, reserved | set(loaded))
        except _Skip as skip:
            failure = PluginFailure(entry.name, entry.value, str(skip))
            log.warning(
                "skipping device fetcher plugin %r (%s): %s",
                failure.name,
                failure.target,
                failure.reason,
                exc_info=skip.__cause__,
            )
            failures.append(failure)
            continue
        loaded[entry.name] = fetcher
    return loaded, failures


class FetcherRegistry:
    """Fetchers by name. Built-ins win over plugins of the same name."""

    def __init__(self, fetchers: Mapping[str, DeviceFetcher], failures: Iterable[PluginFailure] = ()) -> None:
        self._fetchers = dict(fetchers)
        self.failures: tuple[PluginFailure, ...] = tuple(failures)

    @classmethod
    def with_plugins(
        cls, *, group: str = ENTRY_POINT_GROUP, source: EntryPointSource = _group_entry_points
    ) -> FetcherRegistry:
        """The built-in fetchers plus every working plugin installed in this environment."""
        fetchers = builtin_fetchers()
        plugins, failures = load_plugin_fetchers(taken=fetchers, group=group, source=source)
        return cls({**plugins, **fetchers}, failures)

    def names(self) -> list[str]:
        return sorted(self._fetchers)

    def __contains__(self, name: object) -> bool:
        return name in self._fetchers

    def get(self, name: str) -> DeviceFetcher:
        fetcher = self._fetchers.get(name)
        if fetcher is None:
            raise UnknownFetcher(
                code="fetcher.unknown",
                field="fetcher",
                params={"fetcher": name, "available": ", ".join(self.names()), "group": ENTRY_POINT_GROUP},
            )
        return fetcher

    def for_type(self, device_type: DeviceType) -> DeviceFetcher:
        return self.get(device_type.fetcher)


class _Skip(Exception):
    pass


def _load(entry: EntryPoint, taken: set[str]) -> DeviceFetcher:
    if not is_fetcher_name(entry.name):
        raise _Skip(f"`{entry.name}` is not a fetcher name: use lowercase letters, digits, `-`, `_` and `.`")
    if entry.name in taken:
        raise _Skip(f"the fetcher name `{entry.name}` is already taken; rename the entry point")
    try:
        target: Any = entry.load()
    except (Exception, SystemExit) as exc:
        raise _Skip(f"cannot import it: {type(exc).__name__}: {exc}") from exc
    if isinstance(target, type) or (callable(target) and not isinstance(target, DeviceFetcher)):
        try:
            target = target()
        except (Exception, SystemExit) as exc:
            raise _Skip(f"building it with no arguments failed: {type(exc).__name__}: {exc}") from exc
    missing = [f"{name}()" for name in _SYNC_METHODS if not callable(getattr(target, name, None))]
    if not inspect.iscoroutinefunction(getattr(target, "readings", None)):
        missing.append("async readings()")
    if missing or not isinstance(target, DeviceFetcher):
        raise _Skip(
            f"{type(target).__name__} does not implement DeviceFetcher (missing: {', '.join(missing)}); "
            "it needs labels_read(device_type), usable(metric, value), inventory(device_type, cluster) "
            "and async readings(device_type, prometheus, *, at=None)"
        )
    return target
