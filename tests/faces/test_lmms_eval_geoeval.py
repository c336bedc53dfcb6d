"""lmms-eval 0.7.3 running GeoEval's tasks: one built folder with one Hugging Face config per
subset, each task reading its own through `dataset_name`; the group `geoeval`; GeoEval's own
prompt and scorer (A over every item, T over text-only items, not applicable to an item with
a diagram); and the real CLI on the embedded sample against a loopback chat server that
answers the gold answers.
"""

from __future__ import annotations

import base64
import io
import json
import math
import os
import shutil
from collections import defaultdict
from importlib.util import find_spec
from pathlib import Path
from typing import Any

import pytest
from lmms_support import build_sample, geomeval_lmms_eval, include_dir, only_results

from geomeval.benchmarks.base import DataError
from geomeval.benchmarks.geoeval import data, scoring
from geomeval.benchmarks.geoeval.benchmark import GeoEval
from geomeval.benchmarks.geoeval.features import SUBSETS
from geomeval.benchmarks.geoeval.prompts import MODES, problem_text
from geomeval.integrations import lmms_eval as integration
from geomeval.testing.chat_server import ChatServer, prompt_text

pytestmark = pytest.mark.skipif(
    find_spec("lmms_eval") is None and not os.environ.get("REQUIRE_LMMS_EVAL"),
    reason="lmms-eval is not installed (pip install -c constraints.txt '.[lmms]')",
)

SPEC = integration.SPECS["geoeval"]
GROUP = "geoeval"
MODEL_ARGS = "model=test-model,base_url={url},api_key=sk-test,num_concurrent=4,max_retries=2"
FAILED = "[LMMS_EVAL_REQUEST_FAILED after 2 retries] connection refused"


def gold(row: dict[str, Any], task: str) -> str:
    """The answer the task grades: the value of x in the backward subset."""
    return row["backward_answer"] if task == "geoeval_backward" else row["answer"]


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_sample(tmp_path_factory, data, "geoeval")


