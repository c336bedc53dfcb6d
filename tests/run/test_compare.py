"""`geomeval compare A B`: the difference, its interval and a paired test, on the items both runs scored."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from scipy import stats as sp
from test_run import GOLD, cli, oracle

from geomeval.benchmarks import get_benchmark
from geomeval.engines.judges import parse_judge_spec
from geomeval.engines.models import ModelOptions, parse_model_spec
from geomeval.run.compare import compare_runs
from geomeval.run.runner import run
from geomeval.testing.chat_server import ChatServer


@pytest.fixture(scope="module")
def two_runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("compare")
    judge = parse_judge_spec("offline")
    run(get_benchmark("geolaux"), task="geolaux", model=parse_model_spec("baseline:empty"), judge=judge,
        out_dir=root / "a")
    with ChatServer(oracle) as server:
        model = parse_model_spec("openai:m", ModelOptions(base_url=server.base_url))
        run(get_benchmark("geolaux"), task="geolaux", model=model, judge=judge, out_dir=root / "b")
    return root / "a", root / "b"


def test_compare_gives_mcnemar_on_the_items_both_runs_scored(two_runs: tuple[Path, Path]) -> None:
    result = compare_runs(*two_runs)
    cell = result["groups"]["all"]["ACS"]
    right = len(GOLD)  # the oracle answers every item with a gold answer; the empty model none
    assert cell["paired"] == right and cell["delta"] == pytest.approx(1.0)
    assert cell["test"] == "mcnemar exact"
    assert (cell["only_A_right"], cell["only_B_right"]) == (0, right)
    assert cell["p_value"] == pytest.approx(sp.binomtest(0, right, 0.5).pvalue)  # 2 / 2^7
    assert cell["ci"] == [1.0, 1.0]
    assert result["common_items"] == 10 and result["groups"]["all"]["PCS"]["paired"] == 0
    # Per breakdown cell too, each over its own paired items
    cells = {k: v["ACS"] for k, v in result["groups"].items() if k != "all"}
    assert sum(c["paired"] for c in cells.values()) == right
    assert all(c["p_value"] == pytest.approx(sp.binomtest(0, c["paired"], 0.5).pvalue)
               for c in cells.values() if c["paired"])


def test_compare_pairs_only_items_scored_in_both(two_runs: tuple[Path, Path], tmp_path: Path) -> None:
    a, b = two_runs
    # Drop two scored items from B's samples: the comparison says so and pairs the rest.
    trimmed = tmp_path / "b"
    trimmed.mkdir()
    (trimmed / "run.json").write_text((b / "run.json").read_text())
    if (b / "figures").is_dir():  # the figures a judge was shown live beside samples.jsonl
        shutil.copytree(b / "figures", trimmed / "figures")
    lines = (b / "samples.jsonl").read_text().splitlines()
    kept = [line for line in lines if json.loads(line)["target"]["answer"] is None] + [
        line for line in lines if json.loads(line)["target"]["answer"] is not None][2:]
    (trimmed / "samples.jsonl").write_text("\n".join(kept) + "\n")
    result = compare_runs(a, trimmed)
    assert result["common_items"] == 8 and len(result["only_in_A"]) == 2
    assert result["groups"]["all"]["ACS"]["paired"] == len(GOLD) - 2


def test_compare_cli_prints_interval_test_and_paired_count(two_runs: tuple[Path, Path], tmp_path: Path) -> None:
    a, b = two_runs
    out = tmp_path / "cmp.json"
    done = cli("compare", str(a), str(b), "--json", str(out), env={"COLUMNS": "200"})
    assert done.returncode == 0, done.stderr
    assert "mcnemar" in done.stdout and "0.016" in done.stdout and "+100.0" in done.stdout
    assert "10 item(s) in both runs" in done.stdout
    saved = json.loads(out.read_text())
    assert saved["groups"]["all"]["ACS"]["p_value"] == pytest.approx(1 / 64)
