"""`geomeval score` and what samples.jsonl holds (issue 37, point 7): an id written twice is one
item (its last line, as a resumed run's redone item replaces the earlier one); a wrongly typed
field is one line naming the line, the item and the field, with nothing replaced; a failure
while summarising leaves samples.jsonl, run.json and results.json as they were."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from geomeval.core.errors import UsageError
from geomeval.engines.judges import parse_judge_spec
from geomeval.run.runner import rescore

ENV = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "GRADIO_ANALYTICS_ENABLED": "False"}


def geomeval(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "geomeval", *args], capture_output=True, text=True, env=ENV,
                          timeout=600)


@pytest.fixture(scope="module")
def first_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("run") / "geolaux"
    done = geomeval("run", "geolaux", "--model", "baseline:random", "--out", str(out), "--min-coverage", "0")
    assert done.returncode == 0, done.stderr
    return out


def copy_of(first_run: Path, tmp_path: Path) -> Path:
    out = tmp_path / "run"
    shutil.copytree(first_run, out)
    return out


def lines(run: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (run / "samples.jsonl").read_text(encoding="utf-8").splitlines()]


def write_lines(run: Path, records: list[dict[str, Any]]) -> None:
    (run / "samples.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")


def snapshot(run: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(run.iterdir()) if p.is_file()}


def test_an_id_written_twice_is_one_item_its_last_line(first_run: Path, tmp_path: Path) -> None:
    run = copy_of(first_run, tmp_path)
    records = lines(run)
    n = len(records)
    again = dict(records[3], response="B")  # the same id, answered again later in the file
    third = dict(records[3], response="C")
    write_lines(run, [*records, again, third])
    done = geomeval("score", str(run), "--min-coverage", "0")
    assert done.returncode == 0, done.stderr
    results = json.loads((run / "results.json").read_text(encoding="utf-8"))
    assert results["n_items"] == n  # 10 ids: 10 items, not 12
    rescored = lines(run)
    assert [r["id"] for r in rescored].count(records[3]["id"]) == 1 and len(rescored) == n
    kept = next(r for r in rescored if r["id"] == records[3]["id"])
    assert kept["response"] == "C"  # the last line of the id, deterministically
    assert [r["id"] for r in rescored] == [r["id"] for r in records if r["id"] != records[3]["id"]] + [records[3]["id"]]


@pytest.mark.parametrize("digest", ["real", "every id meets another"])
def test_ids_written_twice_are_told_apart_by_their_text_not_their_digest(
    first_run: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, digest: str
) -> None:
    """The rescore's check holds an 8-byte digest per id, not the ids: ids whose digests meet
    (forced here: two values for every id) are read again and told apart, so an id written
    twice is still one item, its last line, and distinct ids stay distinct."""
    from geomeval.run import runner

    if digest != "real":
        monkeypatch.setattr(runner, "_id_digest", lambda item_id: len(item_id) % 2)
    run = copy_of(first_run, tmp_path)
    records = lines(run)
    n = len(records)
    write_lines(run, [*records, dict(records[3], response="B"), dict(records[5], response="C")])
    results = rescore(run, parse_judge_spec("offline"))
    assert results["n_items"] == n
    rescored = lines(run)
    assert sorted(r["id"] for r in rescored) == sorted(r["id"] for r in records)
    by_id = {r["id"]: r["response"] for r in rescored}
    assert (by_id[records[3]["id"]], by_id[records[5]["id"]]) == ("B", "C")


MUTATIONS: dict[str, tuple[Callable[[dict[str, Any]], Any], str]] = {
    "target is text": (lambda r: r.update(target="x"), "'target': expected an object, got text"),
    "meta is a list": (lambda r: r.update(meta=[1]), "'meta': expected an object, got a list"),
    "a meta value is an object": (lambda r: r["meta"].update(type={"a": 1}), "'meta.type'"),
    "response is a number": (lambda r: r.update(response=5), "'response': expected text or null, got a number"),
    "scores is a list": (lambda r: r.update(scores=[1]), "'scores': expected an object or null, got a list"),
    "a score value is text": (lambda r: r["scores"]["ACS"].update(value="high"),
                              "'scores.ACS.value': expected a number or null, got text"),
    "task is a number": (lambda r: r.update(task=3), "'task': expected text, got a number"),
    "images is text": (lambda r: r.update(images="x"), "'images': expected an object or null, got text"),
    "benchmark is missing": (lambda r: r.pop("benchmark"), "'benchmark': missing"),
}


@pytest.mark.parametrize("mutation", list(MUTATIONS))
def test_a_wrongly_typed_field_is_one_line_and_nothing_is_replaced(first_run: Path, tmp_path: Path,
                                                                    mutation: str) -> None:
    run = copy_of(first_run, tmp_path)
    records = lines(run)
    change, says = MUTATIONS[mutation]
    change(records[3])
    write_lines(run, records)
    before = snapshot(run)
    done = geomeval("score", str(run), "--min-coverage", "0")
    said = (done.stdout + done.stderr).strip()
    assert done.returncode == 2 and "Traceback" not in said, said
    errors = [line for line in said.splitlines() if line.startswith("error:")]  # beside the progress bar
    assert len(errors) == 1, said
    assert f"samples.jsonl, line 4: item '{records[3]['id']}', field {says}" in errors[0], said
    assert errors[0].endswith("the file was left as it is")
    assert snapshot(run) == before  # samples.jsonl, run.json, results.json, report.md untouched, nothing added


def test_a_wrongly_typed_id_is_named_by_its_line(first_run: Path, tmp_path: Path) -> None:
    run = copy_of(first_run, tmp_path)
    records = lines(run)
    records[6]["id"] = {"a": 1}
    write_lines(run, records)
    before = snapshot(run)
    with pytest.raises(UsageError, match=r"samples\.jsonl, line 7: field 'id': expected text or a number, got an object"):
        rescore(run, parse_judge_spec("offline"))
    assert snapshot(run) == before


def test_a_failure_while_summarising_leaves_the_run_as_it_was(first_run: Path, tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """The summary is made before samples.jsonl, run.json and results.json are replaced."""
    from geomeval.benchmarks import get_benchmark

    run = copy_of(first_run, tmp_path)
    before = {name: data for name, data in snapshot(run).items() if not name.startswith(".")}

    def broken(self: Any, records: Any) -> Any:
        raise RuntimeError("summary failed")

    monkeypatch.setattr(type(get_benchmark("geolaux")), "aggregate", broken)
    with pytest.raises(RuntimeError, match="summary failed"):
        rescore(run, parse_judge_spec("offline"))
    after = {name: data for name, data in snapshot(run).items() if not name.startswith(".")}
    assert after == before
    monkeypatch.undo()
    results = rescore(run, parse_judge_spec("offline"))  # and the next rescore completes
    assert results["n_items"] == len(lines(run))