@pytest.fixture(scope="module")
def include(built: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return include_dir(tmp_path_factory, {"geoeval": str(built)})


@pytest.fixture(scope="module")
def manager(include: Path) -> Any:
    from lmms_eval.tasks import TaskManager

    return TaskManager(include_path=str(include), include_defaults=False)


@pytest.fixture(scope="module")
def tasks(manager: Any) -> dict[str, Any]:
    from lmms_eval.tasks import get_task_dict

    return get_task_dict(list(SPEC.tasks), manager)


def docs(tasks: dict[str, Any], task: str) -> list[dict[str, Any]]:
    """Rows as lmms-eval hands them to process_results and doc_to_text (the diagram kept)."""
    return [dict(doc) for doc in tasks[task].eval_docs_no_media]


def full_docs(tasks: dict[str, Any], task: str) -> list[dict[str, Any]]:
    """Rows as chat backends hand them to doc_to_messages (the diagram decoded to PIL)."""
    return [dict(doc) for doc in tasks[task].test_docs()]


def test_the_entry_agrees_with_the_benchmark() -> None:
    assert SPEC.tasks == GeoEval.tasks == SUBSETS
    assert SPEC.metrics == scoring.METRICS and integration.metric_keys(SPEC) == {"A": "A", "T": "T"}
    assert dict(SPEC.dataset_names) == {task: task for task in SUBSETS}  # one config per subset
    assert SPEC.data() is data and SPEC.hub_dataset == ""
    assert "diagram" in SPEC.features() and SPEC.scoring_columns == ("diagram",)
    assert all(integration.for_task(task) is SPEC for task in SUBSETS)
    assert SPEC.groups == (GROUP,) and GROUP in integration.GROUPS
    shipped = integration.tasks_dir() / "geoeval"
    assert sorted(p.name for p in shipped.glob("*.yaml")) == sorted(
        [f"{GROUP}.yaml", *(f"{t}.yaml" for t in SUBSETS)]
    )
    for task in SUBSETS:
        config = integration.load_task_yaml((shipped / f"{task}.yaml").read_text(encoding="utf-8"))
        assert config["dataset_name"] == SPEC.dataset_name(task) == task
    assert GeoEval().mode == MODES[0] == "text_description_diagram"  # the prompt's mode


def test_lmms_eval_loads_each_task_with_its_config(
    include: Path, built: Path, manager: Any, tasks: dict
) -> None:
    from lmms_eval.utils import load_yaml_config

    assert set(SUBSETS) | {GROUP} <= set(manager.all_tasks) and GROUP in manager.all_groups
    assert not any("template" in name for name in manager.all_tasks)
    folder = include / "geomeval" / "geoeval"
    shipped = integration.load_task_yaml(
        (integration.tasks_dir() / "geoeval" / integration.TEMPLATE).read_text()
    )
    assert "dataset_path" not in shipped  # no Hub copy may be read: a local release
    assert integration.load_task_yaml((folder / integration.TEMPLATE).read_text()) == {
        **shipped,
        "dataset_path": str(built),
    }
    for task in SUBSETS:
        config = load_yaml_config(str(folder / f"{task}.yaml"), mode="full")
        assert config["task"] == task and config["dataset_name"] == task
        assert config["dataset_path"] == str(built) and config["test_split"] == "test"
        assert config["output_type"] == "generate_until"
        assert config["generation_kwargs"]["temperature"] == 0
        assert config["process_results_use_image"] is True
        assert config["doc_to_target"] == (
            "backward_answer" if task == "geoeval_backward" else "answer"
        )
        for hook in ("doc_to_messages", "doc_to_text", "doc_to_visual", "process_results"):
            assert config[hook].__name__ == f"{task}_{hook}"
        aggregations = {m["metric"]: m["aggregation"].__name__ for m in config["metric_list"]}
        assert aggregations == {
            "A": "aggregate_scored",
            "T": "aggregate_scored",
            "coverage": "coverage",  # once for the task
        }
        # lmms-eval read this task's own config of the one folder: its rows, in order.
        assert tasks[task].config.dataset_name == task
        expected = data.load(str(built), config=task)
        rows = docs(tasks, task)
        assert [r["id"] for r in rows] == expected["id"] and "diagram" in rows[0]
        assert {r["subset"] for r in rows} == {SUBSETS.index(task)}


def test_lmms_eval_loads_the_group(manager: Any) -> None:
    from lmms_eval.api.group import ConfigurableGroup
    from lmms_eval.tasks import get_task_dict

    loaded = get_task_dict([GROUP], manager)
    [(group, subtasks)] = loaded.items()
    assert isinstance(group, ConfigurableGroup) and group.group_name == GROUP
    assert list(subtasks) == list(SUBSETS)
    assert {name: task.config.dataset_name for name, task in subtasks.items()} == {
        t: t for t in SUBSETS
    }
    config = group.config
    assert config["task"] == list(SUBSETS)
    assert [
        (m["metric"], m["aggregation"].__name__, m["weight_by_size"])
        for m in config["aggregate_metric_list"]
    ] == [
        ("A", "mean_over_tasks", False),
        ("T", "mean_over_tasks", False),
    ]


def test_messages_are_geoevals_prompt(built: Path, tasks: dict) -> None:
    """What lmms-eval sends is `GeoEval.messages` on the item `geomeval run` loads: the text,
    then the diagram where the item has one (the same pixels)."""
    from PIL import Image, ImageChops

    bench = GeoEval()
    for task in SUBSETS:
        items = {item.id: item for item in bench.load_items(str(built), task, None)}
        for doc in full_docs(tasks, task):
            ours = integration.doc_to_messages(doc, task)
            expected = bench.messages(items[doc["id"]], task)[0]["content"]
            parts = ours[0]["content"]
            assert [m["role"] for m in ours] == ["user"]
            assert [p["type"] for p in parts] == (["text", "image"] if doc["diagram"] else ["text"])
            assert [p["type"] for p in expected] == (
                ["text", "image_url"] if doc["diagram"] else ["text"]
            )
            assert parts[0]["text"] == expected[0]["text"] == integration.doc_to_text(doc, task)
            assert problem_text(integration.doc_to_row(doc, task), task).strip() in parts[0]["text"]
            # the paper's prompt (Table 10): no sentence about the attached image, choices as a list
            assert parts[0]["text"].startswith("Solve the following math problem.\n")
            assert "Its diagram is attached." not in parts[0]["text"]
            assert ("\nChoices: [" in parts[0]["text"]) is bool(integration.doc_to_row(doc, task)["choices"])
            visuals = integration.doc_to_visual(doc, task)
            assert len(visuals) == (1 if doc["diagram"] else 0)
            if visuals:
                payload = expected[1]["image_url"]["url"].partition(",")[2]
                original = Image.open(io.BytesIO(base64.b64decode(payload)))
                assert (
                    ImageChops.difference(
                        visuals[0].convert("RGBA"), original.convert("RGBA")
                    ).getbbox()
                    is None
                )
        # doc_to_text works on the process_results rows too (lmms-eval builds requests from them)
        row = docs(tasks, task)[0]
        assert (
            integration.doc_to_text(row, task)
            == integration.doc_to_messages(row, task)[0]["content"][0]["text"]
        )


def test_the_gold_answer_scores_A_one_and_T_only_on_text_only_items(tasks: dict) -> None:
    seen_text_only = False
    for task in SUBSETS:
        for doc in docs(tasks, task):
            out = integration.process_results(
                doc, [f"Brief reasoning.\nAnswer: {gold(doc, task)}"], task
            )
            assert out["A"]["value"] == 1.0, (task, doc["id"], out["A"]["explanation"])
            assert out["A"] == {**out["A"], "id": doc["id"], "task": task, "metric": "A"}
            states = out["coverage"]["metrics"]
            assert states["A"] == "scored"
            if doc["diagram"]:  # T counts text-only items: not applicable, no failure
                assert out["T"]["value"] is None and out["T"]["not_applicable"] is True
                assert "the item has a diagram" in out["T"]["unscored"]
                assert states["T"] == "not_applicable"
            else:
                seen_text_only = True
                assert out["T"]["value"] == 1.0 and states["T"] == "scored"
    assert seen_text_only
    doc = docs(tasks, "geoeval_2000")[1]  # 102: Find A B (8.0), free response
    wrong = integration.entry_points("geoeval_2000")["geoeval_2000_process_results"](doc, ["Answer: 12345"])
    assert wrong["A"]["value"] == 0.0 and "gold '8.0'" in wrong["A"]["explanation"]


def test_a_failed_request_is_unscored_and_T_coverage_leaves_out_diagram_items(tasks: dict) -> None:
    rows = {doc["id"]: doc for doc in docs(tasks, "geoeval_2000")}
    diagram, text_only, other = rows["101"], rows["105"], rows["109"]
    assert diagram["diagram"] and not text_only["diagram"] and not other["diagram"]
    failed = integration.entry_points("geoeval_2000")["geoeval_2000_process_results"](text_only, [FAILED])
    assert failed["A"]["value"] is None and "model failed" in failed["A"]["unscored"]
    assert failed["T"]["value"] is None and not failed["T"]["not_applicable"]
    assert failed["coverage"] == {"id": "105", "task": "geoeval_2000", "metrics": {"A": "unscored", "T": "unscored"}}
    right = [
        integration.entry_points("geoeval_2000")["geoeval_2000_process_results"](d, [f"Answer: {d['answer']}"])
        for d in (diagram, other)
    ]
    entries = [*right, failed]
    assert integration.aggregate_scored([e["A"] for e in entries]) == 1.0  # the failure is no zero
    assert integration.aggregate_scored([e["T"] for e in entries]) == 1.0
    # A has 2 of 3; T applies to the two text-only items, one scored (the diagram item is not
    # counted): T's 1 of 2 is the task's coverage, its least covered metric's
    assert integration.coverage([e["coverage"] for e in entries]) == 0.5
    assert integration.coverage([e["coverage"] for e in right]) == 1.0  # T counts one item, scored
    assert integration.coverage([right[0]["coverage"]]) == 1.0  # T applies to none: A's alone
    failed_diagram = integration.entry_points("geoeval_2000")["geoeval_2000_process_results"](diagram, [FAILED])
    assert failed_diagram["T"]["not_applicable"] is True  # still not applicable, not a failure


def test_process_results_needs_the_diagram_column(tasks: dict) -> None:
    doc = {k: v for k, v in docs(tasks, "geoeval_hard")[0].items() if k != "diagram"}
    with pytest.raises(ValueError, match="process_results_use_image: true"):
        integration.entry_points("geoeval_hard")["geoeval_hard_process_results"](doc, ["Answer: C"])


def test_group_aggregation_skips_subsets_without_a_score() -> None:
    assert integration.mean_over_tasks([1.0, None, 0.5, 0.0], [10, 4, 4, 4]) == pytest.approx(0.5)
    assert integration.mean_over_tasks([1.0, None, 0.5], [6, 4, 2], True) == pytest.approx(7 / 8)
    assert integration.mean_over_tasks([None, None], [3, 3]) is None


def test_group_stderr_is_the_standard_error_of_the_mean_over_subsets() -> None:
    # independent subset means, each counting once: sqrt(sum of SE**2) / k over the k that scored
    assert integration.stderr_over_tasks([0.5, None, 0.25], [0.1, "N/A", 0.2], [10, 4, 8]) == pytest.approx(
        math.sqrt(0.1**2 + 0.2**2) / 2)
    # weighted by size: sqrt(sum of (n_i SE_i)**2) / sum of n_i
    assert integration.stderr_over_tasks([0.5, 0.25], [0.1, 0.2], [10, 30], True) == pytest.approx(
        math.sqrt((10 * 0.1) ** 2 + (30 * 0.2) ** 2) / 40)
    # a subset that counts but has no standard error (one scored item), or none that counts
    assert integration.stderr_over_tasks([0.5, 1.0], [0.1, "N/A"], [10, 1]) == "N/A"
    assert integration.stderr_over_tasks([None, None], ["N/A", "N/A"], [3, 3]) == "N/A"


def test_lmms_eval_gives_the_group_row_its_stderr(manager: Any) -> None:
    """lmms-eval's own group step (consolidate_group_results, as its evaluator calls it) on
    the shipped group: T, scored on two subsets only (the others have no text-only item, so
    T and its Stderr are N/A there), gets the standard error of the group's mean over those
    two; lmms-eval alone writes N/A for it, as any subset's Stderr is N/A, and would pool A's
    as if the group were a size-weighted mean."""
    from lmms_eval import evaluator, evaluator_utils
    from lmms_eval.tasks import get_task_dict

    task_dict = get_task_dict([GROUP], manager)
    assert evaluator.consolidate_group_results is evaluator_utils.consolidate_group_results  # the hook, in both
    rows = {
        "geoeval_2000": (0.5, 0.1, None, "N/A", 40),
        "geoeval_backward": (0.25, 0.2, None, "N/A", 10),
        "geoeval_aug": (0.75, 0.05, 0.5, 0.25, 40),
        "geoeval_hard": (0.0, 0.0, 1.0, 0.0, 20),
    }
    results: dict[str, dict[str, Any]] = defaultdict(dict)  # as lmms-eval's consolidate_results makes it
    results.update({
        task: {"alias": task, "samples": n, "A,none": a, "A_stderr,none": a_se, "T,none": t, "T_stderr,none": t_se,
               "coverage,none": 1.0, "coverage_stderr,none": 0.0}
        for task, (a, a_se, t, t_se, n) in rows.items()
    })
    results, *_ = evaluator_utils.consolidate_group_results(results, {}, task_dict)
    group = results[GROUP]
    assert group["A,none"] == pytest.approx((0.5 + 0.25 + 0.75 + 0.0) / 4)
    assert group["A_stderr,none"] == pytest.approx(math.sqrt(0.1**2 + 0.2**2 + 0.05**2) / 4)
    assert group["T,none"] == pytest.approx(0.75) and group["T_stderr,none"] == pytest.approx(0.25 / 2)
    assert group["samples"] == 110


def test_data_rules(
    built: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from geomeval.benchmarks.geolaux import data as geolaux_data

    def names(tasks: str) -> list[str]:
        return [
            s.name for s in integration.named_benchmarks(["--model", "openai", "--tasks", tasks])
        ]

    assert (
        names(GROUP)
        == names("geoeval_*")
        == names("geoeval_2000,geoeval_hard,my_task")
        == ["geoeval"]
    )
    assert sorted(names("geo*")) == ["geoeval", "geolaux"]  # the pattern names both: --data is refused
    assert integration.named_tasks(SPEC, ["--tasks", GROUP]) == list(SUBSETS)
    assert integration.named_tasks(SPEC, ["--tasks", "geoeval_hard,geolaux"]) == ["geoeval_hard"]
    assert integration.dataset_paths_for([SPEC], str(built)) == {"geoeval": str(built.resolve())}
    assert integration.card_configs(built) == SUBSETS

    geolaux_built = tmp_path / "geolaux"
    geolaux_data.build(str(geolaux_data.sample_path()), str(geolaux_built))
    with pytest.raises(DataError, match="not a built GeoEval dataset"):
        integration.resolve_dataset(str(geolaux_built), SPEC)

    # The embedded sample, built once into the cache with all four configs.
    monkeypatch.setenv("GEOMEVAL_CACHE_DIR", str(tmp_path / "cache"))
    first = integration.resolve_dataset(None, SPEC)
    assert Path(first).parent == tmp_path / "cache" / "lmms_eval" and Path(first).name.startswith(
        "geoeval-"
    )
    assert integration.resolve_dataset(None, SPEC) == first
    assert integration.card_configs(Path(first)) == SUBSETS
    assert (
        data.load(first, config="geoeval_aug")["id"]
        == data.load(str(built), config="geoeval_aug")["id"]
    )

    # A raw release of the main subset alone: built once, and a task of a missing subset is
    # refused before lmms-eval starts.
    raw = tmp_path / "raw"
    raw.mkdir()
    shutil.copy(data.sample_path() / "select.json", raw / "select.json")
    shutil.copytree(data.sample_path() / "images", raw / "images")
    partial = integration.resolve_dataset(str(raw), SPEC)
    assert integration.card_configs(Path(partial)) == ("geoeval_2000",)
    integration.check_configs(SPEC, partial, ["geoeval_2000"])
    with pytest.raises(ValueError, match="no geoeval_hard config"):
        integration.check_configs(SPEC, partial, ["geoeval_2000", "geoeval_hard"])
    status = integration.run_lmms_eval(["--model", "openai", "--tasks", GROUP], data=str(raw))
    assert status == 2
    err = capsys.readouterr().err
    assert "holds no geoeval_backward, geoeval_aug, geoeval_hard config" in err
    # A changed diagram is a new release: a new cache folder.
    image = next((raw / "images").iterdir())
    image.write_bytes(image.read_bytes() + b"\0")
    assert integration.resolve_dataset(str(raw), SPEC) != partial


# --------------------------------------------------------------------------- the real CLI


def _answers() -> list[tuple[str, str]]:
    """(question as a task asks it, the gold answer) for every subset's sample rows, longest
    question first: a backward question contains its forward one."""
    pairs = {}
    for task in SUBSETS:
        for row in data.load(None, config=task):
            pairs[problem_text(row, task).strip()] = gold(row, task)
    return sorted(pairs.items(), key=lambda pair: -len(pair[0]))


ANSWERS = _answers()


def responder(request: dict) -> str:
    """The model: the gold answer of the question it is asked, on GeoEval's answer line."""
    text = prompt_text(request)
    answer = next((answer for question, answer in ANSWERS if question in text), "?")
    return f"The figure gives it directly.\nAnswer: {answer}"


@pytest.mark.slow
def test_cli_runs_the_group_on_the_embedded_sample(tmp_path: Path) -> None:
    out = tmp_path / "out"
    cache = tmp_path / "cache"
    with ChatServer(responder) as server:
        result = geomeval_lmms_eval(
            "--limit",
            "3",
            "--",
            "--model",
            "openai",
            "--model_args",
            MODEL_ARGS.format(url=server.base_url),
            "--tasks",
            GROUP,
            "--log_samples",
            "--output_path",
            str(out),
            cache=cache,
            drop=("GEOMEVAL_JUDGE_MODEL",),  # offline: the rules extract the answer
        )
        requests = list(server.requests)
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-4000:]
    built = next(cache.glob("lmms_eval/geoeval-*"))  # the sample, built once with every config
    assert {p.name for p in (built / "data").iterdir()} == set(SUBSETS)
    assert "GeoEval data" in result.stderr

    written = only_results(out)
    results = written["results"]
    # --limit 3: 2000 and backward ask 101-103 (diagrams only: T is N/A), aug 101, 103, 105
    # and hard 201-203 (one text-only item each).
    for task in SUBSETS:
        scores = results[task]
        assert scores["A,none"] == 1.0 and scores["coverage,none"] == 1.0, (task, scores)
        assert scores["A_stderr,none"] == 0.0, (task, scores)  # three items, each 1
        t_scored = task in ("geoeval_aug", "geoeval_hard")
        assert scores["T,none"] == (1.0 if t_scored else None), (task, scores)
        assert scores["T_stderr,none"] == "N/A", (task, scores)  # one text-only item at most
    group = results[GROUP]  # the mean over subsets with a score
    assert group["A,none"] == 1.0 and group["T,none"] == 1.0
    assert group["A_stderr,none"] == 0.0  # the standard error of the mean over subsets: each 0
    assert group["T_stderr,none"] == "N/A"  # T's two subsets have one scored item each: no SE
    assert written["group_subtasks"][GROUP] == list(SUBSETS)
    assert "geoeval_hard: A 1.0000 ± 0.0000, T 1.0000 (coverage 1.0000)" in result.stdout
    assert "geoeval_2000: A 1.0000 ± 0.0000, T n/a (coverage 1.0000)\n" in result.stdout  # T applies to none
    assert "geoeval: A 1.0000 ± 0.0000, T 1.0000\n" in result.stdout  # a group has no coverage of its own

    # Twelve requests, each GeoEval's prompt, with the diagram where the item has one.
    assert len(requests) == 12
    with_image = [
        any(p.get("type") == "image_url" for p in r["messages"][-1]["content"]) for r in requests
    ]
    assert sum(with_image) == 10
    assert all(prompt_text(r).startswith("Solve the following math problem.") for r in requests)
    assert not any("Answer:" in prompt_text(r) for r in requests)  # the paper asks for no answer format
    samples_file = next(out.rglob("*_samples_geoeval_backward.jsonl"))
    samples = [json.loads(line) for line in samples_file.read_text().splitlines()]
    assert {s["A"]["id"]: s["A"]["value"] for s in samples} == {"101": 1.0, "102": 1.0, "103": 1.0}
    assert all(s["T"]["not_applicable"] for s in samples)
