"""`geomeval run geoeval` on the embedded sample: every subset, the input modes, A and T,
extraction by rules and by a judge on a loopback server, and the paper's breakdowns."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from geomeval.benchmarks.geoeval.benchmark import GeoEval
from geomeval.benchmarks.geoeval.features import SUBSETS
from geomeval.testing.chat_server import ChatServer, prompt_text


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "geomeval.cli", *args], capture_output=True, text=True, timeout=600)


def gold() -> dict[str, str]:
    """Each task's question → its gold answer (a letter for option items)."""
    out: dict[str, str] = {}
    bench = GeoEval()
    for task in SUBSETS:
        for item in bench.load_items(None, task, None):
            record = bench.new_record(item, task)
            out[record.target["problem"].strip()] = record.target["answer"]
    return out


GOLD = gold()


def solver(request: dict) -> str:
    text = prompt_text(request)
    if text.rstrip().endswith("Extracted answer:"):  # the judge's extraction request (the paper's form)
        return text.rsplit("Answer: ", 1)[-1].split("\n", 1)[0].strip()
    if "Reply with" in text and '"answer"' in text:  # geomeval's extraction request (-T extraction=geomeval)
        last = text.rsplit("Answer: ", 1)[-1].split("\n", 1)[0].strip()
        return json.dumps({"answer": last})
    # A backward question starts like its forward one: the longest question found wins.
    found = [(len(q), a) for q, a in GOLD.items() if q in text]
    if found:
        return f"Working through the figure step by step gives the result.\nAnswer: {max(found)[1]}"
    return "I am not sure."


@pytest.mark.parametrize("task", SUBSETS)
def test_model_on_loopback_server_answers_every_subset(task: str, tmp_path: Path) -> None:
    with ChatServer(solver) as server:
        out = tmp_path / task
        result = cli("run", "geoeval", "--task", task, "--model", "openai:m", "--base-url", server.base_url,
                     "--out", str(out), "--cache", "off")
        assert result.returncode == 0, result.stderr
    results = json.loads((out / "results.json").read_text())
    assert results["metrics"]["A"]["value"] == 1.0 and results["metrics"]["A"]["coverage"] == 1.0
    breakdowns = results["breakdowns"]
    for group in ("subset", "source", "problem_type", "complexity", "question_length", "description"):
        assert breakdowns[group], group
    assert list(breakdowns["subset"]) == [task]


def test_random_baseline_reports_t_over_text_only_items(tmp_path: Path) -> None:
    out = tmp_path / "random"
    result = cli("run", "geoeval", "--task", "geoeval_2000", "--model", "baseline:random", "--out", str(out))
    assert result.returncode == 0, result.stderr
    metrics = json.loads((out / "results.json").read_text())["metrics"]
    samples = [json.loads(line) for line in (out / "samples.jsonl").read_text().splitlines()]
    text_only = [s for s in samples if not s["meta"]["has_diagram"]]
    assert metrics["A"]["scored"] == len(samples) == 10
    assert metrics["T"]["scored"] == len(text_only) and metrics["T"]["not_applicable"] == 10 - len(text_only)


def test_text_mode_sends_neither_diagram_nor_description(tmp_path: Path) -> None:
    # text_only: the server answers 500 to list-form content, as llama.cpp's does
    with ChatServer(solver, text_only=True) as server:
        result = cli("run", "geoeval", "--task", "geoeval_2000", "-T", "mode=text", "--model", "openai:m",
                     "--base-url", server.base_url, "--out", str(tmp_path / "text"), "--cache", "off")
        assert result.returncode == 0, result.stderr
        assert all(isinstance(m["content"], str) for r in server.requests for m in r["messages"])
        assert len(server.requests) == 10  # one request per item: nothing refused and retried
        assert not any("described in words" in prompt_text(r) for r in server.requests)
    results = json.loads((tmp_path / "text" / "results.json").read_text())
    samples = [json.loads(line) for line in (tmp_path / "text" / "samples.jsonl").read_text().splitlines()]
    without_diagram = sum(not s["meta"]["has_diagram"] for s in samples)
    # T stays the paper's: the problems with no diagram in the data, even when no diagram is sent
    assert 0 < without_diagram < 10 and results["metrics"]["T"]["scored"] == without_diagram
    assert results["metrics"]["T"]["not_applicable"] == 10 - without_diagram
    assert not any(s["meta"]["diagram_shown"] for s in samples)
    assert results["config"]["options"] == {"mode": "text", "prompt_style": "paper", "extraction": "paper"}
    bad = cli("run", "geoeval", "-T", "mode=pictures", "--model", "baseline:random", "--out", str(tmp_path / "x"))
    assert bad.returncode == 2 and "unknown GeoEval input mode" in bad.stderr


def test_judge_extracts_and_its_failures_fall_back_to_rules(tmp_path: Path) -> None:
    with ChatServer(solver) as server:
        result = cli("run", "geoeval", "--task", "geoeval_hard", "--model", "openai:m", "--judge", "openai:j",
                     "--base-url", server.base_url, "-J", "base_url=" + str(server.base_url),
                     "--out", str(tmp_path / "judged"), "--cache", "off")
        assert result.returncode == 0, result.stderr
        judged = [r for r in server.requests if r["model"] == "j"]
        assert judged and all(prompt_text(r).rstrip().endswith("Extracted answer:") for r in judged)
        assert all(r["temperature"] == 0.7 for r in judged)  # the official extraction call's
    samples = [json.loads(line) for line in (tmp_path / "judged" / "samples.jsonl").read_text().splitlines()]
    assert all(s["extracted"]["method"] == "judge" for s in samples)
    assert all(s["scores"]["A"]["value"] == 1.0 for s in samples)


