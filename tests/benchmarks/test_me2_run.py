"""`geomeval run me2` on the embedded sample: the three tasks offline and with a judge on a
loopback server, per-domain breakdowns and plots, rescoring with another judge, the guessing
baseline near chance, and the joint table from the CLI."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from geomeval.benchmarks.me2 import data
from geomeval.benchmarks.me2.benchmark import named
from geomeval.testing.chat_server import ChatServer, prompt_text

ROWS = [named(row) for row in data.load(None)]
TASKS = ("me2_solve", "me2_keypoints", "me2_explain")


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "geomeval.cli", *args], capture_output=True, text=True, timeout=600)


def row_in(text: str) -> dict:
    return max((r for r in ROWS if r["problem"].strip() in text), key=lambda r: len(r["problem"]))


def model(request: dict) -> str:
    """A perfect model: the gold answer, the correct keypoint set, the teacher's explanation."""
    text = prompt_text(request)
    row = row_in(text)
    if "pick the set of visual elements" in text:  # the keypoint task
        return f"These elements carry the summary's steps.\nThe final answer is: {row['keypoint_answer']}"
    if "You are a mathematics teacher" in text:
        return row["solution"]
    return f"The final answer is: {row['answer']}"


def judge(request: dict) -> str:
    return 'Same steps, fewer elements named.\n{"rating": [5, 4, 3]}'  # the official judge's reply


