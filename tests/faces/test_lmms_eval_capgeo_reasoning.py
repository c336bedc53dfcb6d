"""lmms-eval 0.7.3 running CapGeo's reasoning tasks: lmms-eval's own task loader over a built
reasoning dataset, the prompts of each mode, scoring through CapGeo's own record and scorer
(a caption-less row unscored in the caption modes, never wrong), and the real CLI on the
embedded sample against a loopback chat server that answers the gold answers.
"""

from __future__ import annotations

import json
import os
import re
import string
from importlib.util import find_spec
from pathlib import Path

import pytest
from lmms_support import build_sample, geomeval_lmms_eval, include_dir, only_results

from geomeval.benchmarks.capgeo import data as reasoning_data
from geomeval.benchmarks.capgeo import prompts as reasoning
from geomeval.benchmarks.capgeo import scoring as reasoning_scoring
from geomeval.benchmarks.capgeo.sources import SOURCES, sample_file
from geomeval.integrations import lmms_eval as integration
from geomeval.testing.chat_server import ChatServer, prompt_text

pytestmark = pytest.mark.skipif(
    find_spec("lmms_eval") is None and not os.environ.get("REQUIRE_LMMS_EVAL"),
    reason="lmms-eval is not installed (pip install -c constraints.txt '.[lmms]')",
)

SPEC = integration.SPECS["capgeo"]
TASKS = {mode: f"capgeo_reasoning_{mode}" for mode in reasoning.MODES}
MODEL_ARGS = "model=test-model,base_url={url},api_key=sk-test,num_concurrent=4,max_retries=2"


def gold(row: dict) -> str:
    """The answer as a reasoner would write it: a multiple-choice answer as its letter."""
    choices = row["choices"]
    if row["answer"] in choices:
        return string.ascii_uppercase[choices.index(row["answer"])]
    return row["answer"]


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_sample(tmp_path_factory, reasoning_data, "capgeo-reasoning")


