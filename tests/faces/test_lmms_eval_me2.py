"""lmms-eval 0.7.3 running ME2's three tasks and the group `me2`: ME2's own prompts and
scorer, each task with its own metrics, and the real CLI on the embedded sample against a
loopback chat server that answers as a perfect model would (and, for the explanation, a
judge that rates it)."""

from __future__ import annotations

import os
from importlib.util import find_spec
from pathlib import Path
from typing import Any

import pytest
from lmms_support import build_sample, geomeval_lmms_eval, include_dir, only_results

from geomeval.benchmarks.me2 import data, scoring
from geomeval.benchmarks.me2.benchmark import ME2, named
from geomeval.integrations import lmms_eval as integration
from geomeval.testing.chat_server import ChatServer, prompt_text

pytestmark = pytest.mark.skipif(
    find_spec("lmms_eval") is None and not os.environ.get("REQUIRE_LMMS_EVAL"),
    reason="lmms-eval is not installed (pip install -c constraints.txt '.[lmms]')",
)

SPEC = integration.SPECS["me2"]
GROUP = "me2"
MODEL_ARGS = "model=test-model,base_url={url},api_key=sk-test,num_concurrent=4,max_retries=2"
FAILED = "[LMMS_EVAL_REQUEST_FAILED after 2 retries] connection refused"


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_sample(tmp_path_factory, data, "me2")


@pytest.fixture(scope="module")
def tasks(built: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    from lmms_eval.tasks import TaskManager, get_task_dict

    include = include_dir(tmp_path_factory, {"me2": str(built)})
    manager = TaskManager(include_path=str(include), include_defaults=False)
    assert set(SPEC.tasks) | {GROUP} <= set(manager.all_tasks) and GROUP in manager.all_groups
    return get_task_dict(list(SPEC.tasks), manager)


def test_the_entry_agrees_with_the_benchmark() -> None:
    assert SPEC.tasks == ME2.tasks
    assert set(SPEC.metrics) == set(scoring.METRICS)
    for task in SPEC.tasks:
        assert SPEC.metrics_for(task) == scoring.TASK_METRICS[task]
    assert integration.metric_keys(SPEC, "me2_explain")["Correctness (0-100)"] == "Correctness_0_100"
    assert integration.metric_keys(SPEC, "me2_explain")["BERTScore-F1"] == "BERTScore_F1"
    shipped = integration.tasks_dir() / "me2"
    for task in SPEC.tasks:
        config = integration.load_task_yaml((shipped / f"{task}.yaml").read_text(encoding="utf-8"))
        listed = [m["metric"] for m in config["metric_list"]]
        keys = list(integration.metric_keys(SPEC, task).values())
        assert listed == [*keys, "coverage"]  # coverage once for the task


@pytest.mark.slow
def test_messages_are_me2s_prompt_and_scores_are_its_scorers(tasks: dict) -> None:
    bench = ME2()
    for task in SPEC.tasks:
        rows = [dict(doc) for doc in tasks[task].test_docs()]
        expected = bench.load_items(None, task, None)
        assert [r["id"] for r in rows] == [item.id for item in expected]
        messages = integration.doc_to_messages(rows[0], task)
        text = "".join(p["text"] for m in messages for p in m["content"] if p["type"] == "text")
        own = bench.messages(expected[0], task)
        assert text == "".join(p["text"] for m in own for p in m["content"] if p["type"] == "text")
        assert sum(p["type"] == "image" for m in messages for p in m["content"]) == 1
    solve = [dict(doc) for doc in tasks["me2_solve"].eval_docs_no_media]
    first = named(solve[0])
    out = integration.process_results(solve[0], [f"The final answer is: {first['answer']}"], "me2_solve")
    assert set(out) == {"accuracy", "coverage"} and out["accuracy"]["value"] == 1.0
    failed = integration.process_results(solve[0], [FAILED], "me2_solve")
    assert failed["accuracy"]["value"] is None and failed["coverage"]["metrics"] == {"accuracy": "unscored"}
    explain = [dict(doc) for doc in tasks["me2_explain"].eval_docs_no_media]
    scores = integration.process_results(explain[0], [named(explain[0])["solution"]], "me2_explain")
    assert scores["ROUGE_L"]["value"] == pytest.approx(1.0) and scores["BLEU_4"]["value"] == pytest.approx(1.0)
    assert scores["Correctness"]["value"] is None and scores["Correctness"]["needs_judge"]


def _rows() -> list[dict[str, Any]]:
    return [named(row) for row in data.load(None)]


ROWS = _rows()


def responder(request: dict) -> str:
    """A perfect model on every task, and a judge that rates every explanation 5, 4, 5."""
    text = prompt_text(request)
    if '"rating": [x, y, z]' in text:  # the explanation judge, answering as the official one
        return 'Clear.\n{"rating": [5, 4, 5]}'
    row = max((r for r in ROWS if r["problem"].strip() in text), key=lambda r: len(r["problem"]))
    if "pick the set of visual elements" in text:  # the keypoint task
        return f"The summary needs these elements.\nThe final answer is: {row['keypoint_answer']}"
    if "You are a mathematics teacher" in text:
        return row["solution"]
    return f"The final answer is: {row['answer']}"


@pytest.mark.slow
def test_cli_runs_the_group_on_the_embedded_sample(tmp_path: Path) -> None:
    out = tmp_path / "out"
    with ChatServer(responder) as server:
        result = geomeval_lmms_eval(
            "--limit", "4", "--",
            "--model", "openai", "--model_args", MODEL_ARGS.format(url=server.base_url),
            "--tasks", GROUP, "--log_samples", "--output_path", str(out),
            cache=tmp_path / "cache", timeout=300,
            extra_env={"GEOMEVAL_JUDGE_MODEL": "judge", "GEOMEVAL_JUDGE_BASE_URL": server.base_url},
        )
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-4000:]
    written = only_results(out)
    results = written["results"]
    assert results["me2_solve"]["accuracy,none"] == 1.0
    assert results["me2_keypoints"]["accuracy,none"] == 1.0
    explain = results["me2_explain"]
    assert explain["Correctness,none"] == 5 and explain["Fidelity,none"] == 4
    assert explain["Fidelity_0_100,none"] == 0.75 and explain["ROUGE_L,none"] == pytest.approx(1.0)
    assert explain["coverage,none"] == 1.0
    assert written["group_subtasks"][GROUP] == list(SPEC.tasks)
    assert "me2_explain: accuracy" not in result.stdout and "me2_explain: Correctness 5.0000" in result.stdout
