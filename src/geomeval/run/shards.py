"""Runs split across machines: `geomeval run --shard i/n` and `geomeval merge`.

A shard takes every n-th planned item, starting at the i-th (positions i-1, i-1+n, ... of the
run's planned order, after --limit): deterministic for the same data and limit, balanced to
within one item, and each shard sees items of every part of the release. A shard is an
ordinary run folder (it resumes, rescores and reports alone); its run.json records
`"shard": {"index": i, "count": n}`, a resume key, so a folder holding another slice is
refused, and `shard.json` lists its planned ids in order.

`merge` joins the n folders of one run into a folder identical to the run made unsharded:
samples.jsonl holds each item's last record (the shards' own lines, byte for byte) in the
run's planned order, and results.json and report.md are summarised from them exactly as a
run summarises its records, with the shards' request counts added up. The planned order is
rebuilt from the shards' id lists (interleaving them undoes the slicing), so the data need not
be at hand where the shards are merged.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from ..benchmarks import get_benchmark, with_recorded_prompts
from ..core.errors import UsageError
from ..core.records import FIGURES_DIR, RecordError, SampleRecord
from .keptrecords import KeptRecords
from .provenance import now
from .runner import (
    PROMPTS,
    RESULTS,
    RESUME_KEYS,
    RUN_CONFIG,
    SAMPLES,
    SHARD_IDS,
    _replace_whole,
    _write_config,
    finalize,
    read_config,
)


def parse_shard(text: str) -> tuple[int, int]:
    """`i/n` (1 <= i <= n) as (i, n); a UsageError saying the form otherwise."""
    index, sep, count = text.partition("/")
    try:
        i, n = int(index), int(count)
    except ValueError:
        i = n = 0
    if not sep or n < 1 or not 1 <= i <= n:
        raise UsageError(f"--shard {text!r}: expected i/n with 1 <= i <= n, e.g. --shard 2/4")
    return i, n


def _read_json(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise UsageError(f"{path} not found: is {path.parent} a finished shard of a geomeval run?") from None
    except (OSError, ValueError) as exc:
        raise UsageError(f"{path} is unreadable ({exc})") from None
    if not isinstance(data, dict):
        raise UsageError(f"{path} is not a JSON object")
    return data


def _interleave(lists: Sequence[Sequence[str]]) -> list[str]:
    """The planned order: position p is shard (p mod n)'s (p div n)-th id."""
    order: list[str] = []
    longest = max((len(ids) for ids in lists), default=0)
    for k in range(longest):
        order.extend(ids[k] for ids in lists if k < len(ids))
    return order


def _line_index(path: Path, wanted: set[str]) -> Iterator[tuple[str, int, int]]:
    """(id, offset, length) of each whole line of samples.jsonl whose id is `wanted`."""
    offset = 0
    with path.open("rb") as handle:
        for number, line in enumerate(handle, 1):
            start, offset = offset, offset + len(line)
            if not line.strip():
                continue
            try:
                data = json.loads(line)
            except (json.JSONDecodeError, UnicodeDecodeError, RecursionError):
                raise UsageError(f"{path}, line {number}: unreadable sample; resume that shard first "
                                 "(its same `geomeval run --shard` command)") from None
            item_id = data.get("id") if isinstance(data, dict) else None
            if isinstance(item_id, str) and item_id in wanted:
                yield item_id, start, len(line)


