"""Scale: records written cheaply and identically, builds streamed, runs holding a window of
items rather than the whole release (issue #22)."""

from __future__ import annotations

import dataclasses
import json
import shutil
import tracemalloc
from pathlib import Path

import pytest

from geomeval.benchmarks import get_benchmark
from geomeval.benchmarks.capgeo_bench import data as capgeo_bench_data
from geomeval.benchmarks.datasource import BuiltRows, LazyItems
from geomeval.benchmarks.geolaux import data as geolaux_data
from geomeval.benchmarks.ggbench import data as ggbench_data
from geomeval.benchmarks.me2 import data as me2_data
from geomeval.core.records import SampleRecord, Score
from geomeval.engines.hfdata import load_built, write_dataset
from geomeval.engines.judges import parse_judge_spec
from geomeval.engines.models import ModelOptions, parse_model_spec
from geomeval.run.runner import read_samples, run
from geomeval.testing.chat_server import ChatServer
from geomeval.testing.replicated import replicated_release


def reference_json(record: SampleRecord) -> str:
    """What to_json wrote before it stopped using dataclasses.asdict."""
    data = dataclasses.asdict(record)
    data["scores"] = {k: dataclasses.asdict(v) for k, v in record.scores.items()}
    return json.dumps(data, ensure_ascii=False, sort_keys=True)


def test_sample_lines_are_those_asdict_wrote() -> None:
    record = SampleRecord(
        id="zh_7", benchmark="geolaux", task="geolaux",
        target={"answer": "70", "choices": ["A.40°", "B.70°"], "unit": "°", "figure": "iVBORw0KGgo" + "A" * 50,
                "nested": {"steps": [{"text": "∠B = ∠C", "code": None}], "n": 2}},
        meta={"type": "calculation", "step_bucket": "1-2"},
        response="∵ AB = AC ∴ ∠B = 70°", generation_error=None,
        extracted={"answer": "70", "steps": ["1", "2"]}, judgment={"steps": [1, 0], "final_answer_correct": 1},
        scores={"ACS": Score(1.0, "matched", judge="decided"), "PCS": Score.judge_failed("timeout"),
                "PQS": Score.missing("no judge", needs_judge=True), "X": Score.inapplicable("n/a")},
        images={"steps": ["a.png"], "final": "b.png"},
        generation_info={"finish_reason": "length", "usage": {"prompt_tokens": 10}},
    )
    assert record.to_json() == reference_json(record)
    assert set(record.to_dict()) == {f.name for f in dataclasses.fields(SampleRecord)}  # no field forgotten
    # A real figure's length: spliced in rather than scanned, the same line either way; long
    # text that JSON escapes (quotes, newlines, DEL, non-ASCII) is still encoded as json does.
    from geomeval.core.jsontext import SPLICE_CHARS
    from geomeval.engines.images import base64_of

    record.target["figure"] = base64_of(bytes(range(256)) * 64)
    record.target["long_plain"] = "y" * SPLICE_CHARS
    record.target["long_escaped"] = ('say "x"\n\x7f' + "z" * 10) * 1000
    record.response = "∠B = 70° " * 1000
    assert len(record.target["figure"]) > SPLICE_CHARS
    assert record.to_json() == reference_json(record)
    assert json.loads(record.to_json())["target"]["long_escaped"] == record.target["long_escaped"]
    assert set(Score(1.0).to_dict()) == {f.name for f in dataclasses.fields(Score)}
    assert SampleRecord.from_dict(json.loads(record.to_json())).to_json() == record.to_json()


@pytest.mark.parametrize("source", [geolaux_data, ggbench_data, capgeo_bench_data, me2_data],
                         ids=["geolaux", "ggbench", "capgeo_bench", "me2"])
def test_streamed_build_gives_the_rows_an_in_memory_build_gives(source, tmp_path: Path) -> None:
    streamed = source.SOURCE.build(str(source.sample_path()), str(tmp_path / "streamed"), )
    dataset, _ = source.SOURCE.from_raw(source.sample_path())  # every row held, then written
    whole = write_dataset({"test": dataset}, tmp_path / "whole", source.SOURCE.render_card)
    assert streamed["splits"]["test"]["num_examples"] == whole["splits"]["test"]["num_examples"] > 0
    expected = list(source.undecoded(load_built(tmp_path / "whole")))
    assert list(source.undecoded(load_built(tmp_path / "streamed"))) == expected  # load_dataset reads it alike
    assert list(BuiltRows(BuiltRows.find(tmp_path / "streamed"))) == expected  # and so does the run's reader


