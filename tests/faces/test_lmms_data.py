"""The data geomeval's lmms-eval tasks read when lmms-eval loads them itself: the authors' Hub
datasets (ME2: jungypark/ME2, GGBench: opendatalab-raiser/GGBench) converted by geomeval's
reader for their layout, a local release named by GEOMEVAL_LMMS_DATA_<NAME> or the YAML's
`dataset_kwargs: {geomeval_data: PATH}`, and a non-zero exit with the fix when there is none
(lmms-eval's CLI itself exits 0 when a task fails to load)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from importlib.util import find_spec
from pathlib import Path

import pytest

from geomeval.engines.hfdata import is_built_dataset
from geomeval.integrations.lmms import loading
from geomeval.integrations.lmms.datasets import tasks_dir
from geomeval.integrations.lmms.registry import BENCHMARKS, SPECS, TASKS
from geomeval.testing.chat_server import ChatServer


def _fixture_module(name: str):
    """A module of tests/benchmarks/ whose fixture is written in an authors' layout."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(f"{name}_fixture", Path(__file__).parents[1] / "benchmarks" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# ME2's Hub dataset as the authors' lmms-eval task reads it; GeoLaux's GitHub repository
ME2_FIXTURE = _fixture_module("test_me2_hub_layout")
GEOLAUX_FIXTURE = _fixture_module("test_geolaux_layouts")


@pytest.fixture(autouse=True)
def _no_data_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for key in [k for k in os.environ if k.startswith("GEOMEVAL_LMMS_DATA_")]:
        monkeypatch.delenv(key)
    monkeypatch.setenv("GEOMEVAL_CACHE_DIR", str(tmp_path / "cache"))


def me2_hub_folder(root: Path) -> Path:
    """A download of the authors' jungypark/ME2 (their columns, split `train`)."""
    folder = root / "jungypark-ME2"
    ME2_FIXTURE.write_hub_layout(folder)
    return folder


def ggbench_hub_clone(root: Path) -> Path:
    """A clone of the authors' opendatalab-raiser/GGBench: the release under dataset/
    (`GGBench_dataset.json` beside `Q&A_image/` and `long_image/`, as their evaluate.py reads
    it), holding geomeval's own sample problems, none of the release's."""
    clone = root / "GGBench"
    write_ggbench_hub_layout(clone)
    return clone


def write_ggbench_hub_layout(folder: Path) -> None:
    from geomeval.benchmarks.ggbench import data

    shutil.copytree(data.sample_path(), folder / "dataset")


def hub_cache(hf_home: Path, repo_id: str, write) -> Path:
    """The authors' Hub dataset `repo_id` as huggingface_hub leaves it in its cache (a ref and
    a snapshot), `write(folder)` filling the snapshot: what the shipped YAML's `dataset_path`
    resolves to offline."""
    revision = "0" * 40
    repo = hf_home / "hub" / f"datasets--{repo_id.replace('/', '--')}"
    (repo / "refs").mkdir(parents=True)
    (repo / "refs" / "main").write_text(revision, encoding="utf-8")
    snapshot = repo / "snapshots" / revision
    write(snapshot)
    return snapshot


# Where each benchmark's fixture comes from. ME2 and GGBench: the authors' own Hub datasets,
# in their layout, put in the Hub cache under their ids (the shipped YAMLs name them). The
# others have no Hub dataset of their authors (GeoLaux: a GitHub repository; GeoEval: a
# download on request; CapGeo: a code link), so their fixture is the local-build path: the
# variable naming a release in the authors' layout (GeoLaux: a clone of their repository,
# as tests/benchmarks/test_geolaux_layouts.py writes it), or CapGeo's built folder.
HUB_FIXTURES = {
    "jungypark/ME2": lambda folder: ME2_FIXTURE.write_hub_layout(folder),
    "opendatalab-raiser/GGBench": write_ggbench_hub_layout,
}


def _built_capgeo(root: Path) -> Path:
    """CapGeo's reasoning set is read from a folder its own build writes (captions joined in)."""
    from geomeval.benchmarks.capgeo import data

    data.build(str(data.sample_path()), str(root / "capgeo-built"))
    return root / "capgeo-built"


