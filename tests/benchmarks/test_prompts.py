"""Prompt sets (`--prompts FILE`): named templates, checked against what each benchmark fills
in, recorded in run.json, refused on a resume with another set, and read by lmms-eval."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from geomeval.benchmarks import REGISTRY, get_benchmark, with_prompt_file
from geomeval.engines.prompts import (
    PromptError,
    Template,
    as_file_text,
    card_section,
    fill,
    placeholders,
)
from geomeval.testing.chat_server import ChatServer, prompt_text

AUTHORS_STYLE = """You are a careful geometry solver. Question: {problem}
Choices: {options}
Give the result as JSON like {"answer": "<letter>"} and also accept {{literal}} braces.
"""


def cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "geomeval.cli", *args], capture_output=True, text=True,
                          timeout=600, env=env)


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def test_fill_is_one_pass_and_keeps_foreign_braces_literal() -> None:
    text = fill(AUTHORS_STYLE, {"problem": "Find {options} in {x}", "options": "A. 1"})
    # the problem's own "{options}" is not expanded; JSON braces and {{ }} come out as written
    assert "Question: Find {options} in {x}\nChoices: A. 1" in text
    assert '{"answer": "<letter>"}' in text and "{literal}" in text
    assert placeholders(AUTHORS_STYLE) == ["problem", "options"]


@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_default_templates_round_trip_through_a_prompt_file(name: str, tmp_path: Path) -> None:
    """`geomeval prompts B` prints a file that, passed back, changes nothing: each text is
    read back exactly, so a user can start from it and edit one template."""
    bench = get_benchmark(name)
    assert bench.prompt_templates, f"{name} declares no prompt templates"
    path = write(tmp_path / "p.yaml", as_file_text(name, bench.prompt_templates))
    loaded = with_prompt_file(bench, path).prompts
    assert {t.name: loaded.text(t.name) for t in bench.prompt_templates} == {
        t.name: t.text for t in bench.prompt_templates}
    section = card_section(bench.prompt_templates)
    assert all(f"`{t.name}`" in section for t in bench.prompt_templates)


def test_cli_prints_defaults_and_checks_a_file(tmp_path: Path) -> None:
    printed = cli("prompts", "geolaux")
    assert printed.returncode == 0, printed.stderr
    path = write(tmp_path / "p.yaml", printed.stdout)
    checked = cli("prompts", "geolaux", "--check", str(path))
    assert checked.returncode == 0, checked.stderr
    assert "usable for geolaux; replaces none" in checked.stdout + checked.stderr


@pytest.mark.parametrize(
    ("content", "named"),
    [
        ("geolaux:\n  calculation: 'Solve {problem} with {figure_text}'\n", ["geolaux.calculation", "{figure_text}"]),
        ("geolaux:\n  calculation: 'Solve it please'\n", ["geolaux.calculation", "{problem}", "required"]),
        ("geolaux:\n  solve: 'Solve {problem}'\n", ["geolaux.solve", "no such template", "calculation"]),
        ("geolax:\n  calculation: 'Solve {problem}'\n", ["'geolax'", "unknown benchmark"]),
        ("geoeval:\n  solve: 'Solve {problem}'\n", ["no `geolaux` section"]),
        ("geolaux:\n  calculation: 12\n", ["geolaux.calculation", "non-empty string"]),
        ("geolaux: [1, 2]\n", ["section 'geolaux'"]),
        ("geolaux:\n  calculation: 'x\n   y: [\n", ["not readable as YAML"]),
    ],
)
def test_a_bad_prompt_file_is_refused_naming_benchmark_template_and_field(
    content: str, named: list[str], tmp_path: Path
) -> None:
    path = write(tmp_path / "bad.yaml", content)
    with pytest.raises(PromptError) as caught:
        with_prompt_file(get_benchmark("geolaux"), path)
    assert str(path) in str(caught.value)
    for part in named:
        assert part in str(caught.value)


def test_an_oversized_prompt_file_is_refused_before_reading(tmp_path: Path) -> None:
    path = write(tmp_path / "big.yaml", "geolaux:\n  calculation: '" + "x" * 1_100_000 + " {problem}'\n")
    with pytest.raises(PromptError, match="bytes, more than"):
        with_prompt_file(get_benchmark("geolaux"), path)


def test_default_templates_keep_their_own_contract() -> None:
    with pytest.raises(AssertionError, match="figure"):
        Template("bad", "Solve {problem} {figure}", ("problem",))


def _solver(request: dict) -> str:
    text = prompt_text(request)
    return "Working it out.\nAnswer: A" if "MY PROMPT" in text else "no idea"


@pytest.mark.slow
def test_run_with_a_prompt_file_sends_it_records_it_and_refuses_another_on_resume(tmp_path: Path) -> None:
    prompts = write(tmp_path / "authors.yaml",
                    "geoeval:\n  solve: |\n    MY PROMPT. {description}\n    Q: {problem}\n    {options}\n"
                    "    Last line: Answer: <letter>\n")
    out = tmp_path / "run"
    base = ["run", "geoeval", "--task", "geoeval_2000", "--model", "openai:m", "--out", str(out), "--cache", "off",
            "--limit", "3"]
    with ChatServer(_solver) as server:
        first = cli(*base, "--base-url", server.base_url, "--prompts", str(prompts))
        assert first.returncode == 0, first.stderr
        sent = [prompt_text(r) for r in server.requests]
    assert len(sent) == 3 and all(t.startswith("MY PROMPT.") and "\nQ: " in t for t in sent)
    assert not any("{problem}" in t or "{options}" in t for t in sent)
    config = json.loads((out / "run.json").read_text())
    recorded = config["prompts"]
    assert recorded["file"] == str(prompts) and len(recorded["sha256"]) == 64
    assert recorded["templates"]["solve"].startswith("MY PROMPT.")

    other = write(tmp_path / "other.yaml", "geoeval:\n  solve: 'Other wording: {problem}'\n")
    with ChatServer(_solver) as server:
        for refused in (cli(*base, "--base-url", server.base_url, "--prompts", str(other)),
                        cli(*base, "--base-url", server.base_url)):
            assert refused.returncode == 2 and "differs in prompts" in refused.stderr + refused.stdout
        again = cli(*base, "--base-url", server.base_url, "--prompts", str(prompts))
        assert again.returncode == 0, again.stderr
        assert server.requests == []  # everything was already done: nothing asked again
    assert json.loads((out / "run.json").read_text())["prompts"] == recorded


def test_a_bad_prompt_file_stops_the_run_before_any_request(tmp_path: Path) -> None:
    bad = write(tmp_path / "bad.yaml", "geoeval:\n  solve: 'Solve {question}'\n")
    with ChatServer(_solver) as server:
        result = cli("run", "geoeval", "--model", "openai:m", "--base-url", server.base_url,
                     "--out", str(tmp_path / "run"), "--prompts", str(bad), "--cache", "off")
        assert server.requests == []
    assert result.returncode == 2
    assert "geoeval.solve" in result.stderr and "{question}" in result.stderr
    assert not (tmp_path / "run").exists()


def test_lmms_eval_tasks_read_the_same_prompt_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from geomeval.integrations import lmms_eval as integration

    bench = get_benchmark("geolaux")
    item = bench.load_items(None, "geolaux", 1)[0]
    path = write(tmp_path / "p.yaml", "geolaux:\n  calculation: 'AUTHORS {problem}{options}'\n  proving: 'PROVE {problem}'\n"
                 "  calculation_en: 'AUTHORS {problem}{options}'\n  proving_en: 'PROVE {problem}'\n")
    integration.reset_state()
    monkeypatch.setenv("GEOMEVAL_PROMPTS", str(path))
    doc = dict(item.fields)
    via_lmms = integration.chat_messages(doc, "geolaux")
    via_run = with_prompt_file(bench, path).messages(item, "geolaux")
    assert via_lmms[0]["content"][-1]["text"] == via_run[0]["content"][-1]["text"]  # the figure first, as official
    assert via_run[0]["content"][-1]["text"].startswith(("AUTHORS ", "PROVE "))
    integration.reset_state()


@pytest.mark.slow
def test_judge_templates_reach_the_judge_in_run_and_in_rescore(tmp_path: Path) -> None:
    """A replaced rubric is what the judge reads; `geomeval score` rescores with the run's
    recorded templates (the file may since have changed or gone)."""
    from geomeval.benchmarks.ggbench.data import sample_path

    sample = json.loads((sample_path() / "GGBench_dataset.json").read_text(encoding="utf-8"))[:2]
    replay = tmp_path / "answers.jsonl"
    replay.write_text("".join(json.dumps({"id": r["id"], "response": r["text_answer"]}) + "\n" for r in sample))
    rubric = write(tmp_path / "rubric.yaml",
                   "ggbench:\n  text_judge: 'AUTHORS RUBRIC. Answer: {answer} Reply {\"score\": 1-5}'\n")

    def judge(request: dict) -> str:
        text = prompt_text(request)
        return json.dumps({"score": 5 if text.startswith("AUTHORS RUBRIC.") else 1, "reason": "r", "step_accuracy": 3,
                           "process_consistency": 3, "problem_solution_accuracy": 3})

    out = tmp_path / "run"
    run = cli("run", "ggbench", "--model", f"replay:{replay}", "--out", str(out), "--limit", "2",
              "--prompts", str(rubric))
    assert run.returncode == 0, run.stderr
    rubric.unlink()
    with ChatServer(judge) as server:
        scored = cli("score", str(out), "--judge", "openai:judge", "-J", "base_url=" + str(server.base_url))
        assert scored.returncode == 0, scored.stderr
        texts = [prompt_text(r) for r in server.requests]
    assert sum(t.startswith("AUTHORS RUBRIC. Answer: ") for t in texts) == 2
    results = json.loads((out / "results.json").read_text())
    assert results["metrics"]["VLM-T"]["value"] == 1.0 and results["metrics"]["VLM-T"]["scored"] == 2


def test_a_replaced_judge_template_is_what_the_geolaux_judge_reads(tmp_path: Path) -> None:
    """The official-format judge's rubrics from a prompt file, filled with the problem, the
    reference and the student's answer as written, are what the judge gets; JSON braces in
    them stay literal."""
    from geomeval.engines.judges import parse_judge_spec
    from geomeval.engines.models import ModelOptions, parse_model_spec
    from geomeval.run.runner import run

    reply = '{"Step_by_step_evaluation": [1, 1], "Final_judgment": 1}'
    rubric = write(tmp_path / "rubric.yaml", (
        "geolaux:\n"
        "  calc_judge: |\n    AUTHORS RUBRIC. Question: {problem}\n    Gold: {answer}\n    Student:\n    {student}\n"
        f"    Reply {reply}\n"
        "  proof_judge: |\n    AUTHORS RUBRIC. Question: {problem}\n    Student:\n    {student}\n"
        f"    Reply {reply}\n"))
    bench = with_prompt_file(get_benchmark("geolaux"), rubric)
    items = bench.load_items(None, "geolaux", 2)
    answer = json.dumps({"solution": "1) ∵ X ∴ Y <STEP1>", "short_answer": "7"})

    def serve(request: dict) -> str:
        text = prompt_text(request)
        if text.startswith("AUTHORS RUBRIC."):  # the replaced rubric: every step right
            return reply
        if "Step_by_step_evaluation" in text:  # geomeval's own rubric: every step wrong
            return '{"Step_by_step_evaluation": [0], "Final_judgment": 0}'
        return answer

    with ChatServer(serve) as server:
        results = run(bench, task="geolaux", model=parse_model_spec("openai:m", ModelOptions(base_url=server.base_url)),
                      judge=parse_judge_spec("openai:j", base_url=server.base_url), out_dir=tmp_path / "run", limit=2)
        judged = [r for r in server.requests if prompt_text(r).startswith("AUTHORS RUBRIC.")]
    assert len(judged) == 2 and len(server.requests) == 4
    problems = {item.fields["problem_text"].strip() for item in items}
    for request in judged:
        text = prompt_text(request)
        assert text.split("Question: ", 1)[1].split("\n", 1)[0] in problems
        assert f"Student:\n{answer}" in text
        assert reply in text
    assert results["metrics"]["PCS"]["value"] == 1.0 and results["metrics"]["PCS"]["scored"] == 2
    assert json.loads((tmp_path / "run" / "run.json").read_text())["prompts"]["templates"].keys() == {
        "calc_judge", "proof_judge"}


def test_capgeo_caption_and_reasoning_templates_reach_captioner_and_reasoner(tmp_path: Path) -> None:
    """The captioner (run in `prepare`) gets the file's caption prompt with the question filled
    in, the reasoner the file's reasoning prompt with that caption; captions asked with other
    wording go to a store of their own, never mixed with the default prompt's."""
    prompts = write(tmp_path / "capgeo.yaml", (
        "capgeo:\n  caption_with_question: 'MY CAPTION PROMPT. Text: {question}'\n"
        "  reasoning: 'MY REASONING PROMPT.{context} {problem}{options} Answer in <answer></answer>.'\n"))

    def serve(request: dict) -> str:
        text = prompt_text(request)
        if text.startswith("MY CAPTION PROMPT."):
            return "CAPTION OF " + text.split("Text: ", 1)[1].splitlines()[0]
        return "<think>ok</think><answer>A</answer>"

    captions = tmp_path / "captions"
    with ChatServer(serve) as server:
        done = cli("run", "capgeo", "-T", "source=geoqa", "-T", "mode=without_image", "-T", "captioner=openai:cap",
                   "--model", "openai:m", "--base-url", server.base_url, "-T", "captions=" + str(captions),
                   "--out", str(tmp_path / "run"), "--limit", "2", "--cache", "off", "--prompts", str(prompts))
        assert done.returncode == 0, done.stderr
        texts = [prompt_text(r) for r in server.requests]
    asked = [t for t in texts if t.startswith("MY CAPTION PROMPT. Text: ")]
    posed = [t for t in texts if t.startswith("MY REASONING PROMPT.")]
    assert len(asked) == 2 and len(posed) == 2 and len(texts) == 4
    assert not any("{question}" in t or "{problem}" in t for t in texts)
    for text in posed:  # the caption the captioner wrote, in the restatement, before the question
        assert "The problem restated, with what its figure shows:\nCAPTION OF " in text
        assert text.endswith(" Answer in <answer></answer>.") and "Problem:\n" in text
    stores = [p.name for p in captions.iterdir()]
    assert len(stores) == 1 and stores[0].startswith("openai_cap__geoqa__problem_with_question-prompt-")
