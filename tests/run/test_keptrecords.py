"""The kept copies of a run's records live on disk (keptrecords.py), and its summary walks them
without holding them: what a run and a rescore rely on for memory flat in the items (#22)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from geomeval.benchmarks import get_benchmark
from geomeval.benchmarks.geolaux.scoring import analysis
from geomeval.core.records import SampleRecord, Score
from geomeval.engines.aggregate import Breakdown, metric_summary, summarize
from geomeval.run.keptrecords import KeptRecords


def _record(item_id: str, value: float | None, **meta: object) -> SampleRecord:
    score = Score(value) if value is not None else Score.missing("the judge failed")
    return SampleRecord(id=item_id, benchmark="b", task="t", target={}, meta=dict(meta), response="",
                        scores={"acc": score})


def test_a_runs_kept_records_come_back_in_the_planned_order_one_per_id() -> None:
    with KeptRecords(["a", "b", "c", "d"]) as kept:
        kept.add(_record("c", 1.0))
        kept.add(_record("a", 0.0))
        kept.add(_record("zz", 1.0))  # not planned (a smaller --limit on resume): not kept
        kept.add(_record("a", 1.0))  # redone after a resume: replaces the first
        assert len(kept) == 2
        assert "a" in kept and "c" in kept and "b" not in kept and "zz" not in kept
        assert list(kept.ids()) == ["a", "c"]
        assert [(r.id, r.scores["acc"].value) for r in kept] == [("a", 1.0), ("c", 1.0)]
        assert kept[1].id == "c" and kept[-1].id == "c" and [r.id for r in kept[:1]] == ["a"]
        kept.add(_record("b", None))
        assert [r.id for r in kept] == ["a", "b", "c"] and kept[1].scores["acc"].unscored == "the judge failed"


def test_a_rescores_kept_records_come_back_in_the_order_added() -> None:
    with KeptRecords() as kept:
        for item_id in ("q", "p", "q"):
            kept.add(_record(item_id, 1.0, group="x"))
        assert [r.id for r in kept] == ["q", "p", "q"] and len(kept) == 3
        assert kept[2].meta == {"group": "x"}


def test_kept_records_round_trip_what_a_summary_reads() -> None:
    record = SampleRecord(
        id="r1", benchmark="geolaux", task="geolaux", target={}, meta={"type": "proving", "step_bucket": "1-4"},
        response="", generation_error=None, judgment={"marks": [1, 0], "final_answer_correct": 0},
        scores={"ACS": Score(0.0, judge="decided"), "PCS": Score(0.5, judge="decided"),
                "PQS": Score(None, unscored="no", needs_judge=True)},
        generation_info={"finish_reason": "length", "usage": {"completion_tokens": 900}},
    )
    with KeptRecords(["r1"]) as kept:
        kept.add(record)
        assert kept[0] == record


def test_nothing_is_left_on_disk(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The file is unlinked when made: a run killed at any point leaves nothing behind."""
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    kept = KeptRecords(["a"])
    kept.add(_record("a", 1.0))
    assert os.listdir(tmp_path) == []
    kept.close()
    run_folder = tmp_path / "run"  # a run's go beside it (TMPDIR may be memory)
    run_folder.mkdir()
    with KeptRecords(["a"], folder=run_folder) as kept:
        kept.add(_record("a", 1.0))
        kept._flush()
        assert os.listdir(run_folder) == [] and kept[0].id == "a"


def _once(records: list[SampleRecord]) -> Iterator[SampleRecord]:
    yield from records  # a second walk finds nothing: a summary that walks twice goes wrong


def test_a_summary_walks_the_records_once_and_gives_what_the_records_give() -> None:
    records = [_record(f"i{i}", float(i % 3 == 0), kind=("even" if i % 2 == 0 else "odd"),
                       cluster=f"c{i // 2}") for i in range(40)]
    records += [_record("u1", None, kind="odd"), _record("u2", None)]
    breakdowns = (Breakdown("kind", order=("odd", "even")),)
    walked_once = summarize(_once(records), ["acc"], breakdowns=breakdowns)
    assert walked_once == summarize(records, ["acc"], breakdowns=breakdowns)
    overall = walked_once["metrics"]["acc"]
    assert overall == metric_summary(records, "acc")
    assert (overall["scored"], overall["total"], overall["unscored_reasons"]) == (40, 42, {"the judge failed": 2})
    assert overall["value"] == pytest.approx(14 / 40)
    assert overall["ci_method"] == "clustered normal" and overall["clusters"] == 20  # pairs share a cluster
    assert list(walked_once["breakdowns"]["kind"]) == ["odd", "even"]
    assert walked_once["breakdowns"]["kind"]["odd"]["acc"]["total"] == 21