def test_items_of_a_built_folder_are_made_lazily_and_alike(tmp_path: Path) -> None:
    built = tmp_path / "built"
    geolaux_data.build(str(replicated_release(150, tmp_path / "raw")), str(built))
    bench = get_benchmark("geolaux")
    items = bench.load_items(str(built), "geolaux", None)
    assert isinstance(items, LazyItems) and isinstance(items.rows, BuiltRows)
    eager = [bench.load_items(None, "geolaux", None)]  # the Dataset path still works
    assert len(eager[0]) == 10
    dataset = geolaux_data.undecoded(load_built(built))
    assert [(i.id, i.fields, i.choices) for i in items] == [
        (i.id, i.fields, i.choices) for i in LazyItems(dataset, items.make)]
    assert items.ids() == [f"r{i}" for i in range(150)]
    assert len(bench.load_items(str(built), "geolaux", 7)) == 7
    rest = items.without({"r0", "r5", "r149"})
    assert len(rest) == 147 and [i.id for i in rest][:5] == ["r1", "r2", "r3", "r4", "r6"]
    assert items[3].id == "r3" and [i.id for i in items[140:143]] == ["r140", "r141", "r142"]


def test_a_limit_opens_only_the_shards_it_needs_and_a_fresh_run_reads_no_ids_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`--limit 10` on a 100,000-item folder (200 shards) opened every shard twice over
    before the first request, for their sizes and their ids."""
    import pyarrow.parquet as pq

    built = tmp_path / "built"
    geolaux_data.build(str(replicated_release(150, tmp_path / "raw")), str(built))
    sharded = tmp_path / "sharded"
    (sharded / "data").mkdir(parents=True)
    shutil.copy(built / "README.md", sharded / "README.md")
    table = pq.read_table(next((built / "data").glob("*.parquet")))
    for number in range(3):
        pq.write_table(table.slice(50 * number, 50), sharded / "data" / f"test-{number:05d}-of-00003.parquet")
    opened: list[str] = []
    real = pq.ParquetFile

    def counted(source, *args, **kwargs):  # type: ignore[no-untyped-def]
        opened.append(Path(source).name)
        return real(source, *args, **kwargs)

    monkeypatch.setattr(pq, "ParquetFile", counted)
    items = get_benchmark("geolaux").load_items(str(sharded), "geolaux", 60)
    assert isinstance(items, LazyItems)
    assert items.ids() == [f"r{i}" for i in range(60)] and [i.id for i in items] == items.ids()
    assert "test-00002-of-00003.parquet" not in opened and "test-00001-of-00003.parquet" in opened
    opened.clear()
    assert items.without(set()) is items and not opened
    assert [i.id for i in items.without({"r0", "r59"})] == [f"r{i}" for i in range(1, 59)]
    whole = get_benchmark("geolaux").load_items(str(sharded), "geolaux", None)
    assert len(whole) == 150 and whole.ids()[-1] == "r149"


@pytest.mark.parametrize(("name", "task"), [("geoeval", "geoeval_aug"), ("me2", "me2_explain"), ("me2", "me2_solve")])
def test_geoeval_and_me2_items_of_a_built_folder_stream_with_the_fields_a_whole_read_gives(
    name: str, task: str, tmp_path: Path
) -> None:
    """GeoEval (complexity rated at build time) and ME2 make items as the run reaches them,
    with the same fields, choices and ids as reading the whole set first."""
    from geomeval.benchmarks.geoeval import data as geoeval_data
    from geomeval.benchmarks.me2 import data as me2_data

    source = {"geoeval": geoeval_data, "me2": me2_data}[name]
    built = tmp_path / "built"
    source.build(str(source.sample_path()), str(built))
    bench = get_benchmark(name)
    items = bench.load_items(str(built), task, None)
    assert isinstance(items, LazyItems) and isinstance(items.rows, BuiltRows)
    whole = bench.load_items(None, task, None)  # the embedded sample, read as a Dataset
    assert [(i.id, i.fields, i.choices) for i in items] == [(i.id, i.fields, i.choices) for i in whole]
    assert items.ids() == [i.id for i in whole] and len(bench.load_items(str(built), task, 2)) == 2


@pytest.mark.slow
def test_a_run_holds_a_window_of_items_not_the_release(tmp_path: Path) -> None:
    """What a run's peak Python memory grows by per item is a fraction of the item's figure:
    each item is read, posed, scored, written and let go (before, every item's image bytes
    and the base64 figure in its record were held to the end: 2.3x the figure).

    The peak also holds whatever garbage the collector has not reached yet, which depends on
    what ran before in the process, so the runs are 100 and 1,000 items apart (the noise is
    spread over 900 items) and each starts after a full collection."""
    import gc

    built = tmp_path / "built"
    geolaux_data.build(str(replicated_release(1000, tmp_path / "raw")), str(built))
    figure = sum(p.stat().st_size for p in (tmp_path / "raw" / "original_images").iterdir()) / 1000
    bench, judge = get_benchmark("geolaux"), parse_judge_spec("offline")
    run(bench, task="geolaux", model=parse_model_spec("baseline:random"), judge=judge, out_dir=tmp_path / "warm",
        data=str(built), limit=5)  # imports and caches outside the measurement
    peaks = {}
    for n in (100, 1000):
        gc.collect()
        tracemalloc.start()
        try:
            results = run(bench, task="geolaux", model=parse_model_spec("baseline:random"), judge=judge,
                          out_dir=tmp_path / f"out{n}", data=str(built), limit=n, concurrency=8)
            peaks[n] = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        assert results["n_items"] == n
    per_item = (peaks[1000] - peaks[100]) / 900
    assert per_item < 0.8 * figure, (peaks, figure)
    records = read_samples(tmp_path / "out1000" / "samples.jsonl")
    assert all(r.target["figure"] for r in records)  # the saved records keep their figures
    assert bench.aggregate(records)["metrics"] == results["metrics"]  # kept light, aggregated alike


def test_resuming_a_streamed_run_redoes_only_what_is_missing(tmp_path: Path) -> None:
    built = tmp_path / "built"
    geolaux_data.build(str(replicated_release(40, tmp_path / "raw")), str(built))
    bench, judge = get_benchmark("geolaux"), parse_judge_spec("offline")
    answer = json.dumps({"steps": ["1. by the figure"], "short_answer": "70"})
    with ChatServer(lambda request: answer) as server:
        model = parse_model_spec("openai:m", ModelOptions(base_url=server.base_url))
        full = run(bench, task="geolaux", model=model, judge=judge, out_dir=tmp_path / "full", data=str(built))
        lines = (tmp_path / "full" / "samples.jsonl").read_text(encoding="utf-8").splitlines()
        partial = tmp_path / "partial"
        partial.mkdir()
        (partial / "run.json").write_text((tmp_path / "full" / "run.json").read_text(encoding="utf-8"))
        shutil.copytree(tmp_path / "full" / "figures", partial / "figures")  # the judge's figures
        (partial / "samples.jsonl").write_text("\n".join(lines[:25]) + "\n" + lines[25][:30], encoding="utf-8")
        model = parse_model_spec("openai:m", ModelOptions(base_url=server.base_url))  # no cache: every item asks
        before = len(server.requests)
        resumed = run(bench, task="geolaux", model=model, judge=judge, out_dir=partial, data=str(built))
        assert len(server.requests) - before == 15
    ids = [json.loads(line)["id"] for line in (partial / "samples.jsonl").read_text(encoding="utf-8").splitlines()]
    assert sorted(ids) == sorted(f"r{i}" for i in range(40))
    assert resumed["metrics"] == full["metrics"] and resumed["n_items"] == 40


def test_an_interrupted_rescore_leaves_the_samples_whole_and_resumes_where_it_stopped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Rescoring writes beside samples.jsonl in its order and replaces it only when done: a
    rescore stopped by an unusable judge leaves the old file as it was, and the next one with
    the same judge scores only the records not yet written (another judge starts afresh)."""
    from geomeval.core.errors import EndpointFailure
    from geomeval.run import runner

    built = tmp_path / "built"
    geolaux_data.build(str(replicated_release(40, tmp_path / "raw")), str(built))
    bench, judge = get_benchmark("geolaux"), parse_judge_spec("offline")
    out = tmp_path / "out"
    full = run(bench, task="geolaux", model=parse_model_spec("baseline:random"), judge=judge, out_dir=out,
               data=str(built))
    before = (out / "samples.jsonl").read_bytes()
    real_score, scored = runner.score, []

    async def failing(bench, record, judge):  # the judge's endpoint goes down after 23 records
        if len(scored) == 23:
            raise EndpointFailure("judge down")
        scored.append(record.id)
        return await real_score(bench, record, judge)

    monkeypatch.setattr(runner, "score", failing)
    with pytest.raises(EndpointFailure):
        runner.rescore(out, parse_judge_spec("offline"), concurrency=2)
    assert (out / "samples.jsonl").read_bytes() == before
    partial = (out / runner.RESCORING).read_text(encoding="utf-8")
    assert 0 < partial.count("\n") <= 23
    (out / runner.RESCORING).write_text(partial + partial.splitlines()[0][:40], encoding="utf-8")  # a torn line
    written = partial.count("\n")
    counted: list[str] = []
    monkeypatch.setattr(runner, "score", lambda b, r, j: counted.append(r.id) or real_score(b, r, j))
    rescored = runner.rescore(out, parse_judge_spec("offline"))
    assert len(counted) == 40 - written  # only what the interrupted rescore had not written
    assert rescored["metrics"] == full["metrics"] and rescored["n_items"] == 40
    assert (out / "samples.jsonl").read_bytes() == before  # the same judge: the same lines, in order
    assert not (out / runner.RESCORING).exists() and not (out / runner.RESCORING_STATE).exists()


