"""The contract every registered benchmark keeps, checked for each benchmark × task.

A benchmark is covered here the moment it is registered: its embedded sample runs end to end
(a floor model, the offline judge), a second run resumes without posing anything again and
changes nothing, `geomeval score` rescores to the same numbers, the task's `evaluate` module
computes the run's numbers from its records (or the folder says why it has none), lmms-eval
poses each item exactly as `geomeval run` does, the card in the repository is the one its code renders, and
every prompt it sends is a named template (so `--prompts FILE` can replace it).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from geomeval.benchmarks import REGISTRY, get_benchmark
from geomeval.benchmarks.base import Benchmark, EvaluateFace, NoEvaluateFace, NotPosable
from geomeval.core.records import SampleRecord
from geomeval.engines.judges import parse_judge_spec
from geomeval.engines.models import parse_model_spec
from geomeval.publishing.faces import metric_path
from geomeval.publishing.fidelity import departures
from geomeval.run.runner import rescore, run

REPO = Path(__file__).resolve().parents[2]
CASES = [(name, task) for name, bench in REGISTRY.items() for task in bench.tasks]
LIMIT = 3


def _numbers(results: dict[str, Any]) -> dict[str, Any]:
    """The metrics a user reads: value and coverage of each (provenance and timings aside)."""
    return {name: (m.get("value"), m.get("scored"), m.get("total")) for name, m in results["metrics"].items()}


class _Counting:
    """A model that counts what it is asked, around baseline:random."""

    def __init__(self) -> None:
        self.inner = parse_model_spec("baseline:random")
        self.calls = 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    async def generate(self, *args: Any, **kwargs: Any) -> Any:
        self.calls += 1
        return await self.inner.generate(*args, **kwargs)


@pytest.mark.parametrize(("name", "task"), CASES)
def test_run_resume_and_rescore(name: str, task: str, tmp_path: Path) -> None:
    check_run_resume_and_rescore(get_benchmark(name), task, tmp_path)


def check_run_resume_and_rescore(bench: Benchmark, task: str, tmp_path: Path) -> None:
    """The life of a run: the embedded sample scored, resumed without posing again, rescored
    to the same numbers, and the task's evaluate face (or why it has none)."""
    name = bench.name
    out = tmp_path / "run"
    first = run(bench, task=task, model=parse_model_spec("baseline:random"), judge=parse_judge_spec("offline"),
                out_dir=out, limit=LIMIT)
    assert first["n_items"] == LIMIT and first["metrics"], (name, task)
    # the breakdowns the benchmark declares, in its order, each group in the declared order
    assert list(first["breakdowns"]) == [b.name for b in bench.breakdowns], (name, task)
    for breakdown in bench.breakdowns:
        groups = list(first["breakdowns"][breakdown.name])
        declared = [g for g in breakdown.order if g in groups]
        assert groups[: len(declared)] == declared, (name, breakdown.name, groups)
    samples = (out / "samples.jsonl").read_text(encoding="utf-8")
    records = [json.loads(line) for line in samples.splitlines()]
    assert len(records) == LIMIT
    for record in records:
        for metric, score in record["scores"].items():  # a value, or the reason there is none
            assert score["value"] is not None or score["unscored"], (name, task, record["id"], metric)

    model = _Counting()
    again = run(bench, task=task, model=model, judge=parse_judge_spec("offline"), out_dir=out, limit=LIMIT)
    assert model.calls == 0, "a finished run was posed again"
    assert (out / "samples.jsonl").read_text(encoding="utf-8") == samples
    assert _numbers(again) == _numbers(first)

    rescored = rescore(out, parse_judge_spec("offline"))
    assert _numbers(rescored) == _numbers(first)

    _evaluate_face_agrees(bench, task, [SampleRecord.from_dict(r) for r in records], first)


def _evaluate_face_agrees(bench: Benchmark, task: str, records: list[SampleRecord], summary: dict[str, Any]) -> None:
    """The task's `evaluate` module (loaded offline from metrics/<name>), computed on the run's
    own records through the folder's declared adapter, gives the run's numbers: each declared
    metric's mean over scored items and its coverage (the same items scored, the same left
    unscored). A task without a module says why."""
    face = bench.evaluate_face(task)
    if isinstance(face, NoEvaluateFace):
        assert face.reason.strip(), (bench.name, task)
        return
    assert isinstance(face, EvaluateFace) and face.equal, (bench.name, task)
    evaluate = pytest.importorskip("evaluate")
    results = evaluate.load(metric_path(face.metric)).compute(**face.inputs(records))
    for metric in face.equal:
        ours, theirs = results[metric], summary["metrics"][metric]
        if theirs["value"] is None:
            assert ours is None, (bench.name, task, metric, ours)
        else:
            assert ours == pytest.approx(theirs["value"]), (bench.name, task, metric, ours, theirs)
        coverage = results["coverage"][metric]
        assert coverage == pytest.approx(theirs["scored"] / theirs["total"]), (bench.name, task, metric)


def _lmms_tasks() -> list[tuple[str, str]]:
    from geomeval.integrations import lmms_eval as integration

    return [(integration.for_task(t).name, t) for t in integration.TASKS]


