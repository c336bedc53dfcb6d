"""Means over scored items, with coverage, overall and per breakdown group."""

from __future__ import annotations

from array import array
from collections import Counter
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from hashlib import blake2b
from typing import Any

from ..core.records import SampleRecord, Score
from .stats import mean_uncertainty

ALL = "all"  # the group of every item, beside per-domain or per-subset groups

JUDGE_OUTCOMES = ("decided", "fallback", "failed")


class _Tally:
    """What one metric's summary reads of the records it covers, gathered a record at a time:
    the scored values (8 bytes each) and their clusters, the counts, and why the rest are
    unscored. Summaries are made from tallies, so a run's records are walked once and never
    held together (they may be read back from disk one at a time: keptrecords.py)."""

    __slots__ = ("clusters", "judge", "needs_judge", "not_applicable", "reasons", "total", "values")

    def __init__(self) -> None:
        self.values = array("d")
        self.clusters = array("q")
        self.reasons: Counter[str] = Counter()
        self.needs_judge = self.not_applicable = self.total = 0
        self.judge: Counter[str] = Counter()

    def add(self, score: Score | None, cluster: int) -> None:
        self.total += 1
        if score is None:
            self.reasons["no score"] += 1
            return
        if score.value is not None:
            self.values.append(float(score.value))
            self.clusters.append(cluster)
        else:
            self.reasons[score.unscored or "no score"] += 1
        self.needs_judge += score.needs_judge
        self.not_applicable += score.not_applicable
        if score.judge:
            self.judge[score.judge] += 1

    def summary(self, repeats: bool | None = None) -> dict[str, Any]:
        """`repeats`: whether some clusters repeat, when known (None: looked for here)."""
        values = self.values
        if repeats is None:
            repeats = bool(repeated(self.clusters, first=True))
        return {
            "value": (sum(values) / len(values)) if values else None,
            # the clusters only where some repeat: with every item its own cluster the
            # interval is the unclustered one, found without a set of every cluster
            **mean_uncertainty(values, self.clusters if repeats else None),
            "scored": len(values),
            "total": self.total,
            "coverage": (len(values) / self.total) if self.total else 0.0,
            "needs_judge": self.needs_judge,
            "not_applicable": self.not_applicable,
            "unscored_reasons": dict(self.reasons.most_common(5)),
            # Items the LLM judge decided, left to the rules after failing, or failed on.
            **({"judge": {k: self.judge.get(k, 0) for k in JUDGE_OUTCOMES}} if self.judge else {}),
        }


SLICE = 32768
"""`repeated` looks for repeats among about this many numbers at a time (at most SLICES walks)."""
SLICES = 16


