"""Run a benchmark: generate, score, and save each sample as it finishes.

`samples.jsonl` is appended one complete line per item as soon as it is scored, so
an interrupted run (even `kill -9`) loses nothing already written and resumes where
it stopped: a torn last line is dropped and redone, and the response cache answers
the requests that had completed but were not yet saved. Items whose generation or
judgment failed are retried by rerunning the same command. `run.json` holds the
configuration; rescoring (`geomeval score`) needs only the output folder, because
each record carries its own targets.

Concurrency belongs to the engine: each model or judge client bounds its own requests in
flight, and items flow through as many asyncio workers as the model's and the judge's
requests together, so that neither endpoint waits for the other's slots.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import os
import tempfile
import time
from array import array
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any, TextIO

from ..benchmarks import get_benchmark, with_recorded_prompts
from ..benchmarks.base import Benchmark, Item
from ..benchmarks.datasource import LazyItems
from ..core.errors import EndpointFailure, UsageError
from ..core.records import RecordError, SampleRecord
from ..core.runfiles import (  # the run folder's files and their one reader (re-exported here)
    PROMPTS,
    RESULTS,
    RUN_CONFIG,
    SAMPLES,
    iter_lines,
    iter_samples,
    read_config,
)
from ..core.runfiles import read_samples as read_samples  # what callers of runner.read_samples get
from ..engines.aggregate import digest, repeated
from ..engines.client import BudgetExhausted, RequestBudget
from ..engines.engine import for_each, score
from ..engines.hfdata import current_umask
from ..engines.judges import Judge
from ..engines.models import Generation, Model
from .keptrecords import KeptRecords
from .provenance import (
    DataFingerprint,
    describe,
    library_versions,
    messages_sha256,
    now,
    prompt_texts,
)
from .samplewriter import SampleWriter

# Fields that must agree for an existing output folder to be resumed rather than refused.
RESUME_KEYS = ("benchmark", "task", "model", "model_settings", "judge", "data", "seed", "options", "prompts", "shard")

Progress = Callable[[int, int], None]


class RunConflict(RuntimeError):
    """The output folder holds a different run."""


def versions() -> dict[str, str]:
    return library_versions()


def recorded_model_server(out_dir: Path) -> str | None:
    """The model's server a run used, as its run.json records it (None: the run's model had
    none, or there is no readable run.json): `geomeval score` decides with it, as `run` did
    with --base-url, whether the judge is on the model's server (`endpoints.resolve_hosts`)."""
    path = out_dir / RUN_CONFIG
    if not path.is_file():
        return None
    provenance = read_config(path).get("provenance")
    model = provenance.get("model") if isinstance(provenance, dict) else None
    endpoint = model.get("endpoint") if isinstance(model, dict) else None
    url = endpoint.get("base_url") if isinstance(endpoint, dict) else None
    return url if isinstance(url, str) and url else None


def write_samples(path: Path, records: Iterable[SampleRecord]) -> None:
    """Replace samples.jsonl with `records`, atomically (they may be read from it as they go)."""

    def write(handle: TextIO) -> None:
        for record in records:
            handle.write(record.to_json(path.parent) + "\n")  # figures: files beside it

    _replace_whole(path, write)


RESUME_STATE = ".finished.json"
"""Written as a run ends with every planned item saved and finished: the run's resume keys
and limit, and stamps (size, time) of samples.jsonl, results.json, the data and geomeval's code. Rerunning
the same command while all of them still agree returns results.json as it is, reading no
record and no item (before, a resume of a finished 10k-item run read and rewrote every record:
as much CPU as the run). Any change (a rescore, an edited file, other data, another limit) and
the run resumes the usual way."""


def _stamp(path: Path) -> list[int] | None:
    try:
        stat = path.stat()
    except OSError:
        return None
    return [stat.st_size, stat.st_mtime_ns]