def _live_records_at_aggregation(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many more SampleRecord objects are alive when each run or rescore starts
    aggregating than when this was called (earlier tests in the process may hold some)."""
    import gc

    from geomeval.core.records import SampleRecord
    from geomeval.run import runner

    def alive() -> int:
        gc.collect()
        return sum(1 for o in gc.get_objects() if isinstance(o, SampleRecord))

    before = alive()
    counts: list[int] = []
    summarize = runner.summarize  # what a run (through finalize) and a rescore aggregate with

    def counting(bench, records, *args, **kwargs):
        counts.append(alive() - before)
        return summarize(bench, records, *args, **kwargs)

    monkeypatch.setattr(runner, "summarize", counting)
    return counts


@pytest.mark.slow
def test_a_run_and_a_rescore_aggregate_from_disk_not_from_records_held(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The copy of each record a summary reads waits on disk (keptrecords.py), read back one at
    a time: when 300 items are aggregated, no more records are alive than are in flight (before,
    one kept copy per item: about 1.2 KB each, the most of a 100k-item run's memory)."""
    from geomeval.run.runner import rescore

    built = tmp_path / "built"
    geolaux_data.build(str(replicated_release(300, tmp_path / "raw")), str(built))
    bench, judge = get_benchmark("geolaux"), parse_judge_spec("offline")
    counts = _live_records_at_aggregation(monkeypatch)
    results = run(bench, task="geolaux", model=parse_model_spec("baseline:random"), judge=judge,
                  out_dir=tmp_path / "out", data=str(built))
    rescored = rescore(tmp_path / "out", parse_judge_spec("offline"))
    assert results["n_items"] == rescored["n_items"] == 300 and rescored["metrics"] == results["metrics"]
    assert len(counts) == 2 and max(counts) < 10, counts


@pytest.mark.slow
def test_a_rescore_holds_a_window_of_records_not_the_file(tmp_path: Path) -> None:
    """What a rescore's peak Python memory grows by per record is a fraction of its figure
    (each record is read, scored, written and kept without its figure), as for a run."""
    import gc

    from geomeval.run.runner import rescore

    built = tmp_path / "built"
    geolaux_data.build(str(replicated_release(1000, tmp_path / "raw")), str(built))
    figure = sum(p.stat().st_size for p in (tmp_path / "raw" / "original_images").iterdir()) / 1000
    bench, judge = get_benchmark("geolaux"), parse_judge_spec("offline")
    for n in (100, 1000):
        run(bench, task="geolaux", model=parse_model_spec("baseline:random"), judge=judge, out_dir=tmp_path / f"out{n}",
            data=str(built), limit=n)
    rescore(tmp_path / "out100", judge)  # imports and caches outside the measurement
    peaks = {}
    for n in (100, 1000):
        gc.collect()
        tracemalloc.start()
        try:
            results = rescore(tmp_path / f"out{n}", parse_judge_spec("offline"), concurrency=8)
            peaks[n] = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        assert results["n_items"] == n
    per_item = (peaks[1000] - peaks[100]) / 900
    assert per_item < 0.8 * figure, (peaks, figure)


@pytest.mark.parametrize(("name", "task"), [("geolaux", "geolaux"), ("ggbench", "ggbench_code"),
                                            ("capgeo_bench", "capgeo_bench_zh"), ("me2", "me2_solve")])
def test_items_of_a_raw_release_stream_as_those_of_its_built_folder(name: str, task: str, tmp_path: Path) -> None:
    """A raw release is read once into temporary shards, a row at a time, and its items made
    as the run reaches them (not every row and image held): the items its build gives, and
    the shards go with the items."""
    import gc

    source = {"geolaux": geolaux_data, "ggbench": ggbench_data, "capgeo_bench": capgeo_bench_data,
              "me2": me2_data}[name]
    raw = tmp_path / "raw"
    shutil.copytree(source.sample_path(), raw)  # a path of its own: --data given, not the sample
    source.build(str(raw), str(tmp_path / "built"))
    bench = get_benchmark(name)
    items = bench.load_items(str(raw), task, None)
    assert isinstance(items, LazyItems) and isinstance(items.rows, BuiltRows)
    built = bench.load_items(str(tmp_path / "built"), task, None)
    assert [(i.id, i.fields, i.choices) for i in items] == [(i.id, i.fields, i.choices) for i in built]
    assert len(bench.load_items(str(raw), task, 2)) == 2
    assert [i.id for i in items.without({built[0].id})] == [i.id for i in built][1:]
    folder = items.rows.files[0].parent
    assert folder.is_dir()
    del items
    gc.collect()
    assert not folder.exists()


@pytest.mark.slow
def test_the_rescore_id_check_and_the_summary_hold_a_few_bytes_per_item(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What grows per item while a rescore checks samples.jsonl's ids and while records are
    summarised is an 8-byte digest and the tallies' 16 bytes a value: no table of every id
    (before, about 110 bytes an item in the check and 300 in the summary: 41 MB at 100k
    items). The slices repeats are looked for in are made small so that 20k items span many."""
    from geomeval.engines import aggregate
    from geomeval.run import runner

    monkeypatch.setattr(aggregate, "SLICE", 1024)

    def record(i: int) -> SampleRecord:
        return SampleRecord(id=f"geolaux/{i:07d}", benchmark="geolaux", task="geolaux", target={}, meta={},
                            scores={"ACS": Score(float(i % 3 == 0))})

    def records(n: int):
        return (record(i) for i in range(n))

    peaks: dict[str, dict[int, int]] = {"check": {}, "summary": {}}
    for n in (2000, 20000):
        path = tmp_path / f"samples-{n}.jsonl"
        path.write_text("".join(r.to_json() + "\n" for r in records(n)), encoding="utf-8")
        tracemalloc.start()
        try:
            assert runner._check_whole(path) == (n, {})
            peaks["check"][n] = tracemalloc.get_traced_memory()[1]
            tracemalloc.reset_peak()
            summary = aggregate.summarize(records(n), ["ACS"])
            peaks["summary"][n] = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        assert summary["metrics"]["ACS"]["scored"] == n and summary["metrics"]["ACS"]["ci_method"] == "wilson"
    per_item = {name: (found[20000] - found[2000]) / 18000 for name, found in peaks.items()}
    assert per_item["check"] < 40 and per_item["summary"] < 60, per_item