def merge(shard_dirs: Sequence[Path], out_dir: Path, *, overwrite: bool = False) -> dict[str, Any]:
    """Join the finished shard folders of one run into `out_dir` (see the module's doc)."""

    if not shard_dirs:
        raise UsageError("merge: name the shard folders to join")
    shards: list[tuple[Path, dict[str, Any], dict[str, Any], dict[str, Any]]] = []
    for folder in shard_dirs:
        config = read_config(folder / RUN_CONFIG) if (folder / RUN_CONFIG).exists() else None
        if config is None:
            raise UsageError(f"{folder / RUN_CONFIG} not found: is {folder} a shard of a geomeval run?")
        place = config.get("shard")
        if not isinstance(place, dict):
            raise UsageError(f"{folder} is not a shard (its run.json has no \"shard\"; run with --shard i/n)")
        shards.append((folder, config, _read_json(folder / SHARD_IDS), _read_json(folder / RESULTS)))
    first = shards[0][1]
    count = first["shard"].get("count")
    for folder, config, _, _ in shards[1:]:
        differing = [k for k in (*RESUME_KEYS, "limit") if k != "shard" and config.get(k) != first.get(k)]
        if config["shard"].get("count") != count:
            differing.append("shard count")
        if differing:
            raise UsageError(f"{folder} is a shard of another run than {shards[0][0]} "
                             f"(differs in {', '.join(differing)})")
    by_index: dict[int, tuple[Path, dict[str, Any], dict[str, Any], dict[str, Any]]] = {}
    for shard in shards:
        index = shard[1]["shard"].get("index")
        if index in by_index:
            raise UsageError(f"{shard[0]} and {by_index[index][0]} are both shard {index}/{count}")
        by_index[index] = shard
    missing = [str(i) for i in range(1, int(count) + 1) if i not in by_index]
    if missing:
        raise UsageError(f"merge: shard {', '.join(missing)} of {count} not given; name all {count} folders")
    ordered = [by_index[i] for i in range(1, int(count) + 1)]
    data_blocks = {json.dumps((c.get("provenance") or {}).get("data"), sort_keys=True) for _, c, _, _ in ordered}
    if len(data_blocks) > 1:
        raise UsageError("merge: the shards read different data (their run.json provenance \"data\" differ)")
    for folder, _, ids, results in ordered:
        if results.get("stopped") or results.get("n_items") != len(ids.get("ids") or []):
            raise UsageError(f"{folder} is unfinished ({results.get('n_items')} of {len(ids.get('ids') or [])} "
                             "items); rerun its `geomeval run --shard` command, then merge")
    planned = _interleave([ids["ids"] for _, _, ids, _ in ordered])
    if len(set(planned)) != len(planned):
        raise UsageError("merge: an id is planned in two shards; were they made from the same data and --limit?")

    out_dir.mkdir(parents=True, exist_ok=True)
    if ((out_dir / SAMPLES).exists() or (out_dir / RUN_CONFIG).exists()) and not overwrite:
        raise UsageError(f"{out_dir} already holds a run; use another --out or pass --overwrite")
    bench = get_benchmark(first["benchmark"]).from_options(first.get("options") or {})
    bench = with_recorded_prompts(bench, first)
    # where each item's last line is, shard by shard (an id written twice counts once, its last)
    where: dict[str, tuple[int, int, int]] = {}
    for number, (folder, _, ids, _) in enumerate(ordered):
        for item_id, offset, length in _line_index(folder / SAMPLES, set(ids["ids"])):
            where[item_id] = (number, offset, length)
    absent = [item_id for item_id in planned if item_id not in where]
    if absent:
        raise UsageError(f"merge: {len(absent)} planned items have no sample (first {absent[0]!r}); "
                         "rerun their shard's command, then merge")
    handles = [(folder / SAMPLES).open("rb") for folder, _, _, _ in ordered]
    try:
        with KeptRecords(planned, folder=out_dir) as kept:

            def write(handle: Any) -> None:
                for item_id in planned:
                    number, offset, length = where[item_id]
                    line = os.pread(handles[number].fileno(), length, offset).decode("utf-8")
                    try:
                        record = SampleRecord.from_dict(json.loads(line))
                    except RecordError as exc:
                        raise UsageError(f"{ordered[number][0] / SAMPLES}, item {item_id!r}: {exc}") from None
                    kept.add(bench.kept(record))
                    handle.write(line if line.endswith("\n") else line + "\n")

            _replace_whole(out_dir / SAMPLES, write)
            for folder, _, _, _ in ordered:  # the figures the copied lines reference (records.FIGURES_DIR)
                for figure in sorted((folder / FIGURES_DIR).glob("*")) if (folder / FIGURES_DIR).is_dir() else ():
                    if figure.is_file() and not figure.name.startswith(".") \
                            and not (out_dir / FIGURES_DIR / figure.name).exists():
                        (out_dir / FIGURES_DIR).mkdir(exist_ok=True)
                        shutil.copy2(figure, out_dir / FIGURES_DIR / figure.name)
            config = {k: v for k, v in first.items() if k != "shard"}
            provenance = dict(first.get("provenance") or {})
            provenance["merged"] = {"at": now(), "shards": [str(folder) for folder, _, _, _ in ordered]}
            config["provenance"] = provenance
            _write_config(out_dir / RUN_CONFIG, config)
            if (ordered[0][0] / PROMPTS).exists():
                shutil.copyfile(ordered[0][0] / PROMPTS, out_dir / PROMPTS)
            extra: dict[str, Any] = {"requests": _summed([r.get("requests") or {} for _, _, _, r in ordered]),
                                     "items_planned": len(planned)}
            return finalize(bench, kept, config, out_dir, extra)
    finally:
        for handle in handles:
            handle.close()


def _summed(blocks: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The shards' request counts added up, key by key at every depth (numbers summed, any
    other value the first shard's): the counts one process would have made of them all."""
    total: dict[str, Any] = {}
    for block in blocks:
        for name, value in block.items():
            if isinstance(value, dict):
                total[name] = _summed([total.get(name) or {}, value])
            elif isinstance(value, (int, float)) and not isinstance(value, bool):
                total[name] = total.get(name, 0) + value
            elif name not in total:
                total[name] = value
    return total