def _data_stamp(bench: Benchmark, data: str | None) -> Any:
    """Sizes and times of the data's files (cheap, unlike its hash); None for a Hub id, whose
    revision could move without a local file changing."""
    if data is None:  # the sample folders the data's hash covers (provenance.data_fingerprint)
        package = Path(bench.embedded()).parent
        roots = sorted(p for p in package.iterdir() if p.is_dir() and "sample" in p.name and p.name != "__pycache__")
    else:
        path = Path(data).expanduser()
        if not path.exists():
            return None
        roots = [path]
    found: list[Any] = []
    for root in roots:
        files = [root] if root.is_file() else sorted(p for p in root.rglob("*") if p.is_file())
        found.extend([str(file), *(_stamp(file) or [])] for file in files)
    return found


def _finished_run(out_dir: Path, config: dict[str, Any], data_stamp: Any) -> dict[str, Any] | None:
    """results.json of a finished run of this very configuration whose files are as it left
    them (`RESUME_STATE`); None: the run has to be resumed (or made)."""
    if data_stamp is None:
        return None
    try:
        state = json.loads((out_dir / RESUME_STATE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    expected = _resume_state(out_dir, config, data_stamp)
    if state != expected:
        return None
    try:
        results = json.loads((out_dir / RESULTS).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return results if isinstance(results, dict) and isinstance(results.get("n_items"), int) else None


def _nothing_sent_this_time(results: dict[str, Any]) -> bool:
    """Set each role's `this_invocation` counts (`_every_invocation`) to 0, as a run that sends
    nothing writes them; whether any was not 0 already."""
    changed = False
    for used in (results.get("requests") or {}).values():
        this = used.get("this_invocation") if isinstance(used, dict) else None
        if isinstance(this, dict):
            for name, value in this.items():
                if isinstance(value, (int, float)) and value:
                    this[name], changed = 0, True
    return changed


def _code_stamp() -> str:
    """A digest of geomeval's own source files (names, sizes, times): other code (an upgrade, an
    edited checkout) may summarise the same records otherwise, so a rerun then resumes the usual
    way and writes results.json again."""
    import hashlib

    package = Path(__file__).resolve().parents[1]
    hasher = hashlib.sha256()
    for path in sorted(package.rglob("*.py")):
        stat = path.stat()
        hasher.update(f"{path.relative_to(package)}\0{stat.st_size}\0{stat.st_mtime_ns}\n".encode())
    return hasher.hexdigest()


def _resume_state(out_dir: Path, config: dict[str, Any], data_stamp: Any) -> dict[str, Any]:
    return {
        "code": _code_stamp(),
        "config": json.loads(json.dumps({key: config.get(key) for key in (*RESUME_KEYS, "limit")})),
        "files": {name: _stamp(out_dir / name) for name in (SAMPLES, RESULTS, RUN_CONFIG)},
        "data": data_stamp,
    }


def _write_resume_state(out_dir: Path, config: dict[str, Any], data_stamp: Any) -> None:
    if data_stamp is not None:
        state = _resume_state(out_dir, config, data_stamp)
        _replace_whole(out_dir / RESUME_STATE, lambda handle: json.dump(state, handle))


def _resume(bench: Benchmark, path: Path, done: KeptRecords) -> None:
    """Keep (`Benchmark.kept`, into `done`) the finished records of samples.jsonl, the file
    rewritten with only them (a torn last line and failures to retry dropped): read, judged
    finished on the whole record and let go one at a time, so resuming holds no more than the
    run. The lines kept are written as they were, not serialised again, and when none is
    dropped the file is left alone (most of what a resume cost was rewriting it)."""
    dropped = 0
    whole = 0  # bytes of the records read (a torn last line is not one)
    for record, line in iter_lines(path):
        whole += len(line)
        if bench.finished(record):
            done.add(bench.kept(record))
        else:
            dropped += 1
    if not dropped and whole == path.stat().st_size and _ends_whole(path):
        return

    def finished(handle: TextIO) -> None:
        for record, line in iter_lines(path):
            if bench.finished(record):
                text = line.decode("utf-8", errors="replace")
                handle.write(text if text.endswith("\n") else text + "\n")

    _replace_whole(path, finished)


def _ends_whole(path: Path) -> bool:
    """Whether the file is empty or ends with a newline (the next append starts a line)."""
    size = path.stat().st_size
    if not size:
        return True
    with path.open("rb") as handle:
        handle.seek(size - 1)
        return handle.read(1) == b"\n"


def _write_config(path: Path, config: dict[str, Any]) -> None:
    """run.json, replaced whole: it is written again as a run ends (the data's hash) and as a
    rescore ends, and a torn one would refuse every later resume or rescore."""
    _replace_whole(path, lambda handle: handle.write(json.dumps(config, indent=2) + "\n"))


SHARD_IDS = "shard.json"  # a shard's place and planned ids (what `geomeval merge` reads)


def shard_items(items: Sequence[Item], index: int, count: int) -> Sequence[Item]:
    """The items of shard `index` of `count`: positions index-1, index-1+count, ...; a lazy
    sequence stays lazy (only the chosen rows are read)."""
    if count == 1:
        return items
    if isinstance(items, LazyItems):
        chosen = range(index - 1, len(items), count)
        return LazyItems(items.rows.select(list(chosen)), items.make, items.id_column)
    return list(items)[index - 1::count]


def write_shard_ids(out_dir: Path, index: int, count: int, ids: Sequence[str]) -> None:
    """shard.json: the shard's place and its planned ids in order, what `merge` interleaves."""
    _replace_whole(out_dir / SHARD_IDS, lambda handle: json.dump(
        {"index": index, "count": count, "ids": list(ids)}, handle, ensure_ascii=False))


def _replace_whole(path: Path, write: Callable[[TextIO], Any]) -> None:
    """Replace `path` with what `write` puts in a temporary file beside it, atomically: a
    failure on the way (an unreadable line met, a full disk) leaves the old file as it was and
    no temporary file."""
    fd, tmp = tempfile.mkstemp(prefix=f".{path.stem}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            write(handle)
        _replace_keeping_mode(Path(tmp), path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _replace_keeping_mode(new: Path, path: Path) -> None:
    """Move `new` over `path` atomically, with the mode the old file had, else the usual one
    (mkstemp makes its files 0600)."""
    mode = path.stat().st_mode & 0o777 if path.exists() else 0o666 & ~current_umask()
    os.chmod(new, mode)
    os.replace(new, path)


def _pose(bench: Benchmark, task: str, item: Item, needs_messages: bool) -> tuple[SampleRecord, Any, str | None]:
    """The item's record, its messages (or the exception building them raised) and their hash
    (provenance.py), made together off the event loop: hashing a prompt with its figures is
    CPU work of the same kind as building it."""
    record = bench.new_record(item, task)
    try:
        messages = bench.messages(item, task) if needs_messages else None
    except Exception as exc:  # a bad item fails alone, as a generation error
        return record, exc, None
    return record, messages, messages_sha256(messages)


POSE_INLINE_S = 0.002
"""A pose (the record and the messages: an item's figures encoded, the prompt hashed) that
takes less than this on average is made on the event loop. Handing it to a thread costs more
than it saves there: a wake-up each way, and since encoding holds the GIL, the loop waits for
it at each of its own socket calls anyway. Slower poses (GGBench re-encodes its reference
figure) go to a thread, so judge replies are not kept waiting behind them."""
_pose_seconds: dict[tuple[type, str], float] = {}  # a moving average, by benchmark and task


def _timed_pose(bench: Benchmark, task: str, item: Item, needs_messages: bool) -> tuple[tuple[SampleRecord, Any, str | None], float]:
    start = time.perf_counter()
    posed = _pose(bench, task, item, needs_messages)
    return posed, time.perf_counter() - start


async def _generate(bench: Benchmark, task: str, item: Item, model: Model) -> SampleRecord:
    # The first item of a benchmark's task is posed on the loop, its time not counted: its
    # modules load lazily (lazy.py), and importlib's LazyLoader must not run in two threads at
    # once. Later ones go on the loop or to a thread by what posing has cost (POSE_INLINE_S).
    key = (type(bench), task)
    average = _pose_seconds.get(key)
    if average is not None and average >= POSE_INLINE_S:
        (record, posed, digest), seconds = await asyncio.to_thread(_timed_pose, bench, task, item, model.needs_messages)
    else:
        (record, posed, digest), seconds = _timed_pose(bench, task, item, model.needs_messages)
    previous = _pose_seconds.get(key)  # read again: other items may have added theirs meanwhile
    _pose_seconds[key] = 0.0 if previous is None else 0.8 * previous + 0.2 * seconds  # the first not counted
    messages = None if isinstance(posed, Exception) else posed
    try:
        if isinstance(posed, Exception):
            raise posed
        generation = await model.generate(item, messages)
    except EndpointFailure:  # the model's endpoint is unusable: stop the run, not the item
        raise
    except Exception as exc:  # a client bug must not lose the run: record it as a failure
        generation = Generation(None, f"{type(exc).__name__}: {exc}")
    record.response = generation.text
    record.generation_error = generation.error
    record.images = generation.images
    record.generation_info = _with_prompt_hash(generation.info, digest)
    return record


def _with_prompt_hash(info: dict[str, Any] | None, digest: str | None) -> dict[str, Any] | None:
    """The reply's info with the hash of the exact messages sent (see provenance.py)."""
    if digest is None:
        return info
    return {**(info or {}), "prompt_sha256": digest}


async def _pipeline(
    bench: Benchmark,
    task: str,
    todo: Sequence[Item],
    model: Model,
    judge: Judge,
    concurrency: int,
    save: Callable[[SampleRecord], None],
) -> None:
    """Generate and score every item, saving each as soon as it is done."""

    async def one(item: Item) -> None:
        save(await score(bench, await _generate(bench, task, item, model), judge))

    # Each endpoint has its own requests in flight (--concurrency, -J concurrency=N). With
    # as many items under way as both together, the model answers the next items while the
    # judge weighs the last ones; with one set of slots for both, an item holding a slot
    # through its judgment keeps the model idle (a judge-bound run took 1.38x the ideal, now 1.13x).
    # An in-process engine (vLLM) batches what it is given itself: it is kept fed with its
    # `stream_window` of prompts, each next one sent as one is answered, never in chunks.
    judge_slots = judge.client.concurrency if judge.client is not None else 0
    await for_each(todo, max(concurrency, model.stream_window) + judge_slots, one)


def run(
    bench: Benchmark,
    *,
    task: str,
    model: Model,
    judge: Judge,
    out_dir: Path,
    data: str | None = None,
    limit: int | None = None,
    concurrency: int = 32,
    seed: int = 0,
    overwrite: bool = False,
    progress: Progress | None = None,
    budget: RequestBudget | None = None,
    prices: dict[str, dict[str, float]] | None = None,
    shard: tuple[int, int] | None = None,
) -> dict[str, Any]:
    """Generate and score every item not yet saved in `out_dir`, then write results.

    `shard` (i, n): only every n-th planned item from the i-th (shards.py); `geomeval merge`
    joins the n folders into the run made whole.

    `budget` caps the requests (or dollars, with `prices`) the model and judge send together:
    when it is spent the run stops like an unusable endpoint, with results written for what
    was done and the rest left to a rerun with a larger budget (`BudgetExhausted.results`)."""
    config = {
        "benchmark": bench.name,
        "task": task,
        "model": model.spec,
        "model_settings": model.settings,
        "judge": judge.spec,
        "data": data or "embedded-sample",
        "limit": limit,
        "seed": seed,
    }
    if bench.options:  # only benchmarks with run options record them (older run.json lack the key)
        config["options"] = bench.options
    if bench.prompts.describe():  # a --prompts file: its replaced texts, so score and resume use them
        config["prompts"] = bench.prompts.describe()
    if shard is not None:  # only a shard records it (an unsharded run's run.json has no key)
        config["shard"] = {"index": shard[0], "count": shard[1]}
    data_stamp = _data_stamp(bench, data)
    if not overwrite:
        finished = _finished_run(out_dir, config, data_stamp)
        if finished is not None:  # nothing to do: what the run wrote stands
            if _nothing_sent_this_time(finished):  # results.json says this invocation sent nothing
                write_results_json(finished, out_dir)
                _write_resume_state(out_dir, config, data_stamp)
            if progress:
                progress(finished["n_items"], finished["n_items"])
            return finished
    items = bench.load_items(data, task, limit)
    if shard is not None:
        items = shard_items(items, *shard)
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / RESUME_STATE).unlink(missing_ok=True)  # written again once this invocation finishes
    clients = _clients(model, judge)
    # without caps the run's spending is still kept, so a resume with --budget cost=... counts it
    spending = budget if budget is not None else RequestBudget(prices=prices)
    if spending.max_cost is not None:
        unpriced = sorted({c.model for c in clients.values() if c.model not in spending.prices})
        if unpriced:
            raise UsageError(f"--budget cost: the price table has no price for {', '.join(map(repr, unpriced))}; "
                             "add each model the run sends requests to (--budget prices=FILE)")
    for client in clients.values():
        client.budget = spending
    samples_path = out_dir / SAMPLES
    config_path = out_dir / RUN_CONFIG
    ids = item_ids(items)
    resuming = samples_path.exists() and not overwrite
    if resuming:
        previous = read_config(config_path) if config_path.exists() else {}
        differing = [k for k in RESUME_KEYS if previous.get(k) != config.get(k)]
        if differing:
            raise RunConflict(
                f"{out_dir} holds another run (differs in {', '.join(differing)}); "
                "use another --out or pass --overwrite"
            )
    elif samples_path.exists():
        samples_path.unlink()
    fingerprint = DataFingerprint(bench, data)  # hashed beside the run, not before it
    provenance = describe(bench, fingerprint, model, judge, seed)
    texts = prompt_texts(bench)
    if texts is not None:  # the full prompts, once per run (a resume with other ones is refused)
        _replace_whole(out_dir / PROMPTS, lambda handle: handle.write(
            json.dumps(texts, indent=2, ensure_ascii=False) + "\n"))
        provenance["prompt_texts"] = {"file": PROMPTS, "sha256": texts["sha256"]}
    config["provenance"] = provenance  # not a resume key
    if shard is not None:
        write_shard_ids(out_dir, shard[0], shard[1], ids)
    # what the summary reads of each written record, on disk beside the run (not in TMPDIR,
    # which may be memory), closed however the run ends
    spending.attach(out_dir, resuming=not overwrite, roles=clients)
    with KeptRecords(ids, folder=out_dir) as done:
        if resuming:
            _resume(bench, samples_path, done)
        _write_config(config_path, config)

        unfinished = 0  # records saved this time that a resume would redo
        todo = items.without(done.ids()) if isinstance(items, LazyItems) else [item for item in items if item.id not in done]
        if progress:
            progress(len(done), len(ids))
        with SampleWriter(samples_path) as sink:  # closed, everything written, before results

            def save(record: SampleRecord) -> None:
                nonlocal unfinished
                sink.write(record)  # queued: a thread writes it whole and flushes (a kill loses the
                # few still queued, which resuming redoes)
                unfinished += not bench.finished(record)
                done.add(bench.kept(record))
                if progress:
                    progress(len(done), len(ids))

            async def main() -> None:
                try:
                    await bench.prepare(todo, concurrency)
                    await _pipeline(bench, task, todo, model, judge, concurrency, save)
                finally:
                    await bench.aclose()
                    await model.aclose()
                    await judge.aclose()

            stopped: BudgetExhausted | None = None
            try:
                asyncio.run(main())
            except BudgetExhausted as exc:
                stopped = exc
            finally:
                spending.detach()
        provenance["data"] = fingerprint.result()
        _write_config(config_path, config)
        requests = {role: _every_invocation(client.usage(prices), spending.usage_totals(role))
                    for role, client in clients.items()}
        for role, used in requests.items():
            if prices and clients[role].model in prices:  # every invocation's, as the budget counts it
                used["cost_usd"] = spending.spent_by(role)
        extra: dict[str, Any] = {"requests": requests, "items_planned": len(ids)}
        if budget is not None or prices:
            extra["budget"] = spending.summary()
        if stopped is not None:
            stopped.args = (spending.stop_line() or str(stopped),)  # the totals once nothing is in flight
            extra["stopped"] = str(stopped)
        results = finalize(bench, done, config, out_dir, extra)  # the planned items' records, in order
        if stopped is not None:
            stopped.results = results  # type: ignore[attr-defined]
            raise stopped
        if not unfinished and len(done) == len(ids):
            _write_resume_state(out_dir, config, data_stamp)
        return results


def _every_invocation(used: dict[str, Any], totals: dict[str, int]) -> dict[str, Any]:
    """A client's usage (this invocation's) with its counts replaced by the run's totals over
    every invocation (the ledger's, `RequestBudget.usage_totals`); this invocation's own
    requests and tokens are kept apart under `this_invocation`."""
    counted = [name for name in totals if name in used]
    if not counted:
        return used
    return {**used, **{name: totals[name] for name in counted},
            "this_invocation": {name: used[name] for name in counted}}


def item_ids(items: Sequence[Item]) -> list[str]:
    """The items' ids in order; a lazy sequence reads only its id column."""
    return items.ids() if isinstance(items, LazyItems) else [item.id for item in items]


def _clients(model: Model, judge: Judge) -> dict[str, Any]:
    """The run's chat clients by role (an in-process or baseline model has none)."""
    found = {"model": getattr(model, "client", None), "judge": judge.client}
    return {role: client for role, client in found.items() if client is not None and hasattr(client, "usage")}


def plan(bench: Benchmark, *, task: str, model: Model, judge: Judge, out_dir: Path, data: str | None = None,
         limit: int | None = None, overwrite: bool = False, shard: tuple[int, int] | None = None) -> dict[str, Any]:
    """What `run` would do, sending nothing (`geomeval run --dry-run`): items already saved in
    `out_dir` (resumed), items left, and of those how many model requests the response cache
    would not answer. Judge requests depend on the model's answers (and on retries), so the
    plan gives the items a judge would score, and for a judge with a cache that is a floor on
    requests only when the model's answers are new."""
    items = bench.load_items(data, task, limit)
    if shard is not None:
        items = shard_items(items, *shard)
    samples_path = out_dir / SAMPLES
    done: set[str] = set()
    if samples_path.exists() and not overwrite:
        done = {r.id for r in iter_samples(samples_path) if bench.finished(r)}
    todo = items.without(done) if isinstance(items, LazyItems) else [item for item in items if item.id not in done]
    client = getattr(model, "client", None)
    model_requests: int | None = None
    if model.needs_messages and client is not None and hasattr(client, "key"):
        model_requests = 0
        for item in todo:
            messages = bench.messages(item, task)
            cached = client.cache is not None and client.cache.get_entry(client.key(messages, client.params))
            model_requests += not cached
    return {
        "benchmark": bench.name, "task": task, "items": len(items), "already_done": len(items) - len(todo),
        "to_do": len(todo), "model": model.spec,
        # None: an in-process or baseline model, which sends no HTTP requests
        "model_requests": model_requests,
        "model_cached": (len(todo) - model_requests) if model_requests is not None else None,
        "judge": judge.spec, "items_to_judge": 0 if judge.offline else len(todo),
    }


RESCORING = ".samples.rescoring.jsonl"
"""A rescore's output while it runs: the records rescored so far, in samples.jsonl's order.
It replaces samples.jsonl only once complete, so a killed rescore leaves the old file whole,
and the next `geomeval score` with the same judge carries on after its last complete line."""
RESCORING_STATE = ".rescoring.json"
"""What the partial rescore was made from (the judge, and samples.jsonl's size and time):
another judge, or samples.jsonl changed since (a resumed run), starts the rescore afresh."""


def rescore(
    out_dir: Path, judge: Judge, progress: Progress | None = None, concurrency: int = 32
) -> dict[str, Any]:
    """Score saved outputs again (e.g. with another judge) without regenerating.

    Records are read, scored and written a window at a time (twice `concurrency`, written in
    their order), and kept once written only as `aggregate` reads them (`Benchmark.kept`), as
    a run keeps them: memory does not grow with the items' responses, judge texts or images."""
    config_path = out_dir / RUN_CONFIG
    if not config_path.exists():
        raise FileNotFoundError(f"{config_path} not found: is {out_dir} a geomeval run folder?")
    config = read_config(config_path)
    bench = get_benchmark(config["benchmark"]).from_options(config.get("options") or {})
    bench = with_recorded_prompts(bench, config)
    samples_path = out_dir / SAMPLES
    total, last = _check_whole(samples_path)
    # what the summary reads of each rescored record, on disk beside the run, closed however it ends
    with KeptRecords(folder=out_dir) as records:
        _resumed_rescore(bench, out_dir, judge.spec, records)
        size = 2 * max(1, concurrency)

        async def main() -> None:
            window: deque[asyncio.Task[SampleRecord]] = deque()
            # whole lines only, on the disk before the file replaces samples.jsonl: a killed
            # rescore resumes after the last one
            with SampleWriter(out_dir / RESCORING, fsync=True) as sink:

                def save(record: SampleRecord) -> None:
                    sink.write(record)
                    records.add(bench.kept(record))
                    if progress:
                        progress(len(records), total)

                try:
                    for record in itertools.islice(_last_of_each_id(samples_path, last), len(records), None):
                        if len(window) >= size:
                            save(await window.popleft())
                        window.append(asyncio.create_task(score(bench, record, judge)))
                    while window:
                        save(await window.popleft())
                finally:
                    for task in window:
                        task.cancel()
                    await asyncio.gather(*window, return_exceptions=True)
                    await judge.aclose()

        if progress:
            progress(len(records), total)
        asyncio.run(main())
        config["judge"] = judge.spec
        config.setdefault("provenance", {})["rescored"] = {"at": now(), "judge": judge.spec}
        requests = {"judge": judge.client.usage()} if judge.client is not None and hasattr(judge.client, "usage") else {}
        # summarised before anything is replaced: a failure here leaves samples.jsonl, run.json
        # and results.json as they were, consistent (and the rescored records to resume from)
        results = summarize(bench, records, config, {"requests": requests})
        _replace_keeping_mode(out_dir / RESCORING, samples_path)  # atomic: the old file or the new one
        (out_dir / RESCORING_STATE).unlink(missing_ok=True)
        _write_config(config_path, config)
        return write_results(results, out_dir)


def _id_digest(item_id: str) -> int:
    """8 bytes standing for an id (`aggregate.digest`): what `_check_whole` holds per record."""
    return digest(item_id.encode("utf-8", "surrogatepass"))


def _check_whole(path: Path) -> tuple[int, dict[str, int]]:
    """The number of distinct items in samples.jsonl and, for each id written more than once
    (a resumed run's redone items), the number of its last record, read without keeping the
    records; a UsageError for a torn last line or a wrongly typed field before any judge is
    asked (rescoring would rewrite the file without it).

    Per record only an 8-byte digest of its id is held (a dict of every id cost about 110
    bytes an item: 11 MB at 100k items), repeats looked for a slice at a time
    (`aggregate.repeated`); ids whose digests meet are read again from the file and told
    apart by their text, so the answer is exact whatever the digests do."""
    digests = array("q", (_id_digest(record.id) for record in iter_samples(path, refuse_torn=True)))
    shared = repeated(digests)
    count = len(digests)
    del digests
    if not shared:
        return count, {}
    last: dict[str, int] = {}
    in_shared = 0
    for number, record in enumerate(iter_samples(path)):
        if _id_digest(record.id) in shared:
            last[record.id] = number
            in_shared += 1
    return count - in_shared + len(last), last


def _last_of_each_id(path: Path, last: dict[str, int]) -> Iterator[SampleRecord]:
    """samples.jsonl's records, an id written twice counted once: its last record, as a resumed
    run's redone item replaces the earlier one (`KeptRecords`); the earlier lines are left out
    of the rescored file. `last`: the number of the last record of each id written more than
    once (`_check_whole`); any other id is written once."""
    for number, record in enumerate(iter_samples(path)):
        if last.get(record.id, number) == number:
            yield record


def _samples_stamp(path: Path) -> dict[str, int]:
    stat = path.stat()
    return {"size": stat.st_size, "mtime_ns": stat.st_mtime_ns}


def _resumed_rescore(bench: Benchmark, out_dir: Path, judge_spec: str, kept: KeptRecords) -> None:
    """Keep (`Benchmark.kept`, into `kept`) the records an interrupted rescore of the same
    samples with the same judge wrote, its partial file cut after its last complete line; else
    none, the partial file emptied and the state recorded for this rescore."""
    partial, state_path = out_dir / RESCORING, out_dir / RESCORING_STATE
    state = {"judge": judge_spec, "samples": _samples_stamp(out_dir / SAMPLES)}
    try:
        previous = json.loads(state_path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        previous = None
    if previous == state and partial.exists():
        end = 0
        with partial.open("rb") as handle:
            for line in handle:
                try:
                    record = SampleRecord.from_dict(json.loads(line))
                except (json.JSONDecodeError, UnicodeDecodeError, RecordError):
                    break  # the line a kill cut short: it and anything after are redone
                if not line.endswith(b"\n"):
                    break
                kept.add(bench.kept(record))
                end += len(line)
        with partial.open("r+b") as handle:
            handle.truncate(end)
        return
    partial.write_bytes(b"")
    state_path.write_text(json.dumps(state) + "\n", encoding="utf-8")


def generation_usage(records: Iterable[SampleRecord], responded: Callable[[SampleRecord], bool]) -> dict[str, Any]:
    """How many answered (`succeeded`, by `Benchmark.responded`), the answers cut at max_tokens
    (scored as given, but worth knowing: raise -M max_tokens=N) and the tokens the model's server
    reported, summed over the answers that reported them: one walk of the records (each walk
    of a run's kept records reads them back from disk: 1.5 s at 100,000 items)."""
    usage: dict[str, int] = {}
    reported = truncated = succeeded = 0
    truncated_ids: list[str] = []
    for record in records:
        if responded(record):
            succeeded += 1
        if record.truncated:
            truncated += 1
            if len(truncated_ids) < 20:
                truncated_ids.append(record.id)
        counts = (record.generation_info or {}).get("usage")
        if isinstance(counts, dict):
            reported += 1
            for name, value in counts.items():
                if isinstance(value, int):
                    usage[name] = usage.get(name, 0) + value
    return {
        "succeeded": succeeded,
        "truncated": truncated,
        "truncated_ids": truncated_ids,
        "usage": {**usage, "answers_reporting": reported} if reported else None,
    }


def finalize(
    bench: Benchmark, records: Sequence[SampleRecord], config: dict[str, Any], out_dir: Path,
    extra: dict[str, Any] | None = None,
) -> dict[str, Any]:
    return write_results(summarize(bench, records, config, extra), out_dir)


def write_results(results: dict[str, Any], out_dir: Path) -> dict[str, Any]:
    """results.json and report.md for `results` (`summarize`)."""
    from .report import write_report

    write_results_json(results, out_dir)
    write_report(out_dir)
    return results


def write_results_json(results: dict[str, Any], out_dir: Path) -> None:
    (out_dir / RESULTS).write_text(json.dumps(results, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


def summarize(
    bench: Benchmark, records: Sequence[SampleRecord], config: dict[str, Any], extra: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """What results.json says of `records`, written nowhere yet."""
    summary = bench.aggregate(records)
    usage = generation_usage(records, bench.responded)
    generated = usage.pop("succeeded")
    results = {
        "benchmark": bench.name,
        "title": bench.title,
        "task": config["task"],
        "model": config["model"],
        "judge": config["judge"],
        "headline": bench.headline,
        "n_items": len(records),
        "generation": {
            "succeeded": generated,
            "failed": len(records) - generated,
            "coverage": generated / len(records) if records else 0.0,
            **usage,
        },
        **summary,
        **(extra or {}),
        "provenance": {**(config.get("provenance") or {}), "finished_at": now()},
        "config": config,
        "versions": versions(),
    }
    return results