def test_geolaux_analysis_walks_the_records_once() -> None:
    bench = get_benchmark("geolaux")
    judged = []
    for i in range(14):
        marks = [1, 0, 1] if i % 2 else [1, 1]
        judged.append(SampleRecord(
            id=f"g{i}", benchmark="geolaux", task="geolaux", target={}, response="",
            meta={"type": "calculation", "step_bucket": "1-4"},
            judgment={"marks": marks, "final_answer_correct": i % 2, "first_error_step": 2 if i % 2 else None,
                      "error_type": None, "error_type_error": f"refused {i}", "step_error_types": None},
            scores={m: Score(0.5) for m in ("ACS", "PCS", "PQS")},
        ))
    assert analysis(_once(judged)) == analysis(judged)
    # the first five reasons in sorted order, of the seven
    assert analysis(judged)["error_types"]["unclassified_reasons"] == [f"refused {i}" for i in (1, 11, 13, 3, 5)]
    with KeptRecords([r.id for r in judged]) as kept:
        for record in judged:
            kept.add(bench.kept(record))
        assert bench.aggregate(kept) == bench.aggregate([bench.kept(r) for r in judged])


def test_records_written_in_several_batches_come_back_whole_and_in_order() -> None:
    """Lines are gathered and written a batch at a time (`FLUSH_BYTES`): reading back in the
    middle of a run, and after batches, finds every record whole."""
    from geomeval.run.keptrecords import FLUSH_BYTES

    planned = [f"i{i}" for i in range(3000)]
    with KeptRecords(planned) as kept:
        for i in reversed(range(3000)):
            kept.add(_record(f"i{i}", float(i), pad="x" * 200))
            if i == 2990:
                assert [r.id for r in kept] == [f"i{j}" for j in range(2990, 3000)]  # not yet written
        assert 2 * FLUSH_BYTES < 3000 * 200
        assert [r.scores["acc"].value for r in kept] == [float(i) for i in range(3000)]
        assert kept[1234].meta["pad"] == "x" * 200


def test_the_generation_counts_come_from_one_walk(tmp_path: Path) -> None:
    """finalize's answered count and token sums are one walk of the kept records (each walk
    reads them all back from disk): they are what separate counts over a list give."""
    from geomeval.run.runner import finalize, generation_usage

    bench = get_benchmark("geolaux")
    records = []
    for i in range(9):
        failed = i % 3 == 0
        records.append(SampleRecord(
            id=f"g{i}", benchmark="geolaux", task="geolaux", target={}, meta={"type": "calculation"},
            response=None if failed else "x", generation_error="HTTP 500" if failed else None,
            generation_info={"usage": {"prompt_tokens": 10 + i, "completion_tokens": 2},
                             "finish_reason": "length" if i == 4 else "stop"},
            scores={m: Score.missing("no answer") if failed else Score(1.0) for m in ("ACS", "PCS", "PQS")},
        ))
    walks = 0

    class Counted(list):  # type: ignore[type-arg]
        def __iter__(self):  # type: ignore[no-untyped-def]
            nonlocal walks
            walks += 1
            return super().__iter__()

    usage = generation_usage(_once(records), bench.responded)
    assert usage == generation_usage(records, bench.responded) and usage["succeeded"] == 6
    assert usage["truncated_ids"] == ["g4"] and usage["usage"]["prompt_tokens"] == sum(10 + i for i in range(9))
    bench.aggregate(Counted(records))
    aggregate_walks, walks = walks, 0
    results = finalize(bench, Counted(records), {"task": "geolaux", "model": "m", "judge": "offline", "data": "embedded-sample"},
                       tmp_path)
    assert walks == aggregate_walks + 1
    assert results["generation"]["succeeded"] == 6 and results["generation"]["failed"] == 3
    assert results["generation"]["truncated_ids"] == ["g4"] and "succeeded" not in results


def test_a_small_runs_records_are_decoded_by_the_first_walk_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """A summary walks the kept records several times: below `MEMO_BYTES` of lines the first
    whole walk's records serve the next walks (and indexing); a record added after it is in
    the next walk; above the bound every walk decodes again (memory flat in the items)."""
    from geomeval.run import keptrecords

    decoded = 0
    real = SampleRecord.from_dict

    def counted(data: dict[str, object]) -> SampleRecord:
        nonlocal decoded
        decoded += 1
        return real(data)

    monkeypatch.setattr(SampleRecord, "from_dict", staticmethod(counted))
    planned = [f"i{i}" for i in range(50)]
    with KeptRecords(planned) as kept:
        for item_id in planned[:40]:
            kept.add(_record(item_id, 1.0))
        walk = iter(kept)
        next(walk)
        walk.close()  # a walk left part way holds nothing
        assert decoded == 1
        first = [r.id for r in kept]
        assert decoded == 41
        assert [r.id for r in kept] == first and [r.id for r in kept[2:4]] == ["i2", "i3"] and kept[-1].id == "i39"
        assert decoded == 41
        kept.add(_record("i45", 0.0))
        assert [r.id for r in kept][-1] == "i45" and kept[-1].scores["acc"].value == 0.0
        assert decoded == 41 + 41  # the walk after the add decoded all 41 again; the index read what it held
    decoded = 0
    monkeypatch.setattr(keptrecords, "MEMO_BYTES", 100)
    with KeptRecords(planned) as kept:
        for item_id in planned:
            kept.add(_record(item_id, 1.0))
        assert len(list(kept)) == len(list(kept)) == 50 and decoded == 100