def _raw_sample(name: str):
    return lambda root: SPECS[name].data().sample_path()


# benchmark -> (a folder to write under) -> what GEOMEVAL_LMMS_DATA_<NAME> names
LOCAL_FIXTURES = {"geolaux": lambda root: GEOLAUX_FIXTURE.repository_layout(root / "GeoLaux"),
                  "geoeval": _raw_sample("geoeval"),
                  "capgeo": _built_capgeo, "capgeo_bench": _raw_sample("capgeo_bench")}


def test_no_data_named_exits_with_the_fix() -> None:
    with pytest.raises(SystemExit) as stopped:
        loading.task_dataset("geoeval_2000", None, None)
    message = str(stopped.value.code)
    assert "geoeval_2000" in message and "GEOMEVAL_LMMS_DATA_GEOEVAL=PATH" in message
    assert "geomeval build geoeval" in message and "geomeval_data" in message


def shipped_dataset_path(task: str) -> str | None:
    """The `dataset_path` lmms-eval gives `task` from the shipped YAMLs (its template's)."""
    from geomeval.integrations.lmms_eval import for_task, load_task_yaml

    spec = for_task(task)
    return load_task_yaml((tasks_dir() / spec.task_folder / spec.template).read_text(encoding="utf-8")).get("dataset_path")


