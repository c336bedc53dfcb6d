"""A visitor's mistakes (issue 40, point 5): a bad deep link is one friendly message over a
working page; a refused input is one line, shown as text, with no server path and no
traceback in the log; an upload with a negative stderr or a malformed interval is refused."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest

from geomeval.demo import DemoInputError, boards, explore, ranking
from geomeval.demo.limits import no_paths, plain, visitor_message


def test_a_deep_link_to_an_unknown_item_opens_the_task_and_says_so() -> None:
    target, problem = explore.open_link({"tab": "explore", "benchmark": "ggbench", "task": "ggbench_code",
                                         "item": "no-such-item"})
    assert target == ("ggbench", "ggbench_code", None)  # the task opens on its first item
    assert problem == "This link names no item 'no-such-item' in ggbench ggbench_code; showing its first item instead."
    target, problem = explore.open_link({"benchmark": "geolaux", "task": "nope"})
    assert target == ("geolaux", "geolaux", None) and problem and "no task 'nope' of geolaux" in problem
    target, problem = explore.open_link({"benchmark": "../etc/passwd"})
    assert target is None and problem and problem.startswith("This link names no benchmark")
    assert explore.open_link({"benchmark": "ggbench", "item": "1"}) == (("ggbench", "ggbench_code", "1"), None)
    assert explore.open_link({}) == (None, None)
    # The controls the page then shows all work: the item list and the first item's view.
    items = explore.filter_items("ggbench", "ggbench_code")
    assert items and explore.item_view("ggbench", "ggbench_code", items[0][1]).markdown


def test_messages_are_one_line_without_server_paths() -> None:
    error = FileNotFoundError(2, "No such file or directory", "/srv/space/runs/a/results.json")
    message = visitor_message(DemoInputError(f"cannot read:\n{error}"))
    assert "\n" not in message and "/srv" not in message and "…/results.json" in message
    assert no_paths("runs/geolaux-random/results.json") == "runs/geolaux-random/results.json"  # a run's name stays
    assert plain("<img src=x onerror=alert(1)> *bold*") == "&lt;img src=x onerror=alert\\(1\\)&gt; \\*bold\\*"


def test_the_runs_note_names_no_folder(tmp_path: Path) -> None:
    note = boards.runs_table(tmp_path / "runs").note
    assert str(tmp_path) not in note and note.startswith("No runs in the runs folder")


@pytest.mark.parametrize(("stats", "refusal"), [
    ({"value": 0.5, "stderr": -5.0}, "\"stderr\" must be a number ≥ 0"),
    ({"value": 0.5, "se": float("nan")}, "\"se\" must be a number ≥ 0"),
    ({"value": 0.5, "ci": [0.6, 0.4]}, "\"ci\" must be [low, high]"),
    ({"value": 0.5, "ci": {"low": 0.1}}, "\"ci\" must be [low, high]"),
    ({"value": 0.5, "coverage": 1.5}, "\"coverage\" must be a share"),
])
def test_uploads_with_impossible_spreads_are_refused(tmp_path: Path, stats: dict, refusal: str) -> None:
    upload = tmp_path / "results.json"
    upload.write_text(json.dumps({"benchmark": "geolaux", "metrics": {"ACS": stats}}))
    with pytest.raises(DemoInputError) as refused:
        ranking.read_uploaded(upload, tmp_path, {})
    assert refusal in str(refused.value) and "'ACS'" in str(refused.value)


def test_uploaded_model_names_are_text(tmp_path: Path) -> None:
    upload = tmp_path / "results.json"
    upload.write_text(json.dumps({"benchmark": "geolaux", "model": {"x": 1}, "metrics": {"ACS": {"value": 0.5}}}))
    with pytest.raises(DemoInputError, match="\"model\" is not text"):
        ranking.read_uploaded(upload, tmp_path, {})
    upload.write_text(json.dumps({"benchmark": "geolaux", "model": "<b>mine</b>", "metrics": {"ACS": {"value": 0.5}}}))
    _name, data = ranking.read_uploaded(upload, tmp_path, {})
    assert data["model"] == "<b>mine</b>"  # kept as written; the app shows it through `plain`


def test_a_refused_input_is_an_escaped_toast_and_one_log_line(caplog: pytest.LogCaptureFixture) -> None:
    gr = pytest.importorskip("gradio")
    from geomeval.demo import app

    @app._face
    def refuse() -> None:
        raise DemoInputError("no run '<b>x</b>' in\n/srv/space/runs/secret")

    with caplog.at_level(logging.INFO, logger="geomeval.demo"), pytest.raises(gr.Error) as raised:
        refuse()
    assert raised.value.message == "no run '&lt;b&gt;x&lt;/b&gt;' in …/secret"
    assert raised.value.print_exception is False  # Gradio prints no traceback for it
    records = [r for r in caplog.records if r.name == "geomeval.demo"]
    assert len(records) == 1 and records[0].exc_info is None and "\n" not in records[0].getMessage()


def test_a_deep_link_to_an_unknown_run_or_item_opens_the_first_and_warns(tmp_path: Path) -> None:
    pytest.importorskip("gradio")
    from types import SimpleNamespace

    from geomeval.benchmarks import get_benchmark
    from geomeval.demo import app
    from geomeval.engines.judges import parse_judge_spec
    from geomeval.engines.models import ModelOptions, parse_model_spec
    from geomeval.run.runner import run

    root = tmp_path / "runs"
    run(get_benchmark("geolaux"), task="geolaux", model=parse_model_spec("baseline:random", ModelOptions()),
        judge=parse_judge_spec("offline"), out_dir=root / "gl")
    opened = app._run_handlers(root)["open"]
    for query, warning in (({"tab": "runs", "run": "../secret"}, "no run '../secret'"),
                           ({"tab": "runs", "run": "gl", "item": "nope"}, "no item 'nope' in run 'gl'")):
        with pytest.warns(UserWarning, match=warning):
            outputs = opened(SimpleNamespace(query_params=query))
        run_name, item = outputs[1], outputs[3]
        assert run_name["value"] == "gl" and item["value"] == "en_1"  # the first run, its first item
        assert outputs[5].startswith("### en_1")