@pytest.mark.parametrize(("name", "task"), _lmms_tasks())
def test_lmms_eval_poses_items_as_geomeval_run_does(name: str, task: str) -> None:
    from geomeval.integrations import lmms_eval as integration

    spec = integration.for_task(task)
    bench = get_benchmark(spec.name)
    if spec.configure is not None:
        bench = spec.configure(bench, task)
    bench_task = task if task in bench.tasks else bench.default_task
    for item in bench.load_items(None, bench_task, LIMIT):
        try:
            expected = bench.messages(item, bench_task)
        except NotPosable as exc:  # geomeval run records a failed generation; lmms-eval a placeholder
            expected = [{"role": "user", "content": [{"type": "text", "text": integration.NOT_POSED.format(reason=exc)}]}]
        assert integration.chat_messages(dict(item.fields), task) == expected, item.id


@pytest.mark.parametrize(("name", "task"), _lmms_tasks())
def test_lmms_eval_scores_items_as_geomeval_run_does(name: str, task: str, tmp_path: Path) -> None:
    """`geomeval run` on the folder lmms-eval reads (its options from the task's declaration):
    the run's own responses, handed to the task's process_results, get the scores the run
    gave them (value, or unscored), metric by metric."""
    from geomeval.integrations import lmms_eval as integration

    spec = integration.for_task(task)
    folder = integration.resolve_dataset(None, spec)  # what lmms-eval reads without --data
    bench, data = get_benchmark(spec.name), folder
    if spec.run_options is not None:
        bench, data = bench.configure(spec.run_options(task, folder)), None
    bench_task = task if task in bench.tasks else bench.default_task
    out = tmp_path / "run"
    run(bench, task=bench_task, model=parse_model_spec("baseline:random"), judge=parse_judge_spec("offline"),
        out_dir=out, data=data, limit=LIMIT)
    records = {r["id"]: r for r in map(json.loads, (out / "samples.jsonl").read_text(encoding="utf-8").splitlines())}
    process_results = integration.entry_points(task)[f"{task}_process_results"]
    keys = integration.metric_keys(spec, task)
    compared = 0
    for item in bench.load_items(data, bench_task, LIMIT):
        record = records[item.id]
        response = record.get("response")
        results = [response if response is not None else "[LMMS_EVAL_REQUEST_FAILED after 0 retries] none"]
        entries = process_results(dict(item.fields), results)
        for metric, key in keys.items():
            if metric not in record["scores"]:
                continue
            ours, theirs = entries[key], record["scores"][metric]
            if theirs["value"] is None:
                assert ours["value"] is None, (item.id, metric, ours, theirs)
            else:
                assert ours["value"] == pytest.approx(theirs["value"]), (item.id, metric, ours, theirs)
                compared += 1
    assert compared, f"{task}: no value of the run was compared (every metric unscored on both sides)"


@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_every_registered_benchmark_has_a_card_in_sync(name: str) -> None:
    """The card face (`cards/<name>/README.md`) is what the folder's `card.render_card` writes,
    and names the Hub dataset the benchmark declares."""
    check_card(get_benchmark(name), (REPO / "cards" / name / "README.md").read_text(encoding="utf-8"))


def check_card(bench: Benchmark, card: str) -> None:
    """`card` (the face) is what the declared card part renders, names the declared Hub dataset,
    lists the prompt templates and holds a differences table that parses (`fidelity.departures`)."""
    assert card == bench.parts.card().render_card(), bench.name
    assert bench.hub is not None and bench.hub.name == bench.name and bench.hub.pretty_name in card
    assert "## Prompt templates" in card, bench.name
    for template in bench.prompt_templates:  # the defaults' table lists every template
        assert f"| `{template.name}` |" in card, (bench.name, template.name)
    departures(bench.name, card)  # raises naming what is wrong with the table


def test_every_card_face_belongs_to_a_registered_benchmark() -> None:
    assert {p.parent.name for p in (REPO / "cards").glob("*/README.md")} == set(REGISTRY)


@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_every_prompt_is_a_named_template(name: str) -> None:
    check_prompts(get_benchmark(name))
    assert "## Prompt templates" in (REPO / "cards" / name / "README.md").read_text(encoding="utf-8")


def check_prompts(bench: Benchmark) -> None:
    name = bench.name
    assert bench.prompt_templates, f"{name} declares no prompt templates"
    names = [t.name for t in bench.prompt_templates]
    assert len(names) == len(set(names)), names


def test_the_card_faces_are_written_from_the_declarations(tmp_path: Path) -> None:
    """`python -m geomeval.publishing.faces` writes every registered benchmark's card face into a
    checkout, and `--check` names a stale one (exit 1) until it is written again."""
    from geomeval.publishing.faces import main

    assert main(["--check", str(REPO)]) == 0  # the committed cards are current
    assert main([str(tmp_path)]) == 0
    written = {p.parent.name: p.read_text(encoding="utf-8") for p in (tmp_path / "cards").glob("*/README.md")}
    assert written == {name: bench.parts.card().render_card() for name, bench in REGISTRY.items()}
    (tmp_path / "cards" / "geolaux" / "README.md").write_text("stale\n", encoding="utf-8")
    assert main(["--check", str(tmp_path)]) == 1


def test_the_face_writer_takes_no_option_for_a_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    """`--help` prints the usage and a mistyped option is refused: neither becomes a folder
    named after it in the current directory."""
    from geomeval.publishing.faces import main

    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as shown:
        main(["--help"])
    assert shown.value.code == 0 and "--check" in capsys.readouterr().out
    with pytest.raises(SystemExit) as refused:
        main(["--chek"])
    assert refused.value.code == 2 and "--chek" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []
