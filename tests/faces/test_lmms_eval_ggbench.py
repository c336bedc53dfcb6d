"""lmms-eval 0.7.3 running geomeval's GGBench code track: lmms-eval's own task loader, the
task functions on real sample rows, and the real CLI against a loopback chat server.

The scripted model answers with the release's reference answers, so the engine's Pass@1
and verifier come out exactly 1. Offline there is no judge: the judge metrics must come
out unscored (null) with coverage 0, never zero.
"""

from __future__ import annotations

import json
import os
import re
from importlib.util import find_spec
from pathlib import Path

import pytest
from lmms_support import build_sample, geomeval_lmms_eval, include_dir, lmms_docs, only_results

from geomeval.benchmarks.base import DataError
from geomeval.benchmarks.geolaux import data as geolaux_data
from geomeval.benchmarks.ggbench import data, scoring
from geomeval.benchmarks.ggbench.benchmark import GGBench
from geomeval.benchmarks.ggbench.prompts import task_messages
from geomeval.benchmarks.ggbench.raw import RELEASE_FILE
from geomeval.benchmarks.rows import image_columns
from geomeval.integrations import lmms_eval as integration
from geomeval.testing.chat_server import ChatServer, prompt_text

pytestmark = pytest.mark.skipif(
    find_spec("lmms_eval") is None and not os.environ.get("REQUIRE_LMMS_EVAL"),
    reason="lmms-eval is not installed (pip install -c constraints.txt '.[lmms]')",
)

SPEC = integration.SPECS["ggbench"]
RELEASE = {
    r["id"]: r for r in json.loads((data.sample_path() / RELEASE_FILE).read_text(encoding="utf-8"))
}
GEOLAUX_RAW = json.loads(
    (geolaux_data.sample_path() / "GeoLaux_sample.json").read_text(encoding="utf-8")
)
MODEL_ARGS = "model=test-model,base_url={url},api_key=sk-test,num_concurrent=4,max_retries=2"
DETERMINISTIC = (
    "Pass@1",
    "verifier",
    "BLEU",
    "ROUGE-L",
    "chrF",
    "edit_distance",
    "RUBY",
    "PSNR",
    "SSIM",
)
JUDGE = tuple(name for name in SPEC.metrics if name not in DETERMINISTIC)
# The documented mapping (module docstring, template comment, README).
KEYS = {
    "Pass@1": "Pass_at_1",
    "verifier": "verifier",
    "BLEU": "BLEU",
    "ROUGE-L": "ROUGE_L",
    "chrF": "chrF",
    "edit_distance": "edit_distance",
    "RUBY": "RUBY",
    "PSNR": "PSNR",
    "SSIM": "SSIM",
    "VLM-T": "VLM_T",
    "VLM-I-Mid": "VLM_I_Mid",
    "VLM-I-Res": "VLM_I_Res",
    "VLM-I": "VLM_I",
    "Step Accuracy": "Step_Accuracy",
    "Process Consistency": "Process_Consistency",
    "Problem-Solution Accuracy": "Problem_Solution_Accuracy",
    "VLM-T (0-100)": "VLM_T_0_100",
    "VLM-I-Mid (0-100)": "VLM_I_Mid_0_100",
    "VLM-I-Res (0-100)": "VLM_I_Res_0_100",
    "VLM-I (0-100)": "VLM_I_0_100",
}


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_sample(tmp_path_factory, data, "ggbench")


