"""Resuming reads what it needs (issue 43, point 5; bench/resume_cost.py measures the CPU):
a finished run rerun as it was reads no record and no item; a changed folder or other data
resumes the usual way; a resume that drops nothing leaves samples.jsonl as it is."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from geomeval.benchmarks import get_benchmark
from geomeval.core.records import SampleRecord
from geomeval.engines.judges import parse_judge_spec
from geomeval.engines.models import parse_model_spec
from geomeval.run import runner


def go(out: Path, spec: str = "baseline:random", **kwargs) -> dict:  # type: ignore[no-untyped-def]
    return runner.run(get_benchmark("geolaux"), task="geolaux", model=parse_model_spec(spec),
                      judge=parse_judge_spec("offline"), out_dir=out, **kwargs)


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    """How many records were decoded and how many times items were loaded."""
    counts = {"records": 0, "loads": 0}
    decode, load = SampleRecord.from_dict, type(get_benchmark("geolaux")).load_items

    def counting_decode(data):  # type: ignore[no-untyped-def]
        counts["records"] += 1
        return decode(data)

    def counting_load(self, *args):  # type: ignore[no-untyped-def]
        counts["loads"] += 1
        return load(self, *args)

    monkeypatch.setattr(SampleRecord, "from_dict", staticmethod(counting_decode))
    monkeypatch.setattr(type(get_benchmark("geolaux")), "load_items", counting_load)
    return counts


def test_a_finished_run_rerun_reads_no_record_and_no_item(tmp_path: Path, counted: dict[str, int]) -> None:
    first = go(tmp_path)
    samples = (tmp_path / "samples.jsonl").read_bytes()
    counted.update(records=0, loads=0)
    again = go(tmp_path)
    assert counted == {"records": 0, "loads": 0}
    assert again == first and (tmp_path / "samples.jsonl").read_bytes() == samples


@pytest.mark.parametrize("change", ["samples", "limit", "data"])
def test_a_changed_finished_run_resumes_the_usual_way(tmp_path: Path, counted: dict[str, int], change: str) -> None:
    data = tmp_path / "data"
    if change == "data":  # a local copy of the embedded sample, then one of its files touched
        import shutil

        shutil.copytree(Path(get_benchmark("geolaux").embedded()), data)
    kwargs = {"data": str(data)} if change == "data" else {}
    out = tmp_path / "run"
    first = go(out, **kwargs)
    if change == "samples":  # a line dropped by hand: the item is redone
        lines = (out / "samples.jsonl").read_text(encoding="utf-8").splitlines(keepends=True)
        (out / "samples.jsonl").write_text("".join(lines[1:]), encoding="utf-8")
    if change == "data":
        victim = next(p for p in sorted(data.rglob("*")) if p.is_file())
        victim.write_bytes(victim.read_bytes())
        import os

        os.utime(victim, ns=(victim.stat().st_atime_ns, victim.stat().st_mtime_ns + 10**9))
    counted.update(records=0, loads=0)
    again = go(out, **({"limit": 3} if change == "limit" else kwargs))
    assert counted["loads"] == 1 and counted["records"] > 0
    if change == "limit":
        assert again["n_items"] == 3
    else:
        assert again["metrics"] == first["metrics"]
        ids = [json.loads(line)["id"] for line in (out / "samples.jsonl").read_text().splitlines()]
        assert sorted(ids) == sorted(set(ids)) and len(ids) == first["n_items"]


def test_a_resume_that_drops_nothing_leaves_the_samples_as_they_are(tmp_path: Path) -> None:
    go(tmp_path)
    (tmp_path / ".finished.json").unlink()  # as a folder written before the state existed
    before = (tmp_path / "samples.jsonl").stat()
    go(tmp_path)
    after = (tmp_path / "samples.jsonl").stat()
    assert (after.st_ino, after.st_mtime_ns, after.st_size) == (before.st_ino, before.st_mtime_ns, before.st_size)


def test_a_resume_drops_failures_and_keeps_the_other_lines_byte_for_byte(tmp_path: Path) -> None:
    go(tmp_path)
    lines = (tmp_path / "samples.jsonl").read_bytes().splitlines(keepends=True)
    failed = json.loads(lines[2])
    failed.update(response=None, generation_error="HTTP 500")
    # keys reordered and spaced as no serialiser of ours writes them: kept lines are not rewritten
    odd = json.dumps(json.loads(lines[0]), indent=None, separators=(", ", ": "), sort_keys=True).encode() + b"\n"
    (tmp_path / "samples.jsonl").write_bytes(odd + lines[1] + json.dumps(failed).encode() + b"\n" + b"".join(lines[3:]))
    (tmp_path / ".finished.json").unlink(missing_ok=True)
    go(tmp_path)
    now = (tmp_path / "samples.jsonl").read_bytes().splitlines(keepends=True)
    assert now[:2] == [odd, lines[1]] and now[2:len(lines) - 1] == lines[3:]
    assert json.loads(now[-1])["id"] == failed["id"] and json.loads(now[-1])["generation_error"] is None


def test_other_code_resumes_the_usual_way(tmp_path: Path, counted: dict[str, int],
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """An upgraded geomeval may summarise the same records otherwise: results.json is made again."""
    go(tmp_path)
    monkeypatch.setattr(runner, "_code_stamp", lambda: "another version")
    counted.update(records=0, loads=0)
    go(tmp_path)
    assert counted["loads"] == 1 and counted["records"] > 0
