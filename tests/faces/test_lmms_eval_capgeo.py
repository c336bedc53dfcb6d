"""lmms-eval 0.7.3 running CapGeo-Bench: lmms-eval's own task loader, the task functions on
the embedded sample's rows, and the real CLI against a loopback chat server.

The scripted model answers each figure with its reference caption, so the offline keypoint
engine's recall and precision come out exactly 1. Offline there is no judge: the
" (judge)" metrics must come out unscored (null) with coverage 0, never zero.
"""

from __future__ import annotations

import base64
import io
import json
import os
import re
from importlib.util import find_spec
from pathlib import Path

import pytest
from lmms_support import build_sample, geomeval_lmms_eval, include_dir, lmms_docs, only_results

from geomeval.benchmarks.capgeo.captioning import caption_messages
from geomeval.benchmarks.capgeo_bench import data as bench_data
from geomeval.benchmarks.capgeo_bench import scoring as bench_scoring
from geomeval.benchmarks.capgeo_bench.benchmark import lmms_avg as capgeo_bench_lmms_avg
from geomeval.integrations import lmms_eval as integration
from geomeval.testing.chat_server import ChatServer, prompt_text

pytestmark = pytest.mark.skipif(
    find_spec("lmms_eval") is None and not os.environ.get("REQUIRE_LMMS_EVAL"),
    reason="lmms-eval is not installed (pip install -c constraints.txt '.[lmms]')",
)

SPEC = integration.SPECS["capgeo_bench"]
SAMPLE = {
    r["id"]: r
    for r in json.loads((bench_data.sample_path() / "captions.json").read_text(encoding="utf-8"))
}
MODEL_ARGS = "model=test-model,base_url={url},api_key=sk-test,num_concurrent=4,max_retries=2"
OFFLINE = bench_scoring.OFFLINE_METRICS
JUDGED = bench_scoring.JUDGE_METRICS


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_sample(tmp_path_factory, bench_data, "capgeo")