@pytest.fixture(scope="module")
def include(built: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return include_dir(tmp_path_factory, {"ggbench": str(built)})


@pytest.fixture(scope="module")
def docs(include: Path) -> list[dict]:
    return lmms_docs(include, "ggbench_code")


def reference_answer(doc: dict) -> str:
    return RELEASE[str(doc["id"])]["text_answer"]


def test_metric_keys_are_safe_and_cover_the_code_track() -> None:
    assert integration.metric_keys(SPEC) == KEYS
    assert all(re.fullmatch(r"[A-Za-z0-9_]+", key) for key in KEYS.values())
    # Every code-track metric but LPIPS (needs torchvision, which the lmms-eval install removes).
    assert set(SPEC.metrics) == set(scoring.CODE_TRACK_METRICS) - {"LPIPS"}
    assert integration.metric_keys(integration.SPECS["geolaux"]) == {
        "ACS": "ACS",
        "PCS": "PCS",
        "PQS": "PQS",
    }


def test_lmms_eval_loads_the_task_from_the_include_dir(
    include: Path, built: Path, docs: list[dict]
) -> None:
    from lmms_eval.tasks import TaskManager
    from lmms_eval.utils import load_yaml_config

    manager = TaskManager(include_path=str(include), include_defaults=False)
    assert {"geolaux", "geolaux_aux", "ggbench_code"} <= set(manager.all_tasks)
    assert not any("template" in name for name in manager.all_tasks)

    folder = include / "geomeval" / "ggbench"
    shipped = integration.load_task_yaml(
        (integration.tasks_dir() / "ggbench" / integration.TEMPLATE).read_text()
    )
    assert shipped["dataset_path"] == SPEC.hub_dataset == "opendatalab-raiser/GGBench"
    assert integration.load_task_yaml((folder / integration.TEMPLATE).read_text()) == {
        **shipped,
        "dataset_path": str(built),
    }
    # Only the benchmark given a path is rewritten; GeoLaux keeps its template as shipped
    # (no dataset_path: its authors publish no Hub dataset).
    geolaux = integration.load_task_yaml(
        (include / "geomeval" / "geolaux" / integration.TEMPLATE).read_text()
    )
    assert geolaux == integration.load_task_yaml(
        (integration.tasks_dir() / "geolaux" / integration.TEMPLATE).read_text()
    ) and "dataset_path" not in geolaux

    config = load_yaml_config(str(folder / "ggbench_code.yaml"), mode="full")
    assert config["task"] == "ggbench_code" and config["dataset_path"] == str(built)
    assert config["output_type"] == "generate_until" and config["process_results_use_image"] is True
    assert (
        config["generation_kwargs"]["temperature"] == 0
        and config["generation_kwargs"]["max_new_tokens"] >= 4096
    )
    for hook in ("doc_to_messages", "doc_to_text", "doc_to_visual", "process_results"):
        assert config[hook].__name__ == f"ggbench_code_{hook}"
    aggregations = {m["metric"]: m["aggregation"].__name__ for m in config["metric_list"]}
    assert aggregations == {
        **{key: "aggregate_scored" for key in KEYS.values()},
        "coverage": "coverage",  # once for the task
    }
    better = {m["metric"]: m["higher_is_better"] for m in config["metric_list"]}
    assert better["edit_distance"] is False and better["Pass_at_1"] is True
    assert better["coverage"] is None  # coverage is no score

    # process_results_use_image: the rows process_results gets keep the reference figure.
    assert len(docs) == 15 and all(doc["final_image"] is not None for doc in docs)


def test_messages_pose_the_item_as_geomeval_run_does(docs: list[dict]) -> None:
    from PIL import Image

    with_figure = next(doc for doc in docs if doc["problem_image"] is not None)
    without = next(doc for doc in docs if doc["problem_image"] is None)
    for doc in (with_figure, without):
        expected = task_messages(data.SOURCE.named(doc), track="code", prompts=GGBench().prompts)[0]["content"]
        ours = integration.entry_points("ggbench_code")["ggbench_code_doc_to_messages"](doc)
        assert [m["role"] for m in ours] == ["user"]
        assert [p["type"] for p in ours[0]["content"]] == [
            "text" if p["type"] == "text" else "image" for p in expected
        ]
        assert (
            ours[0]["content"][0]["text"]
            == expected[0]["text"]
            == integration.entry_points("ggbench_code")["ggbench_code_doc_to_text"](doc)
        )
        assert doc["problem"].strip() in expected[0]["text"]
    image = integration.entry_points("ggbench_code")["ggbench_code_doc_to_messages"](with_figure)[0]["content"][1]["url"]
    assert isinstance(image, Image.Image) and image.size == with_figure["problem_image"].size
    assert "The problem's figure is attached." in integration.entry_points("ggbench_code")["ggbench_code_doc_to_text"](with_figure)
    assert len(integration.entry_points("ggbench_code")["ggbench_code_doc_to_visual"](with_figure)) == 1
    assert integration.entry_points("ggbench_code")["ggbench_code_doc_to_visual"](without) == []


def test_reference_answer_scores_one_and_the_judge_metrics_stay_unscored(docs: list[dict]) -> None:
    doc = docs[0]
    out = integration.entry_points("ggbench_code")["ggbench_code_process_results"](doc, [reference_answer(doc)])
    assert set(out) == set(KEYS.values()) | {"coverage"}
    states = out["coverage"]["metrics"]
    for name in ("Pass@1", "verifier", "BLEU", "chrF", "SSIM"):
        assert out[KEYS[name]]["value"] == pytest.approx(1.0), name
    assert out["edit_distance"]["value"] == 0.0
    assert out["PSNR"]["value"] == scoring.PSNR_CAP  # the reference figure reached the scorer
    assert out["Pass_at_1"] == {
        **out["Pass_at_1"],
        "id": doc["id"],
        "task": "ggbench_code",
        "metric": "Pass@1",
    }
    for name in DETERMINISTIC:
        assert states[name] == "scored", name
    for name in JUDGE:  # offline: no judge, so unscored (null), never zero
        entry = out[KEYS[name]]
        assert entry["value"] is None and entry["needs_judge"] and "judge" in entry["unscored"], (
            name
        )
        assert states[name] == "needs_judge", name  # a setting of the run, no failure


def test_failure_marker_is_a_generation_error_not_a_wrong_answer(docs: list[dict]) -> None:
    out = integration.entry_points("ggbench_code")["ggbench_code_process_results"](
        docs[1], ["[LMMS_EVAL_REQUEST_FAILED after 5 retries] boom"]
    )
    for key in KEYS.values():
        assert out[key]["value"] is None and "model failed" in out[key]["unscored"], key
    assert set(out["coverage"]["metrics"].values()) == {"unscored"}  # a failure of every metric
    budget = integration.entry_points("ggbench_code")["ggbench_code_process_results"](docs[1], ["[LMMS_EVAL_BUDGET_EXCEEDED]"])
    assert budget["Pass_at_1"]["value"] is None


def test_a_row_without_the_reference_figure_is_refused_plainly(docs: list[dict]) -> None:
    row = {k: v for k, v in docs[0].items() if k not in image_columns(data.SOURCE.features)}
    with pytest.raises(ValueError, match="process_results_use_image"):
        integration.entry_points("ggbench_code")["ggbench_code_process_results"](row, [reference_answer(docs[0])])


def test_aggregation_means_scored_items_and_reports_coverage(docs: list[dict]) -> None:
    right = integration.entry_points("ggbench_code")["ggbench_code_process_results"](docs[0], [reference_answer(docs[0])])
    broken = integration.entry_points("ggbench_code")["ggbench_code_process_results"](
        docs[2], ["Step 1:\n```geogebra\nP = ParallelLine(A, B)\n```"]
    )
    failed = integration.entry_points("ggbench_code")["ggbench_code_process_results"](
        docs[3], ["[LMMS_EVAL_REQUEST_FAILED after 2 retries] x"]
    )
    entries = [right, broken, failed]
    assert broken["Pass_at_1"]["value"] == 0.0  # ran and failed: scored, and zero
    assert integration.aggregate_scored([e["Pass_at_1"] for e in entries]) == 0.5
    assert integration.aggregate_scored([e["VLM_I"] for e in entries]) is None
    # the task's coverage: the judge metrics need the judge none was named on the two that
    # got an answer (left out), and the failed request is a failure of every metric, so
    # the least covered are the judge's, 0 of 1; the offline ones have 2 of 3
    assert integration.coverage([e["coverage"] for e in entries]) == 0.0
    assert integration.coverage([e["coverage"] for e in entries[:2]]) == 1.0
    assert integration.aggregate_scored([]) is None and integration.coverage([]) == 0.0


def rubric_judge(request: dict) -> str:
    """Scripted rubric verdicts: plan 2/5, process 4, 3 and 5 out of 5, final figure 5/5."""
    text = prompt_text(request)
    if "from the long image" in text:
        return json.dumps(
            {
                "step_accuracy": 4,
                "process_consistency": 3,
                "problem_solution_accuracy": 5,
                "reason": "ok",
            }
        )
    if "the second is the model's final figure" in text:
        return json.dumps({"score": 5, "reason": "matches"})
    return json.dumps({"score": 2, "reason": "plan incomplete"})


def test_a_judge_from_the_environment_scores_the_rubrics(
    docs: list[dict], monkeypatch: pytest.MonkeyPatch
) -> None:
    with ChatServer(rubric_judge) as server:
        monkeypatch.setenv("GEOMEVAL_JUDGE_MODEL", "judge-model")
        monkeypatch.setenv("GEOMEVAL_JUDGE_BASE_URL", server.base_url)
        integration.reset_state()  # a fresh process would read the env
        out = integration.entry_points("ggbench_code")["ggbench_code_process_results"](docs[0], [reference_answer(docs[0])])
        integration.resolve(list(out.values()))  # what lmms-eval's aggregation does first
        asked = len(server.requests)
    assert asked == 3  # the plan, the process (long image) and the final figure
    expected = {
        "VLM-T": 2 / 5,
        "VLM-T (0-100)": 1 / 4,
        "Step Accuracy": 4 / 5,
        "Process Consistency": 3 / 5,
        "Problem-Solution Accuracy": 1.0,
        "VLM-I-Mid": 3.5 / 5,
        "VLM-I-Mid (0-100)": 2.5 / 4,
        "VLM-I-Res": 1.0,
        "VLM-I-Res (0-100)": 1.0,
        "VLM-I": (3.5 / 5 + 1) / 2,
        "VLM-I (0-100)": (2.5 / 4 + 1) / 2,
    }
    assert set(expected) == set(JUDGE)
    for name, value in expected.items():
        assert out[KEYS[name]]["value"] == pytest.approx(value), name
        assert out["coverage"]["metrics"][name] == "scored", name
    assert out["Pass_at_1"]["value"] == 1.0


def test_data_goes_to_the_benchmark_of_the_tasks_named(
    built: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    def specs(tasks: str) -> list[str]:
        return [
            s.name for s in integration.named_benchmarks(["--model", "openai", "--tasks", tasks])
        ]

    assert specs("ggbench_code") == ["ggbench"]
    assert specs("geolaux_aux,my_task") == ["geolaux"]
    assert specs("gg*") == ["ggbench"]  # lmms-eval's fnmatch patterns
    assert sorted(specs("geolaux,ggbench_code")) == ["geolaux", "ggbench"]
    assert specs("my_task") == []
    assert integration.dataset_paths_for([SPEC], str(built)) == {"ggbench": str(built.resolve())}

    status = integration.run_lmms_eval(
        ["--model", "openai", "--tasks", "geolaux,ggbench_code"], data=str(built)
    )
    assert status == 2
    assert "several benchmarks" in capsys.readouterr().err


def test_a_built_folder_of_another_benchmark_is_refused(tmp_path: Path) -> None:
    geolaux_built = tmp_path / "geolaux"
    geolaux_data.build(str(geolaux_data.sample_path()), str(geolaux_built))
    with pytest.raises(DataError, match="not a built GGBench dataset"):
        integration.resolve_dataset(str(geolaux_built), SPEC)


# --------------------------------------------------------------------------- the real CLI

PROBLEMS = {data.SOURCE.named(row)["problem"].strip(): row["id"] for row in data.load(None)}


def ggbench_id(prompt: str) -> str | None:
    matches = [key for problem, key in PROBLEMS.items() if problem in prompt]
    return max(matches, key=len) if matches else None


def responder(request: dict) -> str:
    """GGBench prompts get the release's reference answer; GeoLaux ones their gold answer."""
    text = prompt_text(request)
    key = ggbench_id(text) if "in GeoGebra" in text else None
    if key is not None:
        return RELEASE[key]["text_answer"]
    geolaux = [k for k, raw in GEOLAUX_RAW.items() if raw["problem_text"].strip() in text]
    if geolaux:
        gold = GEOLAUX_RAW[max(geolaux, key=lambda k: len(GEOLAUX_RAW[k]["problem_text"]))]
        return json.dumps(
            {"steps": ["1. by the figure"], "short_answer": gold.get("number_answer") or "proved"}
        )
    return "I cannot tell which problem this is."


@pytest.mark.slow
def test_cli_runs_both_benchmarks_on_their_embedded_samples(tmp_path: Path) -> None:
    """No --data: each benchmark named runs on its own embedded sample, built once into the cache."""
    out = tmp_path / "out"
    cache = tmp_path / "cache"
    with ChatServer(responder) as server:
        result = geomeval_lmms_eval(
            "--",
            "--model",
            "openai",
            "--model_args",
            MODEL_ARGS.format(url=server.base_url),
            "--tasks",
            "ggbench_code,geolaux",
            "--limit",
            "2",
            "--log_samples",
            "--output_path",
            str(out),
            cache=cache,
        )
        requests = list(server.requests)
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-4000:]
    assert any(cache.glob("lmms_eval/ggbench-*/data/test-*.parquet"))
    assert any(cache.glob("lmms_eval/geolaux-*/data/test-*.parquet"))

    results = only_results(out)["results"]
    scores = results["ggbench_code"]
    for name in ("Pass@1", "verifier"):
        assert scores[f"{KEYS[name]},none"] == 1.0, name
    assert scores["coverage,none"] == 1.0  # once for the task; judge metrics without a judge are exempt
    assert not [key for key in scores if key.split(",")[0].endswith("_coverage")]
    for name in JUDGE:  # offline: no judge, so not scored (null), never zero
        assert scores[f"{KEYS[name]},none"] is None, name
    assert results["geolaux"]["ACS,none"] == 1.0  # en_1, en_2 answered with their gold answers
    [line] = [line for line in result.stdout.splitlines() if line.startswith("ggbench_code: ")]
    # each metric with its standard error (two items, both 1: 0), the task's coverage once
    assert line.startswith("ggbench_code: Pass@1 1.0000 ± 0.0000, verifier 1.0000 ± 0.0000, ")
    assert line.endswith(", VLM-T n/a, VLM-I n/a (coverage 1.0000)") and line.count("coverage") == 1
    assert scores["Pass_at_1_stderr,none"] == 0.0 and scores["coverage_stderr,none"] == 0.0
    assert "geolaux: ACS 1.0000" in result.stdout

    # The model saw what `geomeval run` sends: the task text, then the figure when there is one.
    ggbench_requests = [r for r in requests if "in GeoGebra" in prompt_text(r)]
    assert len(ggbench_requests) == 2 and len(requests) == 4
    by_id = {row["id"]: row for row in data.undecoded(data.load(None))}
    seen = set()
    for request in ggbench_requests:
        key = ggbench_id(prompt_text(request))
        seen.add(key)
        expected = task_messages(data.SOURCE.named(by_id[key]), track="code", prompts=GGBench().prompts)[0]["content"]
        assert prompt_text(request) == expected[0]["text"]
        assert [p["type"] for p in request["messages"][-1]["content"]] == [
            p["type"] for p in expected
        ]
    assert seen == {"1", "2"}

    samples_file = next(out.rglob("*_samples_ggbench_code.jsonl"))
    samples = [json.loads(line) for line in samples_file.read_text().splitlines()]
    assert {s["Pass_at_1"]["id"]: s["Pass_at_1"]["value"] for s in samples} == {"1": 1.0, "2": 1.0}
    assert all(s["Pass_at_1"]["metric"] == "Pass@1" for s in samples)
    assert all(s["VLM_T"]["value"] is None and s["VLM_T"]["unscored"] for s in samples)