def repeated(numbers: array[int], *, first: bool = False) -> set[int]:
    """The numbers found more than once in `numbers` (with `first`, the search stops at the
    first slice holding a repeat).

    Held meanwhile: a set of one slice of them (a set of every number costs about 70 bytes a
    number, against the array's 8), at the cost of a walk of the array per slice."""
    slices = min(SLICES, max(1, len(numbers) // SLICE))
    found: set[int] = set()
    for part in range(slices):
        some = numbers if slices == 1 else [number for number in numbers if number % slices == part]
        if len(set(some)) == len(some):
            continue
        found.update(number for number, count in Counter(some).items() if count > 1)
        if first:
            break
    return found


class _Clusters:
    """Each record's cluster for the standard error as a number: items sharing
    `meta["cluster"]` (variants of one source problem) share one, any other item is its own
    (its id), so the tallies hold 8 bytes a value rather than the cluster's text.

    A text's number is an 8-byte digest of it (blake2b), so nothing is held per cluster (a
    table of every id, and a set of every cluster to find none repeats, cost about 270 bytes
    an item more: 27 MB at 100k items); texts go to the
    same number only by a digest collision, about n²/2⁶⁵ (3e-10 at 100k distinct clusters).
    Only the grouping is read (which values share a cluster), so the standard errors are
    those of the numbering by first appearance this replaces. A cluster that is not a text (a
    number in meta) is numbered through a table of those alone."""

    def __init__(self) -> None:
        self._others: dict[Hashable, int] = {}

    def of(self, record: SampleRecord) -> int:
        key = record.meta.get("cluster", record.id)
        if isinstance(key, str):
            return digest(b"s" + key.encode("utf-8", "surrogatepass"))
        found = self._others.get(key)
        if found is None:
            found = self._others[key] = digest(b"o" + repr(key).encode("utf-8", "surrogatepass"))
        return found


def digest(data: bytes) -> int:
    """8 bytes standing for `data` (blake2b), as a signed int: what a search for repeats
    (`repeated`) or a cluster's number holds in place of a text."""
    return int.from_bytes(blake2b(data, digest_size=8).digest(), "little", signed=True)


def metric_summary(records: Iterable[SampleRecord], metric: str) -> dict[str, Any]:
    """Mean of the scored values with its standard error and 95% interval, how many were
    scored, and why the rest were not. Items sharing `meta["cluster"]` (variants of one
    source problem) are counted as one cluster in the standard error."""
    stats: dict[str, Any] = summarize(records, [metric])["metrics"][metric]
    return stats


def coverage_shortfalls(results: dict[str, Any], min_coverage: float) -> list[str]:
    """Metrics whose coverage falls below `min_coverage`, counting failures only.

    Items a metric cannot score without an LLM judge are a setting of the run, and items a
    metric does not apply to are no failure either, so both leave the denominator;
    everything else unscored counts.
    """
    short = []
    for name, stats in results["metrics"].items():
        if stats.get("derived"):  # computed from other metrics, whose coverage is checked
            continue
        eligible = stats["total"] - stats.get("needs_judge", 0) - stats.get("not_applicable", 0)
        if eligible <= 0:
            continue
        coverage = stats["scored"] / eligible
        if coverage < min_coverage:
            short.append(
                f"{name}: {stats['scored']}/{eligible} scored ({100 * coverage:.1f}%) "
                f"< {100 * min_coverage:.1f}%"
            )
    return short


GroupKey = Callable[[SampleRecord], "str | Sequence[str] | None"]


@dataclass(frozen=True)
class Breakdown:
    """One breakdown a benchmark declares (`Benchmark.breakdowns`): its name, what groups a
    record (the record's `meta[field]`, `field` defaulting to the name, or a function of the
    record: several groups for an item in two categories, None to leave it out) and the
    order its groups are shown in (groups not listed follow, sorted)."""

    name: str
    field: str = ""
    key: GroupKey | None = None
    order: tuple[str, ...] = ()

    def of(self, record: SampleRecord) -> str | Sequence[str] | None:
        if self.key is not None:
            return self.key(record)
        value = record.meta.get(self.field or self.name)
        return value or None  # an empty text or list is no group


def summarize(
    records: Iterable[SampleRecord],
    metrics: Iterable[str],
    units: Mapping[str, str] | None = None,
    breakdowns: Sequence[Breakdown] = (),
) -> dict[str, Any]:
    """Overall metrics and, per declared breakdown (`Benchmark.breakdowns`), each group's; an
    item in two categories counts in both, and one its breakdown gives no group is left out
    of that breakdown. The records are walked once.

    `units` names metrics that are not shares in [0, 1] ("dB", or "raw" for a plain number);
    reports print those as they are instead of as percentages.
    """
    metrics = list(dict.fromkeys(metrics))  # a metric named twice is summarised once
    overall = {m: _Tally() for m in metrics}
    groups: list[dict[str, dict[str, _Tally]]] = [{} for _ in breakdowns]
    clusters = _Clusters()
    doubled = False
    for record in records:
        scored = [record.scores.get(m) for m in metrics]
        # only a scored value needs its cluster (an unscored item's meta is not read for it)
        cluster = clusters.of(record) if any(s is not None and s.value is not None for s in scored) else -1
        tallies = [overall]
        for breakdown, buckets in zip(breakdowns, groups, strict=True):
            value = breakdown.of(record)
            named = [value] if isinstance(value, str) else list(value or ())
            doubled = doubled or len(set(named)) < len(named)  # a group given twice counts the item twice
            for bucket in named:
                if bucket not in buckets:
                    buckets[bucket] = {m: _Tally() for m in metrics}
                tallies.append(buckets[bucket])
        for metric, score in zip(metrics, scored, strict=True):
            for per_metric in tallies:
                per_metric[metric].add(score, cluster)
    # a group's items are some of the overall ones: where no cluster repeats overall (and no
    # item is in a group twice), none repeats in a group either, and its clusters need no look
    repeats = {m: bool(repeated(overall[m].clusters, first=True)) for m in metrics}
    summary: dict[str, Any] = {
        "metrics": {m: overall[m].summary(repeats[m]) for m in metrics},
        "breakdowns": {},
    }
    for name, unit in (units or {}).items():
        if name in summary["metrics"]:
            summary["metrics"][name]["unit"] = unit
    for breakdown, buckets in zip(breakdowns, groups, strict=True):
        order = list(breakdown.order) + sorted(k for k in buckets if k not in breakdown.order)
        summary["breakdowns"][breakdown.name] = {
            k: {m: buckets[k][m].summary(None if repeats[m] or doubled else False) for m in metrics} for k in order if k in buckets
        }
    return summary


def face_summary(
    records: Sequence[SampleRecord], metrics: Iterable[str]
) -> tuple[dict[str, float | None], dict[str, float], dict[str, int], dict[str, list[dict[str, Any]]]]:
    """What the `evaluate` faces return per metric: the mean over scored items, coverage, the
    not-applicable count, and each unscored item (by position) with its reason."""
    means: dict[str, float | None] = {}
    coverage: dict[str, float] = {}
    not_applicable: dict[str, int] = {}
    unscored: dict[str, list[dict[str, Any]]] = {}
    for name in metrics:
        stats = metric_summary(records, name)
        means[name] = stats["value"]
        coverage[name] = stats["coverage"]
        not_applicable[name] = stats["not_applicable"]
        missing = [
            {
                "item": i,
                "reason": (r.scores[name].unscored if name in r.scores else None) or "no score",
                "not_applicable": name in r.scores and r.scores[name].not_applicable,
            }
            for i, r in enumerate(records)
            if name not in r.scores or not r.scores[name].scored
        ]
        if missing:
            unscored[name] = missing
    return means, coverage, not_applicable, unscored
