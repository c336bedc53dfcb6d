"""`geomeval run --shard i/n` and `geomeval merge`: shards of one run joined into the folder
the run makes unsharded."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from geomeval.benchmarks import get_benchmark
from geomeval.core.errors import UsageError
from geomeval.engines.judges import parse_judge_spec
from geomeval.engines.models import ModelOptions, parse_model_spec
from geomeval.run.runner import RunConflict, run
from geomeval.run.shards import merge, parse_shard
from geomeval.testing.chat_server import ChatServer, prompt_text

ANSWERS = {"∠A = 40°": "B", "distance from point C": "\\frac{12}{5}", "diameter of circle O": "7",
           "regular hexagon": "3√3", "OA的长为": "A"}  # some right, some wrong


def oracle(request: dict) -> str:
    text = prompt_text(request)
    answer = next((a for phrase, a in ANSWERS.items() if phrase in text), "no idea")
    return json.dumps({"steps": ["1. by the figure"], "short_answer": answer})


def comparable(results: dict) -> dict:
    """results.json without what differs from one invocation to the next (times, paths)."""
    kept = {k: v for k, v in results.items() if k not in ("provenance", "config")}
    config = {k: v for k, v in results["config"].items() if k != "provenance"}
    return {**kept, "config": config}


def samples_by_id(folder: Path) -> dict[str, str]:
    lines = (folder / "samples.jsonl").read_text(encoding="utf-8").splitlines()
    return {json.loads(line)["id"]: line for line in lines}


def test_four_shards_merge_into_the_run_made_whole(tmp_path: Path) -> None:
    bench, judge = get_benchmark("geolaux"), parse_judge_spec("offline")
    with ChatServer(oracle) as server:
        def model():  # type: ignore[no-untyped-def]
            return parse_model_spec("openai:m", ModelOptions(base_url=server.base_url, cache=None))

        whole = run(bench, task="geolaux", model=model(), judge=judge, out_dir=tmp_path / "whole")
        asked_whole = len(server.requests)
        for i in range(1, 5):
            part = run(bench, task="geolaux", model=model(), judge=judge, out_dir=tmp_path / f"s{i}", shard=(i, 4))
            assert part["items_planned"] == len(range(i - 1, whole["n_items"], 4))
        assert len(server.requests) == 2 * asked_whole  # each item asked once across the shards
    shard_ids = [set(samples_by_id(tmp_path / f"s{i}")) for i in range(1, 5)]
    assert sum(map(len, shard_ids)) == whole["n_items"] and len(set().union(*shard_ids)) == whole["n_items"]

    merged = merge([tmp_path / f"s{i}" for i in (3, 1, 4, 2)], tmp_path / "merged")  # any order
    assert comparable(merged) == comparable(whole)
    assert 0 < whole["metrics"]["ACS"]["value"] < 1  # right and wrong answers both counted
    assert json.loads((tmp_path / "merged" / "results.json").read_text()) == json.loads(
        json.dumps(merged, ensure_ascii=False))
    assert samples_by_id(tmp_path / "merged") == samples_by_id(tmp_path / "whole")
    # in the run's planned order, as the summary reads them
    planned = bench.load_items(None, "geolaux", None)
    assert list(samples_by_id(tmp_path / "merged")) == [item.id for item in planned]
    report = (tmp_path / "merged" / "report.md").read_text(encoding="utf-8")
    assert "ACS" in report and (tmp_path / "merged" / "plots").is_dir()
    merged_config = json.loads((tmp_path / "merged" / "run.json").read_text())
    assert "shard" not in merged_config and len(merged_config["provenance"]["merged"]["shards"]) == 4


def test_a_shard_folder_holding_another_slice_is_refused(tmp_path: Path) -> None:
    bench, judge, model = get_benchmark("geolaux"), parse_judge_spec("offline"), parse_model_spec("baseline:random")
    run(bench, task="geolaux", model=model, judge=judge, out_dir=tmp_path, shard=(1, 3))
    with pytest.raises(RunConflict, match="shard"):
        run(bench, task="geolaux", model=model, judge=judge, out_dir=tmp_path, shard=(2, 3))


def test_merge_refuses_missing_unfinished_or_foreign_shards(tmp_path: Path) -> None:
    bench, judge = get_benchmark("geolaux"), parse_judge_spec("offline")
    for i in (1, 2):
        run(bench, task="geolaux", model=parse_model_spec("baseline:random"), judge=judge,
            out_dir=tmp_path / f"s{i}", shard=(i, 2))
    with pytest.raises(UsageError, match="shard 2 of 2 not given"):
        merge([tmp_path / "s1"], tmp_path / "m")
    run(bench, task="geolaux", model=parse_model_spec("baseline:empty"), judge=judge,
        out_dir=tmp_path / "other", shard=(2, 2))
    with pytest.raises(UsageError, match="differs in model"):
        merge([tmp_path / "s1", tmp_path / "other"], tmp_path / "m")
    lines = (tmp_path / "s2" / "samples.jsonl").read_text().splitlines()
    (tmp_path / "s2" / "samples.jsonl").write_text("\n".join(lines[:-1]) + "\n")  # an item lost
    with pytest.raises(UsageError, match="no sample"):
        merge([tmp_path / "s1", tmp_path / "s2"], tmp_path / "m")
    with pytest.raises(UsageError, match="not a shard"):
        run(bench, task="geolaux", model=parse_model_spec("baseline:random"), judge=judge, out_dir=tmp_path / "u")
        merge([tmp_path / "s1", tmp_path / "u"], tmp_path / "m")


@pytest.mark.parametrize("text", ["0/4", "5/4", "2", "a/b", "1/0"])
def test_a_bad_shard_says_the_form(text: str) -> None:
    with pytest.raises(UsageError, match="i/n"):
        parse_shard(text)


@pytest.mark.slow
def test_cli_shards_and_merge(tmp_path: Path) -> None:
    def cli(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "geomeval.cli", *args], capture_output=True, text=True,
                              timeout=300)

    for i in (1, 2):
        done = cli("run", "ggbench", "--model", "baseline:empty", "--shard", f"{i}/2", "--out", str(tmp_path / f"s{i}"),
                   "--min-coverage", "0")
        assert done.returncode == 0, done.stderr
    merged = cli("merge", str(tmp_path / "s2"), str(tmp_path / "s1"), "--out", str(tmp_path / "m"), "--min-coverage", "0")
    assert merged.returncode == 0, merged.stderr
    whole = cli("run", "ggbench", "--model", "baseline:empty", "--out", str(tmp_path / "w"), "--min-coverage", "0")
    assert whole.returncode == 0, whole.stderr
    assert samples_by_id(tmp_path / "m") == samples_by_id(tmp_path / "w")
    assert comparable(json.loads((tmp_path / "m" / "results.json").read_text())) == comparable(
        json.loads((tmp_path / "w" / "results.json").read_text()))
    bad = cli("run", "ggbench", "--model", "baseline:empty", "--shard", "3/2", "--out", str(tmp_path / "x"))
    assert bad.returncode == 2 and "i/n" in bad.stderr