@pytest.fixture(scope="module")
def include(built: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return include_dir(tmp_path_factory, {"capgeo_bench": str(built)})


@pytest.fixture(scope="module")
def docs(include: Path) -> list[dict]:
    return lmms_docs(include, "capgeo_bench")


def test_metric_keys_are_safe_and_match_the_scorer() -> None:
    keys = integration.metric_keys(SPEC)
    assert tuple(keys) == bench_scoring.METRICS  # the literal list agrees with the scorer's
    assert all(re.fullmatch(r"[A-Za-z0-9_]+", key) for key in keys.values())
    assert keys["keypoint recall"] == "keypoint_recall"
    assert keys["relations F1 (judge)"] == "relations_F1_judge"
    assert keys["numericals precision"] == "numericals_precision"
    assert SPEC.hub_dataset == "" and SPEC.task_folder == "capgeo"
    assert SPEC.data() is bench_data
    assert "caption_en" in SPEC.features()
    assert integration.for_task("capgeo_bench") is SPEC


def test_lmms_eval_loads_the_task_from_the_include_dir(
    include: Path, built: Path, docs: list[dict]
) -> None:
    from lmms_eval.tasks import TaskManager
    from lmms_eval.utils import load_yaml_config

    manager = TaskManager(include_path=str(include), include_defaults=False)
    assert {"geolaux", "ggbench_code", "capgeo_bench"} <= set(manager.all_tasks)
    assert not any("template" in name for name in manager.all_tasks)

    folder = include / "geomeval" / "capgeo"
    shipped = integration.load_task_yaml(
        (integration.tasks_dir() / "capgeo" / integration.TEMPLATE).read_text()
    )
    assert "dataset_path" not in shipped  # no Hub copy may be read: a local release
    assert integration.load_task_yaml((folder / integration.TEMPLATE).read_text()) == {
        **shipped,
        "dataset_path": str(built),
    }
    config = load_yaml_config(str(folder / "capgeo_bench.yaml"), mode="full")
    assert config["task"] == "capgeo_bench" and config["dataset_path"] == str(built)
    assert config["output_type"] == "generate_until" and config["doc_to_target"] == "caption_en"
    assert config["generation_kwargs"]["temperature"] == 0
    for hook in ("doc_to_messages", "doc_to_text", "doc_to_visual", "process_results"):
        assert config[hook].__name__ == f"capgeo_bench_{hook}"
    keys = integration.metric_keys(SPEC).values()
    aggregations = {m["metric"]: m["aggregation"].__name__ for m in config["metric_list"]}
    assert aggregations == {
        "Avg": "capgeo_bench_avg",  # Table 4's headline, derived by geomeval's scorer
        **{key: "aggregate_scored" for key in keys},
        "coverage": "coverage",  # once for the task
    }
    # Scores are higher-is-better; coverage is no score (null: lmms-eval ranks nothing by it).
    assert all(m["higher_is_better"] is (None if m["metric"] == "coverage" else True)
               for m in config["metric_list"])
    # The figure stays in the rows (doc_to_text builds the prompt from them).
    assert len(docs) == 12 and all(doc["image"] is not None for doc in docs)


def test_messages_are_the_caption_prompt_with_the_figure(docs: list[dict]) -> None:
    from PIL import Image

    doc = docs[0]
    messages = integration.entry_points("capgeo_bench")["capgeo_bench_doc_to_messages"](doc)
    expected = caption_messages(doc["image"], "figure_only")[0]["content"]
    assert [m["role"] for m in messages] == ["user"]
    assert [p["type"] for p in messages[0]["content"]] == ["text", "image"]
    text = messages[0]["content"][0]["text"]
    assert text == expected[0]["text"] == integration.entry_points("capgeo_bench")["capgeo_bench_doc_to_text"](doc)
    assert text.startswith(  # Fig. 6's figure-only request, as `geomeval run capgeo_bench` sends it
        "Describe the geometric figure in the image in clear, structured mathematical language"
    )
    image = messages[0]["content"][1]["url"]
    assert isinstance(image, Image.Image) and image.size == doc["image"].size
    assert image.tobytes() == doc["image"].convert(image.mode).tobytes()
    assert len(integration.entry_points("capgeo_bench")["capgeo_bench_doc_to_visual"](doc)) == 1


def test_a_reference_caption_scores_one_and_the_judge_metrics_stay_unscored(
    docs: list[dict],
) -> None:
    keys = integration.metric_keys(SPEC)
    for doc in docs[:3]:
        out = integration.entry_points("capgeo_bench")["capgeo_bench_process_results"](doc, [doc["caption_en"]])
        assert set(out) == set(keys.values()) | {"coverage", "Avg"}
        states = out["coverage"]["metrics"]
        for name in OFFLINE:
            assert out[keys[name]]["value"] == 1.0, name
            assert states[name] == "scored", name
        assert (
            out["keypoint_recall"]["metric"] == "keypoint recall"
            and out["keypoint_recall"]["task"] == "capgeo_bench"
        )
        for name in JUDGED:  # offline: no judge, so unscored (null), never zero
            entry = out[keys[name]]
            assert (
                entry["value"] is None and entry["needs_judge"] and "judge" in entry["unscored"]
            ), name
            assert states[name] == "needs_judge", name  # a setting of the run, no failure


def test_a_truncated_caption_scores_lower(docs: list[dict]) -> None:
    doc = docs[0]  # cb_01
    out = integration.entry_points("capgeo_bench")["capgeo_bench_process_results"](doc, [doc["caption_en"].split(". ")[0] + "."])
    assert out["keypoint_recall"]["value"] < 1.0 and out["relations_recall"]["value"] == 0.0
    assert (
        out["relations_precision"]["value"] is None and out["relations_precision"]["not_applicable"]
    )


def test_not_applicable_items_leave_coverage_whole(docs: list[dict]) -> None:
    """A dimension the reference states nothing in is no failure: coverage counts only the
    items a metric applies to."""
    full = integration.entry_points("capgeo_bench")["capgeo_bench_process_results"](docs[0], [docs[0]["caption_en"]])
    plain = {**docs[1], "caption_en": "Triangle ABC has AB = 3, BC = 4 and CA = 5."}  # no relation
    partial = integration.entry_points("capgeo_bench")["capgeo_bench_process_results"](
        plain, ["Triangle ABC has AB = 3 and BC = 4."]
    )
    failed = integration.entry_points("capgeo_bench")["capgeo_bench_process_results"](
        docs[2], ["[LMMS_EVAL_REQUEST_FAILED after 2 retries] x"]
    )
    assert partial["coverage"]["metrics"]["relations recall"] == "not_applicable"
    entries = [full, partial, failed]
    assert integration.aggregate_scored([e["relations_recall"] for e in entries]) == 1.0
    mean = integration.aggregate_scored([e["keypoint_recall"] for e in entries])
    assert mean == pytest.approx((1 + (1 + 2 / 3) / 2) / 2)
    # the not-applicable dimension leaves the task's coverage whole; the failed request is a
    # failure of every metric, the judge's too (it is not a missing judge): 0 of 1 for those
    assert integration.coverage([full["coverage"], partial["coverage"]]) == 1.0
    assert integration.coverage([e["coverage"] for e in entries]) == 0.0
    # a task whose counted metrics apply to none of its items has no coverage (N/A)
    assert integration.coverage([{**partial["coverage"], "metrics": {"relations recall": "not_applicable"}}]) is None
    for key in integration.metric_keys(SPEC).values():
        assert failed[key]["value"] is None and "model failed" in failed[key]["unscored"], key


def _avg_item(elements: float | None, relations: float | None, numericals: float | None) -> dict:
    def score(value: float | None) -> dict:
        return {"value": value} if value is not None else {"value": None, "not_applicable": True}

    return {"id": "x", "task": "capgeo_bench", "metric": "Avg", "scores": {
        "keypoint recall": score(1.0), "elements recall": score(elements),
        "relations recall": score(relations), "numericals recall": score(numericals)}}


def test_avg_has_the_standard_error_of_the_mean_of_per_item_averages() -> None:
    from lmms_eval import evaluator_utils

    avg = integration.entry_points("capgeo_bench")["capgeo_bench_avg"]
    items = [_avg_item(1.0, 0.5, 0.0), _avg_item(1.0, 1.0, 1.0), _avg_item(0.0, None, 1.0)]
    # Table 4's Avg: the mean of the three dimension means (2/3, 3/4, 2/3)
    assert avg(items) == pytest.approx((2 / 3 + 3 / 4 + 2 / 3) / 3)
    # per-item averages 0.5, 1, 0.5 (the third over its two scored dimensions): sample
    # standard deviation sqrt(1/12) over sqrt(3) = 1/6
    stderr = evaluator_utils.stderr_for_metric(avg, 100000)  # as lmms-eval asks for it
    assert stderr(items) == pytest.approx(1 / 6)
    assert stderr(items[:1]) == "N/A"


def _avg_entry(item: str, offline: tuple, judge: tuple | None) -> dict:
    """An `Avg` entry as capgeo_bench_process_results writes it, from per-dimension recalls
    (None: not applicable) of the offline engine and, where a judge ran, the judge engine."""
    from geomeval.core.records import Score

    def scores(values: tuple | None, suffix: str) -> dict:
        if values is None:
            missing = Score.missing(bench_scoring.NO_JUDGE, needs_judge=True).to_dict()
            return {f"{n} recall{suffix}": missing for n in ("keypoint", "elements", "relations", "numericals")}
        named = dict(zip(("elements", "relations", "numericals"), values, strict=True))
        present = [v for v in values if v is not None]
        named["keypoint"] = sum(present) / len(present)
        return {
            f"{n} recall{suffix}": (Score(v) if v is not None else Score.inapplicable("none")).to_dict()
            for n, v in named.items()
        }

    return {"id": item, "metric": "Avg", "scores": {**scores(offline, ""), **scores(judge, " (judge)")}}


def test_avg_is_table4s_mean_of_three_dimension_means_from_the_judge_engine_when_it_ran() -> None:
    # The paper's GPT-o3 row: (63.4 + 56.1 + 26.0) / 3 = 48.5 (judge engine; offline ignored).
    judged = [_avg_entry("a", (0.2, 0.2, 0.2), (0.634, 0.561, 0.26))]
    assert capgeo_bench_lmms_avg(judged) == pytest.approx(0.485, abs=5e-4)
    # A mean of dimension means, not of items: the relation-less item counts in two dimensions.
    items = [_avg_entry("a", (1.0, None, 0.5), None), _avg_entry("b", (0.0, 0.6, 0.5), None)]
    assert capgeo_bench_lmms_avg(items) == pytest.approx((0.5 + 0.6 + 0.5) / 3)
    # No judge ran: the offline engine's Avg, the same number `geomeval run` reports.
    from geomeval.core.records import SampleRecord, Score

    records = [
        SampleRecord(
            id=x["id"], benchmark="capgeo_bench", task="capgeo_bench", target={}, meta={},
            scores={k: Score.from_dict(v) for k, v in x["scores"].items()},
        )
        for x in items
    ]
    summary = bench_scoring.aggregate(records)
    assert summary["headline"] == "Avg"
    assert capgeo_bench_lmms_avg(items) == summary["metrics"]["Avg"]["value"]
    # A dimension nothing was scored in: no Avg (N/A), never a mean of two.
    assert capgeo_bench_lmms_avg([_avg_entry("a", (1.0, None, 0.5), None)]) is None


def test_avg_from_process_results_matches_geomeval_run(docs: list[dict]) -> None:
    full = integration.entry_points("capgeo_bench")["capgeo_bench_process_results"](docs[0], [docs[0]["caption_en"]])
    half = integration.entry_points("capgeo_bench")["capgeo_bench_process_results"](docs[1], [docs[1]["caption_en"].split(". ")[0] + "."])
    failed = integration.entry_points("capgeo_bench")["capgeo_bench_process_results"](docs[2], ["[LMMS_EVAL_REQUEST_FAILED after 2 retries] x"])
    entries = [full["Avg"], half["Avg"], failed["Avg"]]
    assert {e["id"] for e in entries} == {docs[0]["id"], docs[1]["id"], docs[2]["id"]}
    dims = [
        integration.aggregate_scored([e[f"{d}_recall"] for e in (full, half, failed)])
        for d in ("elements", "relations", "numericals")
    ]
    assert None not in dims
    assert capgeo_bench_lmms_avg(entries) == pytest.approx(bench_scoring.avg(*dims))


def _sentences(description: str) -> list[str]:
    return [s.strip() for s in re.split(r"(?<=\.)\s+", description) if s.strip()]


def keypoint_judge(request: dict) -> str:
    """A scripted keypoint judge: one relation keypoint per sentence, matched by identical text."""
    text = prompt_text(request)
    if text.startswith("List the keypoints"):
        description = text.split("Description:\n", 1)[1].rsplit("\n\nReply with", 1)[0]
        return json.dumps(
            {
                "elements": [],
                "spatial_relations": _sentences(description),
                "numerical_relations": [],
            }
        )
    block = text.split("## spatial_relations\n", 1)[1].split("\n\n## numerical_relations", 1)[0]
    reference = re.findall(r"^R\d+\. (.*)$", block.split("Candidate:")[0], re.M)
    candidate = re.findall(r"^C\d+\. (.*)$", block.split("Candidate:")[1], re.M)
    empty = {"matched": [], "supported": []}
    return json.dumps(
        {
            "elements": empty,
            "numerical_relations": empty,
            "spatial_relations": {
                "matched": [i for i, k in enumerate(reference, 1) if k in candidate],
                "supported": [i for i, k in enumerate(candidate, 1) if k in reference],
            },
        }
    )


def test_a_judge_from_the_environment_scores_the_judge_metrics(
    docs: list[dict], monkeypatch: pytest.MonkeyPatch
) -> None:
    doc = docs[1]
    half = _sentences(doc["caption_en"])
    with ChatServer(keypoint_judge) as server:
        monkeypatch.setenv("GEOMEVAL_JUDGE_MODEL", "judge-model")
        monkeypatch.setenv("GEOMEVAL_JUDGE_BASE_URL", server.base_url)
        integration.reset_state()  # a fresh process would read the env
        out = integration.entry_points("capgeo_bench")["capgeo_bench_process_results"](doc, [" ".join(half[:2])])
        integration.resolve(list(out.values()))  # what lmms-eval's aggregation does first
        asked = len(server.requests)
    assert asked == 3  # the two extractions and the matching
    assert out["relations_recall_judge"]["value"] == pytest.approx(2 / len(half))
    assert out["relations_precision_judge"]["value"] == 1.0
    assert out["keypoint_recall_judge"]["value"] == pytest.approx(2 / len(half))
    assert out["coverage"]["metrics"]["relations recall (judge)"] == "scored"
    assert out["coverage"]["metrics"]["elements recall (judge)"] == "not_applicable"
    assert out["keypoint_recall"]["value"] < 1.0  # the offline engine scores beside it


def test_data_goes_to_capgeo_bench_when_its_task_is_named(built: Path) -> None:
    specs = integration.named_benchmarks(["--model", "openai", "--tasks", "capgeo_bench*"])
    assert specs == [SPEC]
    # `capgeo_*` also names CapGeo's reasoning tasks: two benchmarks, so one --data is refused.
    both = integration.named_benchmarks(["--tasks", "capgeo_*"])
    assert sorted(spec.name for spec in both) == ["capgeo", "capgeo_bench"]
    assert integration.dataset_paths_for([SPEC], str(built)) == {
        "capgeo_bench": str(built.resolve())
    }


def test_a_built_folder_of_another_benchmark_is_refused(tmp_path: Path) -> None:
    from geomeval.benchmarks.base import DataError
    from geomeval.benchmarks.geolaux import data as geolaux_data

    geolaux_built = tmp_path / "geolaux"
    geolaux_data.build(str(geolaux_data.sample_path()), str(geolaux_built))
    with pytest.raises(DataError, match="not a built CapGeo-Bench dataset"):
        integration.resolve_dataset(str(geolaux_built), SPEC)


# --------------------------------------------------------------------------- the real CLI


def _thumbnail(image) -> list[int]:
    return list(image.convert("L").resize((56, 42)).tobytes())


THUMBNAILS: dict[str, list[int]] = {}


def figure_id(request: dict) -> str:
    """Which sample figure a request shows: the nearest thumbnail (lmms-eval re-encodes,
    and may resize, the image)."""
    from PIL import Image

    if not THUMBNAILS:
        for key, record in SAMPLE.items():
            THUMBNAILS[key] = _thumbnail(Image.open(bench_data.sample_path() / record["image"]))
    part = next(p for p in request["messages"][-1]["content"] if p.get("type") == "image_url")
    payload = part["image_url"]["url"].partition(",")[2]
    seen = _thumbnail(Image.open(io.BytesIO(base64.b64decode(payload))))
    return min(
        THUMBNAILS,
        key=lambda key: sum(abs(a - b) for a, b in zip(THUMBNAILS[key], seen, strict=True)),
    )


def responder(request: dict) -> str:
    """The model: each figure's reference caption."""
    return SAMPLE[figure_id(request)]["caption_en"]


@pytest.mark.slow
def test_cli_runs_capgeo_bench_on_the_embedded_sample(tmp_path: Path) -> None:
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
            "capgeo_bench",
            "--limit",
            "2",
            "--log_samples",
            "--output_path",
            str(out),
            cache=cache
        )
        requests = list(server.requests)
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-4000:]
    assert any(cache.glob("lmms_eval/capgeo_bench-*/data/test-*.parquet"))  # the sample, built once

    scores = only_results(out)["results"]["capgeo_bench"]
    keys = integration.metric_keys(SPEC)
    for name in OFFLINE:
        assert scores[f"{keys[name]},none"] == 1.0, name
        assert scores[f"{keys[name]}_stderr,none"] == 0.0, name  # both items score 1
    for name in JUDGED:  # offline: no judge, so not scored (null), never zero
        assert scores[f"{keys[name]},none"] is None, name
    # coverage once for the task: the judge metrics need the judge none was named (exempt)
    assert scores["coverage,none"] == 1.0
    assert not [key for key in scores if key.split(",")[0].endswith("_coverage")]
    assert scores["Avg,none"] == 1.0  # Table 4's Avg, the offline engine's (no judge ran)
    assert scores["Avg_stderr,none"] == 0.0
    assert "capgeo_bench: Avg 1.0000 ± 0.0000, keypoint recall 1.0000 ± 0.0000" in result.stdout
    assert "(coverage 1.0000)" in result.stdout

    # The model saw what `geomeval run` sends: the caption prompt and the figure.
    assert len(requests) == 2
    assert sorted(figure_id(r) for r in requests) == ["cb_01", "cb_02"]
    for request in requests:
        assert prompt_text(request).startswith("Describe the geometric figure in the image")
        assert [p["type"] for p in request["messages"][-1]["content"]] == ["text", "image_url"]

    samples_file = next(out.rglob("*_samples_capgeo_bench.jsonl"))
    samples = [json.loads(line) for line in samples_file.read_text().splitlines()]
    assert {s["keypoint_recall"]["id"]: s["keypoint_recall"]["value"] for s in samples} == {
        "cb_01": 1.0,
        "cb_02": 1.0,
    }
    assert all(s["keypoint_recall"]["metric"] == "keypoint recall" for s in samples)