@pytest.mark.parametrize("task", TASKS)
def test_every_task_without_data_stops_with_a_one_line_fix(task: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """What lmms-eval's download of each shipped task meets with no data: its YAML's
    dataset_path (the authors' Hub id, not in this empty Hub cache, or none), no variable."""
    from geomeval.integrations.lmms_eval import for_task

    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setattr("huggingface_hub.constants.HF_HUB_OFFLINE", True)
    monkeypatch.setattr("huggingface_hub.constants.HF_HUB_CACHE", str(tmp_path / "hf" / "hub"))
    with pytest.raises(SystemExit) as stopped:
        loading.task_dataset(task, shipped_dataset_path(task), None)
    message = str(stopped.value.code)
    spec = for_task(task)
    assert "\n" not in message and message.startswith(f"geomeval lmms-eval task {task}: no {spec.title} data")
    assert f"Fix: get the release and set {loading.env_name(spec)}=PATH" in message
    # PATH as that benchmark's data can be: CapGeo's reasoning set only as its own build writes it
    build = "geomeval capgeo build --source SOURCE" if spec.name == "capgeo" else f"geomeval build {spec.name} --raw RELEASE"
    assert build in message and (spec.name != "capgeo" or "geomeval build capgeo" not in message)
    if spec.hub_dataset:  # the authors' id is named, with how to reach it
        assert f"{loading.env_name(spec)}={spec.hub_dataset}" in message


def test_the_variable_names_a_raw_release_converted_once(monkeypatch: pytest.MonkeyPatch) -> None:
    from geomeval.benchmarks.geolaux import data

    monkeypatch.setenv("GEOMEVAL_LMMS_DATA_GEOLAUX", str(data.sample_path()))
    path, kwargs = loading.task_dataset("geolaux", None, None)
    assert is_built_dataset(Path(path)) and kwargs is None
    assert loading.task_dataset("geolaux", None, None)[0] == path  # built once, reused
    # the YAML's dataset_kwargs win over the variable, and lmms-eval's own kwargs pass through
    built = Path(path)
    again, rest = loading.task_dataset("geolaux", None, {"geomeval_data": str(built), "num_proc": 1})
    assert again == str(built.resolve()) and rest == {"num_proc": 1}


def test_me2_reads_the_authors_hub_layout(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from datasets import load_dataset

    from geomeval.benchmarks.me2.features import FEATURES

    folder = me2_hub_folder(tmp_path)
    monkeypatch.setattr(loading, "_authors_snapshot", lambda repo_id: folder if repo_id == "jungypark/ME2" else None)
    path, _ = loading.task_dataset("me2_solve", "jungypark/ME2", None)  # the shipped YAML's dataset_path
    rows = load_dataset(path, split="test")
    assert rows.features == FEATURES and len(rows) == len(ME2_FIXTURE.hub_rows())


def test_ggbench_reads_a_clone_of_the_authors_hub_dataset(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from datasets import load_dataset

    clone = ggbench_hub_clone(tmp_path)
    monkeypatch.setattr(loading, "_authors_snapshot", lambda repo_id: clone)
    path, _ = loading.task_dataset("ggbench_code", "opendatalab-raiser/GGBench", None)
    assert len(load_dataset(path, split="test")) == 15


def test_the_authors_id_unreachable_offline_exits_with_the_fix(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))  # an empty Hub cache

    def offline(repo_id: str) -> Path:
        raise OSError("offline and not in the Hub cache")

    monkeypatch.setattr(loading, "_authors_snapshot", offline)
    with pytest.raises(SystemExit) as stopped:
        loading.task_dataset("me2_solve", "jungypark/ME2", None)
    message = str(stopped.value.code)
    assert "jungypark/ME2" in message and "gated" in message and "GEOMEVAL_LMMS_DATA_ME2" in message


def test_shipped_yamls_read_the_authors_data_or_nothing_under_a_benchmark_name() -> None:
    from geomeval.integrations.lmms_eval import BENCHMARKS, TEMPLATE, load_task_yaml  # noqa: F401

    seen = {}
    for path in sorted(tasks_dir().glob("*/_*template_yaml")):
        seen[f"{path.parent.name}/{path.name}"] = load_task_yaml(path.read_text(encoding="utf-8")).get("dataset_path")
    assert seen == {
        "capgeo/_default_template_yaml": None, "capgeo/_reasoning_template_yaml": None,
        "geoeval/_default_template_yaml": None, "geolaux/_default_template_yaml": None,
        "ggbench/_default_template_yaml": "opendatalab-raiser/GGBench", "me2/_default_template_yaml": "jungypark/ME2",
    }


# --------------------------------------------------------------------------- lmms-eval's own CLI

needs_lmms = pytest.mark.skipif(find_spec("lmms_eval") is None and not os.environ.get("REQUIRE_LMMS_EVAL"),
                                reason="lmms-eval is not installed (pip install -c constraints.txt '.[lmms]')")
MODEL_ARGS = "model=test-model,base_url={url},api_key=sk-test,num_concurrent=2,max_retries=1"


def lmms_eval(tmp_path: Path, url: str, task: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("GEOMEVAL_")}
    clean.update(HF_HUB_OFFLINE="1", HF_DATASETS_OFFLINE="1", HF_HOME=str(tmp_path / "hf"),
                 GEOMEVAL_CACHE_DIR=str(tmp_path / "cache"), NO_PROXY="127.0.0.1,localhost", **env)
    return subprocess.run(
        [sys.executable, "-m", "lmms_eval", "--model", "openai", "--model_args", MODEL_ARGS.format(url=url),
         "--include_path", str(tasks_dir()), "--tasks", task, "--limit", "2", "--output_path", str(tmp_path / "out")],
        capture_output=True, text=True, timeout=300, env=clean, check=False)


@pytest.mark.slow
@needs_lmms
@pytest.mark.parametrize("spec", BENCHMARKS, ids=[spec.name for spec in BENCHMARKS])
def test_lmms_eval_cli_exits_non_zero_without_data(spec, tmp_path: Path) -> None:
    """Each benchmark's tasks, through lmms-eval's CLI with the shipped YAMLs, no variable and
    an empty Hub cache: exit 1, one line with the fix, and no request sent."""
    with ChatServer(lambda request: "Answer: A") as server:
        result = lmms_eval(tmp_path, server.base_url, ",".join(spec.tasks), {})
        requests = list(server.requests)
    said = result.stdout + result.stderr
    assert result.returncode == 1, said[-3000:]
    (line,) = [line for line in said.splitlines() if "Fix: get the release" in line]
    assert any(line.startswith(f"geomeval lmms-eval task {task}: no {spec.title} data (") for task in spec.tasks), line
    assert f"{loading.env_name(spec)}=PATH" in line and requests == []
    if spec.hub_dataset:  # the authors' Hub id, named with how to reach it (ME2's is gated)
        assert f"{loading.env_name(spec)}={spec.hub_dataset}" in line


def test_each_benchmark_has_a_fixture_in_its_authors_layout() -> None:
    """The authors' Hub ids the shipped YAMLs read each have a fixture in their layout; the
    benchmarks without one are those whose authors publish no Hub dataset."""
    assert {spec.name for spec in BENCHMARKS if spec.hub_dataset} == {"me2", "ggbench"}
    assert set(HUB_FIXTURES) == {spec.hub_dataset for spec in BENCHMARKS if spec.hub_dataset}
    assert set(LOCAL_FIXTURES) == {spec.name for spec in BENCHMARKS if not spec.hub_dataset}


@pytest.mark.slow
@needs_lmms
def test_lmms_eval_cli_runs_every_task_on_its_authors_layout(tmp_path: Path) -> None:
    """Every shipped task at once through lmms-eval's CLI and the shipped YAMLs: ME2 and GGBench
    from their authors' Hub ids (the fixture in the Hub cache, read offline and converted by
    geomeval's reader), the others from GEOMEVAL_LMMS_DATA_<NAME> naming a raw release in
    their authors' layout. Each task asks the model --limit 2 times and reports every metric."""
    for repo_id, write in HUB_FIXTURES.items():
        hub_cache(tmp_path / "hf", repo_id, write)
    env = {loading.env_name(SPECS[name]): str(local(tmp_path)) for name, local in LOCAL_FIXTURES.items()}
    # GeoEval's four tasks through their group, whose rows carry the group's own Stderr
    named = [task for task in TASKS if task not in SPECS["geoeval"].tasks] + ["geoeval"]
    with ChatServer(lambda request: "The answer is A.") as server:
        result = lmms_eval(tmp_path, server.base_url, ",".join(named), env)
        asked = len(server.requests)
    said = result.stdout + result.stderr
    assert result.returncode == 0, said[-4000:]
    assert asked == 2 * len(TASKS), said[-4000:]
    (found,) = (tmp_path / "out").rglob("*_results.json")
    results = json.loads(found.read_text(encoding="utf-8"))["results"]
    from geomeval.integrations.lmms_eval import for_task, metric_keys, stderr_over_tasks

    for task in TASKS:
        reported = {key.partition(",")[0] for key in results[task] if "_stderr," not in key}
        assert set(metric_keys(for_task(task), task).values()) | {"coverage"} <= reported, (task, reported)
    subsets = SPECS["geoeval"].tasks
    for metric in ("A", "T"):  # the standard error of the group's mean over its subsets
        assert results["geoeval"][f"{metric}_stderr,none"] == stderr_over_tasks(
            [results[task][f"{metric},none"] for task in subsets],
            [results[task][f"{metric}_stderr,none"] for task in subsets], [2] * len(subsets))
    built = {path.name.rpartition("-")[0] for path in (tmp_path / "cache" / "lmms_eval").iterdir()}
    # each raw layout converted once by geomeval's reader (CapGeo's fixture is already built)
    assert built == {spec.name for spec in BENCHMARKS} - {"capgeo"}


@pytest.mark.slow
@needs_lmms
def test_a_judged_lmms_eval_run_ends_without_unclosed_sessions(tmp_path: Path) -> None:
    """The judge's HTTP sessions are closed at exit (integrations/lmms/settings.close_judges):
    aiohttp's "Unclosed client session" no longer ends every judged run."""
    folder = me2_hub_folder(tmp_path)
    verdict = '{"correctness": 4, "fidelity": 3, "referencing": 4, "reason": "ok"}'
    with ChatServer(lambda request: verdict) as server:
        result = lmms_eval(tmp_path, server.base_url, "me2_explain",
                           {"GEOMEVAL_LMMS_DATA_ME2": str(folder), "GEOMEVAL_JUDGE_MODEL": "judge",
                            "GEOMEVAL_JUDGE_BASE_URL": server.base_url, "GEOMEVAL_JUDGE_API_KEY": "sk-judge"})
        judged = [r for r in server.requests if r.get("model") == "judge"]
    said = result.stdout + result.stderr
    assert result.returncode == 0, said[-4000:]
    assert len(judged) == 2  # --limit 2: the judge was asked, so its session was opened
    assert "Unclosed client session" not in said and "Unclosed connector" not in said
