"""What each series said before now, kept between evaluations, so a silent series is not forgotten.

Prometheus marks a series stale as soon as a scrape misses it, so a plain instant query simply stops
returning a device whose exporter went quiet: nothing in the answer tells "silent" from "never there".
The refresher of a device type therefore remembers, per query and per series (its reduced labels), the
last sample it saw and the instant it saw it. A series missing from an answer but seen within the
window is put back with its last value and stamped with that instant, so the fetcher's
`DeviceReading.sampled_at` carries the last-seen time and staleness is a comparison in memory; one
silent for longer than the window is forgotten. A query Prometheus could not answer is treated the
same way: its series are silent, not gone.

A NaN sample is silence too. VictoriaMetrics never returns one: it serves the series' previous value for
its lookback (`-search.maxStalenessInterval`), then nothing, where Prometheus answers NaN. Counting NaN
as not heard gives one answer on both engines: the last real value, aging into staleness.

What a freshly started replica knows: only what its first evaluation returns. A device that fell silent
before that is unknown to it; if its node advertises the type's resource key and no device of the node
reports, the snapshot lists the node as `not_reporting`. From the second evaluation on, a series that
disappears is kept, with its last value, for the window.

Memory is per refresher: editing a device type starts a new refresher with an empty memory, so
nothing an old expression said is shown as the new expression's.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from nufi.prom import QueryResult, Sample

# A series' labels as one string: 8,000 devices are 40,000 series per evaluation, and a string, unlike
# a frozenset of pairs, is nothing the garbage collector has to walk. NUL cannot be told apart from the
# separators, which no exporter puts in a label.
_Identity = str


def _identity(labels: Mapping[str, str], names: Sequence[str]) -> _Identity:
    if names:  # a reduced query: every series carries (some of) these labels and no others
        return "\x00".join([labels.get(name, "\x01") for name in names])
    return "\x00".join(f"{name}\x01{value}" for name, value in sorted(labels.items()))


@dataclass
class _Series:
    samples: dict[_Identity, Sample] = field(default_factory=dict)


class SeriesMemory:
    """The last sample of every series each query returned within the last `window_seconds`."""

    def __init__(self, *, window_seconds: float) -> None:
        self._window = window_seconds
        self._queries: dict[str, _Series] = {}

    def recall(
        self, query: str, result: QueryResult, *, now: float, labels: Sequence[str] = ()
    ) -> QueryResult:
        """`result` of `query` at `now`, with every series remembered and silent now added back, with
        its last value and last-seen time (a NaN sample counts as silent); the memory learns the answer.
        Only vectors are kept.
        `labels`, when given, are the only labels the query's series carry (it was reduced to them)."""
        if result.result_type != "vector":
            return result
        known = self._queries.setdefault(query, _Series())
        present: set[_Identity] = set()
        heard = result.samples
        if any(math.isnan(sample.value) for sample in heard):
            heard = tuple(sample for sample in heard if not math.isnan(sample.value))
        for sample in heard:
            identity = _identity(sample.metric, labels)
            present.add(identity)
            known.samples[identity] = sample
        silent: list[Sample] = []
        for identity, sample in list(known.samples.items()):
            if identity in present:
                continue
            if now - sample.timestamp > self._window:
                del known.samples[identity]
            else:
                silent.append(sample)
        if not silent and heard is result.samples:
            return result
        return QueryResult("vector", samples=(*heard, *silent), warnings=result.warnings)

    def keep_only(self, queries: set[str]) -> None:
        """Forget every query not among `queries` (those one evaluation asked)."""
        for query in set(self._queries) - queries:
            del self._queries[query]

    @property
    def series(self) -> int:
        """How many series are remembered, over all queries."""
        return sum(len(series.samples) for series in self._queries.values())