def test_geomeval_switches_send_its_own_prompt_and_json_judge(tmp_path: Path) -> None:
    with ChatServer(solver) as server:
        result = cli("run", "geoeval", "--task", "geoeval_hard", "--model", "openai:m", "--judge", "openai:j",
                     "-T", "prompt_style=geomeval", "-T", "extraction=geomeval",
                     "--base-url", server.base_url, "-J", "base_url=" + str(server.base_url),
                     "--out", str(tmp_path / "switched"), "--cache", "off")
        assert result.returncode == 0, result.stderr
        asked = [prompt_text(r) for r in server.requests if r["model"] == "m"]
        judged = [r for r in server.requests if r["model"] == "j"]
    assert asked and all('on the last line as "Answer: ..."' in text for text in asked)
    assert all(("\nA. " in text) is ("Choices:" in text) for text in asked) and any("\nA. " in t for t in asked)
    assert judged and all('"answer"' in prompt_text(r) and r["temperature"] == 0.0 for r in judged)
    results = json.loads((tmp_path / "switched" / "results.json").read_text())
    assert results["config"]["options"] == {"mode": "text_description_diagram", "prompt_style": "geomeval",
                                            "extraction": "geomeval"}
    assert results["metrics"]["A"]["value"] == 1.0


@pytest.mark.slow
def test_description_ablation_compares_runs_per_described_item(tmp_path: Path) -> None:
    """The paper's Table 3: the same model without and with diagram descriptions."""
    with ChatServer(solver) as server:
        for mode in ("text_diagram", "text_description_diagram"):
            result = cli("run", "geoeval", "-T", "mode=" + str(mode), "--model", "openai:m", "--base-url", server.base_url,
                         "--out", str(tmp_path / mode), "--cache", "off")
            assert result.returncode == 0, result.stderr
    shown = cli("compare", str(tmp_path / "text_diagram"), str(tmp_path / "text_description_diagram"))
    assert shown.returncode == 0, shown.stderr
    assert "│ described" in shown.stdout and "│ not described" in shown.stdout


def test_results_say_how_often_the_judge_decided_and_fell_back(tmp_path: Path) -> None:
    """A judge whose replies are unreadable for some items: those fall back to the rules, and
    results.json, the console table and report.md say how many, not only samples.jsonl."""

    def flaky(request: dict) -> str:
        text = prompt_text(request)
        if "could not be used" in text:  # the repair request: unreadable again
            return "I cannot say. " * 40  # too long to be an extracted answer
        if text.rstrip().endswith("Extracted answer:"):  # the extraction request
            return solver(request) if text.count("a") % 2 else "I cannot say. " * 40
        return solver(request)

    with ChatServer(flaky) as server:
        result = cli("run", "geoeval", "--task", "geoeval_2000", "--model", "openai:m", "--judge", "openai:j",
                     "--base-url", server.base_url, "-J", "base_url=" + str(server.base_url),
                     "--out", str(tmp_path / "flaky"), "--cache", "off")
        assert result.returncode == 0, result.stderr
    samples = [json.loads(line) for line in (tmp_path / "flaky" / "samples.jsonl").read_text().splitlines()]
    decided = sum(s["extracted"]["method"] == "judge" for s in samples)
    fell_back = sum(bool(s["judgment"] and s["judgment"].get("judge_error")) for s in samples)
    assert decided and fell_back and decided + fell_back == len(samples) == 10
    stats = json.loads((tmp_path / "flaky" / "results.json").read_text())["metrics"]["A"]
    assert stats["coverage"] == 1.0  # the rules decided the rest: scored, and now also said
    assert stats["judge"] == {"decided": decided, "fallback": fell_back, "failed": 0}
    assert f"{decided} decided · {fell_back} fallback · 0 failed" in (tmp_path / "flaky" / "report.md").read_text()
    assert "fallback" in result.stdout


def test_the_judge_has_its_own_token_limit_concurrency_and_request_shape(tmp_path: Path) -> None:
    with ChatServer(solver) as server:
        result = cli("run", "geoeval", "--task", "geoeval_2000", "--model", "openai:m", "--judge", "openai:j",
                     "--base-url", server.base_url, "-J", "base_url=" + str(server.base_url), "-J", "max_tokens=300",
                     "-J", "concurrency=1", "-J", "timeout=30", "-J", "style=reasoning",
                     "--out", str(tmp_path / "judged"), "--cache", "off")
        assert result.returncode == 0, result.stderr
        judged = [r for r in server.requests if r["model"] == "j"]
        answered = [r for r in server.requests if r["model"] == "m"]
    assert judged and all(r.get("max_completion_tokens") == 300 and "temperature" not in r for r in judged)
    assert answered and all(r["max_tokens"] == 2048 and r["temperature"] == 0.0 for r in answered)
    bad = cli("run", "geoeval", "--model", "baseline:random", "--judge", "openai:j", "-J", "style=fast",
              "--out", str(tmp_path / "x"))
    assert bad.returncode == 2 and "unknown judge style 'fast'" in bad.stderr