def results(out: Path) -> dict:
    return json.loads((out / "results.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("task", TASKS)
@pytest.mark.slow
def test_a_perfect_model_scores_fully_on_every_task_with_domain_breakdowns(task: str, tmp_path: Path) -> None:
    out = tmp_path / task
    with ChatServer(model) as server:
        result = cli("run", "me2", "--task", task, "--model", "openai:m", "--base-url", server.base_url,
                     "--out", str(out), "--cache", "off")
        assert result.returncode == 0, result.stderr
        assert all(sum(p["type"] == "image_url" for p in r["messages"][-1]["content"]) == 1 for r in server.requests)
    summary = results(out)
    domains = summary["breakdowns"]["domain"]
    assert list(domains) == ["geometry", "graph"]
    assert domains["geometry"][summary["headline"]]["total"] == 9 and domains["graph"][summary["headline"]]["total"] == 6
    report = (out / "report.md").read_text(encoding="utf-8")
    assert "## By domain" in report and (out / "plots").is_dir() and any((out / "plots").iterdir())
    if task != "me2_explain":
        assert summary["metrics"]["accuracy"]["value"] == 1.0 and summary["metrics"]["accuracy"]["coverage"] == 1.0
        return
    metrics = summary["metrics"]
    assert metrics["ROUGE-L"]["value"] == pytest.approx(1.0) and metrics["BLEU-4"]["value"] == pytest.approx(1.0)
    assert metrics["Correctness"]["scored"] == 0 and metrics["Correctness"]["needs_judge"] == 15
    assert summary["headline"] == "ROUGE-L"
    assert any(t["title"] == "Text metric variants" for t in summary["tables"])


@pytest.mark.slow
def test_explanations_judged_on_the_loopback_server_then_rescored_with_another_judge(tmp_path: Path) -> None:
    out = tmp_path / "explain"
    with ChatServer(model) as server:
        result = cli("run", "me2", "--task", "me2_explain", "--model", "openai:m", "--base-url", server.base_url,
                     "--out", str(out), "--cache", "off")
        assert result.returncode == 0, result.stderr
    with ChatServer(judge) as judge_server:
        rescored = cli("score", str(out), "--judge", "openai:j", "-J", "base_url=" + str(judge_server.base_url),
                       "--cache", "off")
        assert rescored.returncode == 0, rescored.stderr
        assert len(judge_server.requests) == 15
    metrics = results(out)["metrics"]
    assert metrics["Correctness"]["value"] == 5 and metrics["Fidelity"]["value"] == 4
    assert metrics["Referencing"]["value"] == 3 and metrics["Referencing (0-100)"]["value"] == 0.5
    assert metrics["Correctness"]["coverage"] == 1.0 and results(out)["headline"] == "Correctness"


@pytest.mark.slow
def test_the_guessing_baseline_is_near_chance_and_the_joint_table_pairs_runs(tmp_path: Path) -> None:
    for task in ("me2_solve", "me2_keypoints"):
        result = cli("run", "me2", "--task", task, "--model", "baseline:random", "--out", str(tmp_path / task))
        assert result.returncode == 0, result.stderr
    # The options' seeded positions must not follow the baseline's seeded guesses.
    assert results(tmp_path / "me2_keypoints")["metrics"]["accuracy"]["value"] < 0.5
    joint = cli("me2", "joint", str(tmp_path / "me2_solve"), str(tmp_path / "me2_keypoints"),
                "--json", str(tmp_path / "joint.json"))
    assert joint.returncode == 0, joint.stderr
    table = json.loads((tmp_path / "joint.json").read_text())
    assert table["groups"]["all"]["items"] == 15
    assert sum(table["groups"]["all"][c] for c in ("both", "solved_only", "identified_only", "neither")) == 15
    wrong = cli("me2", "joint", str(tmp_path / "me2_keypoints"), str(tmp_path / "me2_solve"))
    assert wrong.returncode == 2 and "expected a me2_solve run" in wrong.stderr


@pytest.mark.slow
def test_build_then_run_from_the_built_folder(tmp_path: Path) -> None:
    built = tmp_path / "built"
    assert cli("build", "me2", "--raw", str(data.sample_path()), "--out", str(built)).returncode == 0
    result = cli("run", "me2", "--task", "me2_keypoints", "--model", "baseline:random", "--data", str(built),
                 "--limit", "4", "--out", str(tmp_path / "run"))
    assert result.returncode == 0, result.stderr
    assert results(tmp_path / "run")["n_items"] == 4


@pytest.mark.slow
def test_keypoints_task_on_a_release_without_options_says_how_to_make_them(tmp_path: Path) -> None:
    release = tmp_path / "release"
    release.mkdir()
    lines = []
    for line in (data.sample_path() / "ME2.jsonl").read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        for key in ("visual_identification_option", "visual_identification_answer", "option_sources", "option_items"):
            record.pop(key, None)
        lines.append(json.dumps(record, ensure_ascii=False))
    (release / "ME2.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    for folder in ("problem_image", "solution_image"):
        shutil.copytree(data.sample_path() / folder, release / folder)  # a link would lead outside
    result = cli("run", "me2", "--task", "me2_keypoints", "--model", "baseline:random", "--data", str(release),
                 "--out", str(tmp_path / "run"))
    assert result.returncode == 2 and "geomeval me2 make-options" in result.stderr
    solve = cli("run", "me2", "--task", "me2_solve", "--model", "baseline:random", "--data", str(release),
                "--out", str(tmp_path / "solve"))
    assert solve.returncode == 0, solve.stderr


@pytest.mark.slow
def test_resuming_with_another_bertscore_model_is_refused_not_mixed(tmp_path: Path) -> None:
    out = tmp_path / "explain"
    first = cli("run", "me2", "--task", "me2_explain", "--model", "baseline:empty", "--limit", "2", "--out", str(out))
    assert first.returncode == 0, first.stderr
    # The style switches are recorded too (their defaults changed to the official protocol).
    assert json.loads((out / "run.json").read_text())["options"] == {
        "bertscore_model": "default", "bertscore_layer": "default",
        "prompt_style": "paper", "judge_prompt": "paper", "explanation_text": "raw"}
    env = {**os.environ, "GEOMEVAL_BERTSCORE_LAYER": "2"}
    again = subprocess.run([sys.executable, "-m", "geomeval.cli", "run", "me2", "--task", "me2_explain", "--model",
                            "baseline:empty", "--out", str(out)], capture_output=True, text=True, timeout=600, env=env)
    assert again.returncode == 2 and "differs in options" in again.stderr


def test_overall_is_the_item_weighted_mean_of_the_domains_as_published() -> None:
    """Qwen2.5-VL-72B in the paper's Table 2: Geometric 0.430 (763 problems), Graph 0.300
    (237), Overall 0.399: the mean over all items, laid out as the paper's table."""
    from geomeval.benchmarks.me2.scoring import ACCURACY, aggregate
    from geomeval.core.records import SampleRecord, Score

    def record(index: int, domain: str, right: bool) -> SampleRecord:
        return SampleRecord(id=f"{domain}{index}", benchmark="me2", task="me2_solve", target={},
                            meta={"domain": domain}, scores={ACCURACY: Score(float(right))})

    records = [record(i, "geometry", i < 328) for i in range(763)] + [record(i, "graph", i < 71) for i in range(237)]
    summary = aggregate(records)
    table = summary["tables"][0]
    assert table["title"] == "ME2 as in the paper's Table 2 (problem solving, accuracy)"
    assert table["columns"] == ["metric", "Geometric", "Graph", "Overall"]
    name, geometric, graph, overall = table["rows"][0]
    assert (name, round(geometric, 3), round(graph, 3), round(overall, 3)) == (ACCURACY, 0.430, 0.300, 0.399)
