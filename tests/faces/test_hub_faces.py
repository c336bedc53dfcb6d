"""The Space and the metric Spaces as the Hub builds them: front matter the Hub accepts,
requirements a Space build can resolve (geomeval from a URL on huggingface.co, never a wheel
beside the file), the fonts its figures need, and a staged folder that holds the wheel the
requirements name. The resolution itself runs in a clean virtual environment with this
repository's wheel standing in for the uploaded one (needs PyPI: CI, REQUIRE_SPACE=1)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from geomeval import __version__
from geomeval.engines.fonts import CJK_FONTS
from geomeval.engines.hfdata import BUILD_MARKER
from geomeval.publishing.publish import (
    SHORT_DESCRIPTION_MAX,
    SPACE_REPO_ID,
    PublishError,
    check_requirements,
    space_wheel_url,
    stage,
    validate_space_card,
)

REPO = Path(__file__).resolve().parents[2]
SPACE = REPO / "spaces" / "geomeval"
# Debian packages (what a Space's packages.txt installs) providing geomeval.engines.fonts.CJK_FONTS files
FONT_PACKAGES = {"fonts-noto-cjk": "opentype/noto/NotoSansCJK-Regular.ttc",
                 "fonts-wqy-zenhei": "truetype/wqy/wqy-zenhei.ttc",
                 "fonts-wqy-microhei": "truetype/wqy/wqy-microhei.ttc",
                 "fonts-droid-fallback": "truetype/droid/DroidSansFallbackFull.ttf"}


@pytest.fixture(scope="module")
def staged_space(tmp_path_factory: pytest.TempPathFactory):
    return stage("space", tmp_path_factory.mktemp("space") / "geomeval")


def test_space_front_matter_is_what_the_hub_accepts() -> None:
    data = validate_space_card(SPACE / "README.md")
    assert len(data["short_description"]) <= SHORT_DESCRIPTION_MAX
    assert data["sdk_version"].startswith("6.")


def test_space_card_checks_catch_what_the_hub_refuses(tmp_path: Path) -> None:
    text = (SPACE / "README.md").read_text(encoding="utf-8")
    bad = tmp_path / "README.md"
    bad.write_text(text.replace("short_description: ", "short_description: " + "x" * 30 + " "), encoding="utf-8")
    with pytest.raises(PublishError, match="the Hub allows 60"):
        validate_space_card(bad)


def test_space_requirements_install_geomeval_from_a_reachable_url() -> None:
    reqs = check_requirements(SPACE / "requirements.txt", space_wheel_url(SPACE_REPO_ID, __version__))
    assert any(r.startswith("geomeval[space] @ https://huggingface.co/spaces/") for r in reqs)
    lines = (SPACE / "requirements.txt").read_text(encoding="utf-8").splitlines()
    assert not [line for line in lines if line.startswith(("--find-links", "-f ", "./", "file:"))]
    local = SPACE / "requirements-local.txt"
    try:
        local.write_text("--find-links .\ngeomeval[space]\n", encoding="utf-8")
        with pytest.raises(PublishError, match="not a requirement a Space build can resolve"):
            check_requirements(local)
    finally:
        local.unlink()


def test_packages_txt_installs_a_font_the_figures_use() -> None:
    packages = [p.strip() for p in (SPACE / "packages.txt").read_text(encoding="utf-8").splitlines() if p.strip()]
    assert packages and all(p in FONT_PACKAGES for p in packages)
    files = {pattern for _, patterns in CJK_FONTS for pattern in patterns}
    assert {FONT_PACKAGES[p] for p in packages} <= files


@pytest.mark.slow
def test_staged_space_holds_the_wheel_its_requirements_name(staged_space) -> None:
    folder = staged_space.folder
    # the build marker stays beside what is pushed (publish's ignore_patterns keep it off the Hub)
    assert sorted(p.name for p in folder.iterdir() if p.name != BUILD_MARKER) == [
        "README.md", "app.py", "packages.txt", "requirements.txt", "runs", "wheels"]
    # The Runs tab of the Hub build: a sample run of every benchmark × task, in the app's default runs folder.
    from geomeval.demo import boards, sample_runs

    assert sorted(boards.run_names(folder / "runs")) == sorted(n for n, _b, _t in sample_runs.sample_run_names())
    wheel = folder / "wheels" / f"geomeval-{__version__}-py3-none-any.whl"
    names = zipfile.ZipFile(wheel).namelist()
    assert "geomeval/demo/app.py" in names and "geomeval/publishing/publish.py" in names
    assert space_wheel_url(SPACE_REPO_ID, __version__) in (folder / "requirements.txt").read_text(encoding="utf-8")


@pytest.mark.slow
def test_staged_space_for_another_repo_points_at_that_repo(tmp_path: Path) -> None:
    result = stage("space", tmp_path / "s", repo_id="someone/geo-space")
    text = (result.folder / "requirements.txt").read_text(encoding="utf-8")
    assert "https://huggingface.co/spaces/someone/geo-space/resolve/main/wheels/" in text
    assert "spaces/geomeval/geomeval" not in text


@pytest.mark.skipif(not os.environ.get("REQUIRE_SPACE"), reason="resolves against PyPI (about a minute): CI sets REQUIRE_SPACE=1")
@pytest.mark.slow
def test_space_requirements_resolve_in_a_clean_venv(staged_space, tmp_path: Path) -> None:
    """What the Space build runs, with the staged wheel standing in for its URL."""
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=120)
    wheel = next((staged_space.folder / "wheels").glob("*.whl"))
    text = (staged_space.folder / "requirements.txt").read_text(encoding="utf-8")
    requirements = tmp_path / "requirements.txt"
    requirements.write_text(text.replace(space_wheel_url(SPACE_REPO_ID, __version__), wheel.as_uri()), encoding="utf-8")
    report = tmp_path / "report.json"
    pip = venv / "bin" / "pip"
    subprocess.run([str(pip), "install", "-q", "--dry-run", "--report", str(report), "-c", str(REPO / "constraints.txt"),
                    "-r", str(requirements)], check=True, timeout=600)
    installed = {i["metadata"]["name"].lower(): i["metadata"]["version"] for i in json.loads(report.read_text())["install"]}
    assert installed["geomeval"] == __version__
    assert installed["gradio"].startswith("6.")
    assert "torch" not in installed  # the Space needs no torch


def _task_yaml(path: Path) -> dict:
    """A task YAML as data (lmms-eval's `!function` tags read as their text)."""
    import yaml

    class Loader(yaml.SafeLoader):
        pass

    Loader.add_constructor("!function", lambda loader, node: loader.construct_scalar(node))
    return yaml.load(path.read_text(encoding="utf-8"), Loader=Loader)


def test_each_lmms_task_folder_has_a_readme_naming_its_tasks_data_and_metrics() -> None:
    from geomeval.integrations.lmms_eval import BENCHMARKS, metric_keys

    tasks_root = REPO / "src" / "geomeval" / "lmms_tasks"
    for spec in BENCHMARKS:
        readme = (tasks_root / spec.task_folder / "README.md").read_text(encoding="utf-8")
        where = spec.hub_dataset or f"GEOMEVAL_LMMS_DATA_{spec.name.upper()}"  # no Hub id: a local release
        assert f"`{where}`" in readme and "```bibtex" in readme
        for task in (*spec.tasks, *spec.groups):
            assert f"| `{task}`" in readme, (spec.name, task)
        for key in metric_keys(spec).values():
            assert f"`{key}`" in readme, (spec.name, key)


def test_coverage_is_one_row_per_task_and_no_higher_is_better_score() -> None:
    """Each YAML that lists metrics lists `coverage` once (the task's, what --min-coverage
    checks), with a null higher_is_better; no per-metric `<metric>_coverage` rows."""
    tasks_root = REPO / "src" / "geomeval" / "lmms_tasks"
    declared = 0
    for path in sorted(tasks_root.glob("*/*yaml")):
        metrics = _task_yaml(path).get("metric_list") or ()
        names = [metric["metric"] for metric in metrics]
        if metrics:
            assert names.count("coverage") == 1, (path.name, names)
            assert not [name for name in names if name.endswith("_coverage")], (path.name, names)
        for metric in metrics:
            if metric["metric"] == "coverage":
                assert metric["higher_is_better"] is None, path.name
                assert metric["aggregation"] == "utils.coverage", path.name
                declared += 1
            else:
                assert isinstance(metric["higher_is_better"], bool), (path.name, metric["metric"])
    assert declared == 8  # the five task folders' templates (two in capgeo/) and ME2's three task YAMLs


# --------------------------------------------------------------------------- metric Spaces

from geomeval.publishing.publish import build_wheel, metric_names, stage_metric  # noqa: E402


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_wheel(tmp_path_factory.mktemp("wheel"))


@pytest.mark.parametrize("name", metric_names())
def test_metric_folder_is_a_complete_metric_space(name: str, wheel: Path, tmp_path: Path) -> None:
    staged = stage_metric(name, tmp_path / name, wheel=wheel)
    apt = ["packages.txt"] if (REPO / "metrics" / name / "packages.txt").is_file() else []  # me2_explanation's WordNet
    assert sorted(p.name for p in staged.folder.iterdir() if p.name != BUILD_MARKER) == sorted(
        ["README.md", "app.py", "requirements.txt", f"{name}.py", "wheels", *apt])
    data = validate_space_card(staged.folder / "README.md", metric=True)
    assert data["app_file"] == "app.py" and data["sdk_version"].startswith("6.")
    assert f"https://huggingface.co/spaces/geomeval/{name}/resolve/main/wheels/" in (
        staged.folder / "requirements.txt").read_text(encoding="utf-8")


def _free_port() -> int:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _load_app(name: str):
    import importlib.util

    spec = importlib.util.spec_from_file_location(f"metric_space_{name}", REPO / "metrics" / name / "app.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.slow
@pytest.mark.parametrize("name", metric_names())
def test_metric_space_serves_its_example_on_loopback(name: str) -> None:
    """The Space's app.py started on 127.0.0.1 under Gradio 6 and called as a client would:
    the result is what the evaluate module computes on the same input."""
    if os.environ.get("REQUIRE_SPACE"):
        import gradio_client
    else:
        pytest.importorskip("gradio")
        gradio_client = pytest.importorskip("gradio_client")
    import evaluate

    from geomeval.publishing.metric_space import jsonable, render_scripts

    app = _load_app(name)
    port = _free_port()
    app.demo.launch(server_name="127.0.0.1", server_port=port, prevent_thread_lock=True, quiet=True)
    try:
        client = gradio_client.Client(f"http://127.0.0.1:{port}/", verbose=False)
        result = client.predict(json.dumps(app.EXAMPLE), api_name="/compute")
        kwargs = render_scripts(dict(app.EXAMPLE)) if name == "ggbench_image" else dict(app.EXAMPLE)
        expected = jsonable(evaluate.load(str(REPO / "metrics" / name / f"{name}.py")).compute(**kwargs))
        assert result == expected
        assert any(isinstance(v, float) for v in result.values())
        with pytest.raises(Exception, match="not JSON"):
            client.predict("{predictions:", api_name="/compute")
    finally:
        app.demo.close()


def test_the_image_metric_space_draws_scripts_as_geomeval_run_does() -> None:
    """The ggbench_image Space draws each prediction in its reference's view at the run's
    render size, so a prediction equal to its reference gives the same PNG; a script over the
    Space's limits is the visitor's error, named, and so are unpaired lists."""
    from geomeval.benchmarks.ggbench.scoring import RENDER_SIZE
    from geomeval.demo.limits import MAX_SCRIPT_CHARS
    from geomeval.geogebra import render_png, run_script
    from geomeval.geogebra.render import fit_window
    from geomeval.publishing.metric_space import render_scripts

    script = "A = (0, 0)\nB = (4, 0)\nC = (1, 3)\nPolygon(A, B, C)"
    drawn = render_scripts({"predictions": [script, None], "references": [script, script]})
    reference = run_script(script)
    expected = render_png(reference, size=RENDER_SIZE, window=fit_window(reference, size=RENDER_SIZE))
    assert drawn["references"] == [{"bytes": expected}] * 2
    assert drawn["predictions"] == [{"bytes": expected}, None]
    with pytest.raises(ValueError, match="script refused"):
        render_scripts({"predictions": ["A = (0, 0)\n" * (MAX_SCRIPT_CHARS // 10)], "references": [script]})
    with pytest.raises(ValueError, match="1 predictions but 2 references"):
        render_scripts({"predictions": [script], "references": [script, script]})