@pytest.fixture(scope="module")
def include(built: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return include_dir(tmp_path_factory, {"capgeo": str(built)})


@pytest.fixture(scope="module")
def tasks(include: Path) -> dict:
    from lmms_eval.tasks import TaskManager, get_task_dict

    return get_task_dict(
        list(SPEC.tasks), TaskManager(include_path=str(include), include_defaults=False)
    )


def docs(tasks: dict, mode: str) -> list[dict]:
    """Rows exactly as lmms-eval hands them to process_results and doc_to_text."""
    return [dict(doc) for doc in tasks[TASKS[mode]].eval_docs_no_media]


def full_docs(tasks: dict, mode: str) -> list[dict]:
    """Rows as chat backends hand them to doc_to_messages (images decoded)."""
    return [dict(doc) for doc in tasks[TASKS[mode]].test_docs()]


def test_the_entry_agrees_with_the_benchmark() -> None:
    assert SPEC.tasks == tuple(TASKS.values())
    assert SPEC.metrics == reasoning_scoring.METRICS and integration.metric_keys(SPEC) == {
        "accuracy": "accuracy"
    }
    assert SPEC.hub_dataset == "" and SPEC.task_folder == "capgeo"
    assert SPEC.template == "_reasoning_template_yaml" and SPEC.data() is reasoning_data
    assert "caption" in SPEC.features() and "captioner" in SPEC.features()
    assert all(integration.for_task(task) is SPEC for task in TASKS.values())
    shipped = integration.tasks_dir() / "capgeo"
    assert sorted(p.name for p in shipped.glob("capgeo_reasoning_*.yaml")) == sorted(
        f"{t}.yaml" for t in SPEC.tasks
    )


def test_lmms_eval_loads_the_tasks_over_the_built_dataset(
    include: Path, built: Path, tasks: dict
) -> None:
    from lmms_eval.tasks import TaskManager
    from lmms_eval.utils import load_yaml_config

    manager = TaskManager(include_path=str(include), include_defaults=False)
    assert set(SPEC.tasks) | {"capgeo_bench"} <= set(manager.all_tasks)
    assert not any("template" in name for name in manager.all_tasks)

    folder = include / "geomeval" / "capgeo"
    shipped = integration.load_task_yaml(
        (integration.tasks_dir() / "capgeo" / SPEC.template).read_text()
    )
    assert "dataset_path" not in shipped  # no Hub copy may be read: a local release
    rewritten = integration.load_task_yaml((folder / SPEC.template).read_text())
    assert rewritten == {**shipped, "dataset_path": str(built)}
    bench = integration.load_task_yaml((folder / integration.TEMPLATE).read_text())
    assert (
        "dataset_path" not in bench and integration.SPECS["capgeo_bench"].hub_dataset == ""
    )  # CapGeo-Bench's is untouched

    for mode, task in TASKS.items():
        config = load_yaml_config(str(folder / f"{task}.yaml"), mode="full")
        assert config["task"] == task and config["dataset_path"] == str(built)
        assert config["output_type"] == "generate_until" and config["doc_to_target"] == "answer"
        assert config["generation_kwargs"]["temperature"] == 0
        assert config["process_results_use_image"] is (mode != "without_image")
        for hook in ("doc_to_messages", "doc_to_text", "doc_to_visual", "process_results"):
            assert config[hook].__name__ == f"{task}_{hook}"
        aggregations = {m["metric"]: m["aggregation"].__name__ for m in config["metric_list"]}
        assert aggregations == {"accuracy": "aggregate_scored", "coverage": "coverage"}
        rows = docs(tasks, mode)
        assert len(rows) == 16 and all(row["caption"] for row in rows)
        assert ("image" in rows[0]) is (mode != "without_image")


def test_messages_in_each_mode(tasks: dict) -> None:
    from PIL import Image

    for mode, task in TASKS.items():
        for doc in full_docs(tasks, mode)[::5]:
            messages = integration.doc_to_messages(doc, task)
            parts = messages[0]["content"]
            assert [m["role"] for m in messages] == ["user"]
            expected = reasoning.reasoning_messages(
                integration.doc_to_row(doc, task), mode, doc["caption"]
            )
            assert parts[0]["text"] == expected[0]["content"][0]["text"]
            text = parts[0]["text"]
            if mode == "without_image":  # no figure anywhere: text-only models can run it
                assert [p["type"] for p in parts] == ["text"] and integration.doc_to_visual(
                    doc, task
                ) == []
            else:
                assert [p["type"] for p in parts] == ["text", "image"]
                assert (
                    isinstance(parts[1]["url"], Image.Image)
                    and parts[1]["url"].size == doc["image"].size
                )
            restated = "The problem restated, with what its figure shows:\n" + doc["caption"]
            assert (restated in text) is (mode != "direct")
            if doc["source"] == "mathverse_vision_only" and mode == "without_image":
                assert "the restatement above gives it" in text and "Question: " in text
    without = docs(tasks, "without_image")[0]  # doc_to_text works on rows without the image
    assert integration.doc_to_text(without, TASKS["without_image"]).startswith(
        "Solve the geometry problem"
    )


def test_the_gold_answer_scores_one_and_a_wrong_one_zero(tasks: dict) -> None:
    for mode, task in TASKS.items():
        for doc in docs(tasks, mode):
            right = integration.process_results(
                doc, [f"<think>…</think><answer>{gold(doc)}</answer>"], task
            )
            assert right["accuracy"]["value"] == 1.0, (
                mode,
                doc["id"],
                right["accuracy"]["explanation"],
            )
            assert right["coverage"]["metrics"] == {"accuracy": "scored"}
            assert right["accuracy"]["task"] == task and right["accuracy"]["metric"] == "accuracy"
        doc = docs(tasks, mode)[-1]  # geoqa/4: the answer is D
        wrong = integration.process_results(doc, ["<answer>A</answer>"], task)
        assert wrong["accuracy"]["value"] == 0.0


def test_a_row_without_a_caption_is_unscored_in_the_caption_modes(tasks: dict) -> None:
    for mode, task in TASKS.items():
        doc = {**full_docs(tasks, mode)[-1], "caption": None}
        answer = [f"<answer>{gold(doc)}</answer>"]
        out = integration.process_results(doc, answer, task)
        messages = integration.doc_to_messages(doc, task)
        if mode == "direct":  # the caption is not used: scored as usual
            assert out["accuracy"]["value"] == 1.0
            continue
        assert out["accuracy"]["value"] is None, mode  # never wrong, even for a right answer
        assert out["accuracy"]["unscored"] == "no caption for this item: the captioner gave none"
        assert out["coverage"]["metrics"] == {"accuracy": "unscored"}
        # lmms-eval still sends a request: a one-line placeholder, not the problem
        assert [p["type"] for p in messages[0]["content"]] == ["text"]
        assert messages[0]["content"][0]["text"].startswith(
            "This item is not posed (no caption for this item"
        )
        assert integration.doc_to_visual(doc, task) == []
    entries = [
        integration.process_results(d, [f"<answer>{gold(d)}</answer>"], TASKS["with_image"])
        for d in [*docs(tasks, "with_image")[:3], {**docs(tasks, "with_image")[3], "caption": None}]
    ]
    assert integration.aggregate_scored([e["accuracy"] for e in entries]) == 1.0
    assert integration.coverage([e["coverage"] for e in entries]) == 0.75


def test_a_failed_request_is_unscored(tasks: dict) -> None:
    doc = docs(tasks, "without_image")[0]
    out = integration.process_results(
        doc, ["[LMMS_EVAL_REQUEST_FAILED after 2 retries] x"], TASKS["without_image"]
    )
    assert out["accuracy"]["value"] is None and "model failed" in out["accuracy"]["unscored"]


def test_data_rules(built: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from geomeval.benchmarks.base import DataError
    from geomeval.benchmarks.capgeo_bench import data as bench_data

    assert integration.named_benchmarks(["--tasks", "capgeo_reasoning_*"]) == [SPEC]
    assert integration.dataset_paths_for([SPEC], str(built)) == {"capgeo": str(built.resolve())}
    with pytest.raises(ValueError, match="several benchmarks"):
        integration.dataset_paths_for(
            integration.named_benchmarks(["--tasks", "capgeo_*"]), str(built)
        )
    bench_built = tmp_path / "bench"
    bench_data.build(str(bench_data.sample_path()), str(bench_built))
    with pytest.raises(DataError, match="not a built CapGeo reasoning dataset"):
        integration.resolve_dataset(str(bench_built), SPEC)
    with pytest.raises(FileNotFoundError, match="geomeval capgeo build --source SOURCE"):
        integration.resolve_dataset(
            str(sample_file(SOURCES["geoqa"])), SPEC
        )  # a source file: build it first
    monkeypatch.setenv("GEOMEVAL_CACHE_DIR", str(tmp_path / "cache"))
    first = integration.resolve_dataset(
        None, SPEC
    )  # the embedded sample, built once into the cache
    assert Path(first).parent == tmp_path / "cache" / "lmms_eval" and Path(first).name.startswith(
        "capgeo-"
    )
    assert integration.resolve_dataset(None, SPEC) == first
    assert reasoning_data.load(first)["id"] == reasoning_data.load(str(built))["id"]


# --------------------------------------------------------------------------- the real CLI


def _answers() -> list[tuple[str, str]]:
    """(caption, gold answer) of every sample row, longest caption first: a Vision Only
    caption holds its Vision Intensive twin's, and the longer one must match first."""
    rows = reasoning_data.load(None)
    pairs = [(row["caption"], gold(row)) for row in rows]
    return sorted(pairs, key=lambda pair: -len(pair[0]))


ANSWERS = _answers()


def responder(request: dict) -> str:
    """The reasoner: the gold answer of the problem whose caption it is shown."""
    text = prompt_text(request)
    answer = next((answer for caption, answer in ANSWERS if caption in text), "?")
    return f"<think>From the description.</think><answer>{answer}</answer>"


@pytest.mark.slow
def test_cli_runs_without_image_on_the_embedded_sample(tmp_path: Path) -> None:
    out = tmp_path / "out"
    cache = tmp_path / "cache"
    with ChatServer(responder) as server:
        result = geomeval_lmms_eval(
            "--limit",
            "2",
            "--",
            "--model",
            "openai",
            "--model_args",
            MODEL_ARGS.format(url=server.base_url),
            "--tasks",
            "capgeo_reasoning_without_image",
            "--log_samples",
            "--output_path",
            str(out),
            cache=cache
        )
        requests = list(server.requests)
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-4000:]
    assert any(cache.glob("lmms_eval/capgeo-*/data/test-*.parquet"))  # the sample, built once
    assert "CapGeo reasoning data" in result.stderr

    scores = only_results(out)["results"][
        "capgeo_reasoning_without_image"
    ]
    assert scores["accuracy,none"] == 1.0 and scores["coverage,none"] == 1.0
    assert scores["accuracy_stderr,none"] == 0.0 and scores["coverage_stderr,none"] == 0.0
    assert "capgeo_reasoning_without_image: accuracy 1.0000 ± 0.0000 (coverage 1.0000)" in result.stdout

    # Two requests (--limit 2), text only, each the caption with the problem transcribed in it.
    assert len(requests) == 2
    for request in requests:
        assert all(part["type"] == "text" for part in request["messages"][-1]["content"])
        text = prompt_text(request)
        assert "The figure is not shown; the whole problem is restated in words instead" in text
        assert re.search(r"Question: As shown in the figure", text)
    samples_file = next(out.rglob("*_samples_capgeo_reasoning_without_image.jsonl"))
    samples = [json.loads(line) for line in samples_file.read_text().splitlines()]
    assert {s["accuracy"]["id"]: s["accuracy"]["value"] for s in samples} == {
        "mathverse_vision_only/2": 1.0,
        "mathverse_vision_only/4": 1.0,
    }
