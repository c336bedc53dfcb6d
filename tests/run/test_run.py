"""`geomeval run/score/report` on the embedded sample, with real HTTP for the model."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from xml.etree import ElementTree

import pytest

from geomeval.benchmarks import get_benchmark
from geomeval.engines.judges import parse_judge_spec
from geomeval.engines.models import ModelOptions, parse_model_spec
from geomeval.run.runner import RunConflict, run
from geomeval.testing.chat_server import ChatServer, Fault, prompt_text

GOLD = {  # embedded-sample answers, keyed by a phrase of each problem
    "∠A = 40°": "B", "distance from point C": "\\frac{12}{5}", "diameter of circle O": "2\\sqrt{3}",
    "regular hexagon": "3√3", "OA的长为": "C", "∠C=60°": "6+2\\sqrt{3}", "求∠A的度数": "3√2、45",
}


def oracle(request: dict) -> str:
    text = prompt_text(request)
    for phrase, answer in GOLD.items():
        if phrase in text:
            return json.dumps({"steps": ["1. by the figure"], "short_answer": answer})
    return json.dumps({"steps": ["1. proved"], "short_answer": "proved"})


def cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    import os

    return subprocess.run(
        [sys.executable, "-m", "geomeval.cli", *args], capture_output=True, text=True, timeout=300,
        env={**os.environ, **(env or {})},
    )


def load(out: Path) -> tuple[dict, list[dict]]:
    results = json.loads((out / "results.json").read_text())
    samples = [json.loads(line) for line in (out / "samples.jsonl").read_text().splitlines()]
    return results, samples


def test_cli_random_baseline_on_embedded_sample(tmp_path: Path) -> None:
    out = tmp_path / "run"
    result = cli("run", "geolaux", "--model", "baseline:random", "--out", str(out))
    assert result.returncode == 0, result.stderr
    assert "ACS" in result.stdout and "not scored" in result.stdout
    results, samples = load(out)
    n = results["n_items"]
    assert len(samples) == n >= 8
    acs = results["metrics"]["ACS"]
    assert acs["scored"] == sum(1 for s in samples if s["target"]["answer"] is not None)
    for metric in ("PCS", "PQS"):  # reported as not scored, never as zero
        assert results["metrics"][metric]["value"] is None
        assert results["metrics"][metric]["coverage"] == 0.0
        assert all(s["scores"][metric]["value"] is None and s["scores"][metric]["unscored"] for s in samples)
    assert set(results["breakdowns"]["step_bucket"]) == {"1-4", "5-8", "9-12", "13-24"}
    assert set(results["breakdowns"]["type"]) == {"calculation", "proving"}
    assert results["versions"]["geomeval"] and results["config"]["model"] == "baseline:random"
    report = (out / "report.md").read_text()
    assert "not scored" in report and "plots/acs_by_step_bucket.svg" in report
    chart = ElementTree.fromstring((out / "plots" / "acs_by_step_bucket.svg").read_text(encoding="utf-8"))
    assert chart.tag == "{http://www.w3.org/2000/svg}svg"


def test_random_baseline_is_seeded_and_only_picks_options(tmp_path: Path) -> None:
    bench = get_benchmark("geolaux")
    judge = parse_judge_spec("offline")
    first = run(bench, task="geolaux", model=parse_model_spec("baseline:random"), judge=judge, out_dir=tmp_path / "a")
    again = run(bench, task="geolaux", model=parse_model_spec("baseline:random"), judge=judge, out_dir=tmp_path / "b", concurrency=1)
    assert first["metrics"] == again["metrics"]
    _, samples = load(tmp_path / "a")
    for sample in samples:
        if sample["target"]["choices"]:
            assert sample["response"] in "ABCD"[: len(sample["target"]["choices"])]
        else:
            assert sample["response"] == ""


def test_empty_baseline_is_scored_wrong_not_unscored(tmp_path: Path) -> None:
    results = run(get_benchmark("geolaux"), task="geolaux", model=parse_model_spec("baseline:empty"),
                  judge=parse_judge_spec("offline"), out_dir=tmp_path)
    assert results["metrics"]["ACS"]["value"] == 0.0
    assert results["metrics"]["ACS"]["scored"] > 0


def test_openai_model_over_http_scores_correct_answers(tmp_path: Path) -> None:
    with ChatServer(oracle) as server:
        out = tmp_path / "run"
        result = cli("run", "geolaux", "--model", "openai:test-model", "--base-url", server.base_url,
                     "--out", str(out), env={"GEOMEVAL_API_KEY": "sk-secret-123"})
        assert result.returncode == 0, result.stderr
        request = server.requests[0]
        # GeoLaux's official answering settings are the defaults (tests/benchmarks/test_generation_defaults.py)
        assert request["model"] == "test-model" and request["temperature"] == 0.1
        images = [p for p in request["messages"][0]["content"] if p["type"] == "image_url"]
        assert images and images[0]["image_url"]["url"].startswith("data:image/png;base64,")
        assert server.headers[0]["Authorization"] == "Bearer sk-secret-123"
    results, _samples = load(out)
    assert results["metrics"]["ACS"]["value"] == 1.0
    assert results["metrics"]["ACS"]["scored"] == len(GOLD)
    for path in out.rglob("*"):
        if path.is_file() and path.suffix in (".json", ".jsonl", ".md"):
            assert "sk-secret-123" not in path.read_text()


def test_aux_task_adds_auxiliary_text_and_image(tmp_path: Path) -> None:
    with ChatServer(oracle) as server:
        cli("run", "geolaux", "--task", "geolaux_aux", "--model", "openai:m", "--base-url", server.base_url,
            "--out", str(tmp_path))
        with_aux = [r for r in server.requests if "auxiliary construction" in prompt_text(r)]
        assert with_aux
        assert any(sum(p["type"] == "image_url" for p in r["messages"][0]["content"]) == 2 for r in with_aux)


def test_model_failures_are_unscored_with_their_error(tmp_path: Path) -> None:
    faults = [Fault(on=set(range(0, 1000)), status=400, body='{"error": "bad request"}')]
    with ChatServer(oracle, faults=faults) as server:
        model = parse_model_spec("openai:m", ModelOptions(base_url=server.base_url))
        results = run(get_benchmark("geolaux"), task="geolaux", model=model, judge=parse_judge_spec("offline"),
                      out_dir=tmp_path)
    assert results["metrics"]["ACS"]["scored"] == 0 and results["metrics"]["ACS"]["value"] is None
    assert results["generation"]["failed"] == results["n_items"]
    _, samples = load(tmp_path)
    assert all("HTTP 400" in s["scores"]["ACS"]["unscored"] for s in samples)


@pytest.mark.slow
def test_transient_server_errors_are_retried(tmp_path: Path) -> None:
    faults = [Fault(on={0, 1}, status=503), Fault(on={2}, status=429, headers={"Retry-After": "0"})]
    with ChatServer(oracle, faults=faults) as server:
        model = parse_model_spec("openai:m", ModelOptions(base_url=server.base_url))
        results = run(get_benchmark("geolaux"), task="geolaux", model=model, judge=parse_judge_spec("offline"),
                      out_dir=tmp_path, concurrency=1)
    assert results["generation"]["failed"] == 0
    assert results["metrics"]["ACS"]["value"] == 1.0


@pytest.mark.slow
def test_replay_and_rescore(tmp_path: Path) -> None:
    with ChatServer(oracle) as server:
        first = run(get_benchmark("geolaux"), task="geolaux", model=parse_model_spec("openai:m", ModelOptions(base_url=server.base_url)),
                    judge=parse_judge_spec("offline"), out_dir=tmp_path / "a")
    replayed = cli("run", "geolaux", "--model", f"replay:{tmp_path / 'a' / 'samples.jsonl'}", "--out", str(tmp_path / "b"))
    assert replayed.returncode == 0, replayed.stderr
    results, _ = load(tmp_path / "b")
    assert results["metrics"]["ACS"] == first["metrics"]["ACS"]
    (tmp_path / "a" / "results.json").unlink()
    rescored = cli("score", str(tmp_path / "a"), "--judge", "offline")
    assert rescored.returncode == 0, rescored.stderr
    assert load(tmp_path / "a")[0]["metrics"]["ACS"] == first["metrics"]["ACS"]
    (tmp_path / "a" / "report.md").unlink()
    assert cli("report", str(tmp_path / "a")).returncode == 0
    assert (tmp_path / "a" / "report.md").exists()


def test_replay_file_missing_an_item_leaves_it_unscored(tmp_path: Path) -> None:
    replay = tmp_path / "partial.jsonl"
    replay.write_text(json.dumps({"id": "en_1", "response": "B"}) + "\n")
    results = run(get_benchmark("geolaux"), task="geolaux", model=parse_model_spec(f"replay:{replay}"),
                  judge=parse_judge_spec("offline"), out_dir=tmp_path / "out")
    assert results["metrics"]["ACS"]["scored"] == 1 and results["metrics"]["ACS"]["value"] == 1.0


def test_bad_replay_line_names_line_and_field(tmp_path: Path) -> None:
    replay = tmp_path / "bad.jsonl"
    replay.write_text('{"id": "en_1", "response": "B"}\n{"response": "C"}\n')
    with pytest.raises(ValueError, match="line 2: field 'id' missing"):
        parse_model_spec(f"replay:{replay}")


def test_interrupted_run_resumes_without_loss_or_duplicates(tmp_path: Path) -> None:
    bench, judge = get_benchmark("geolaux"), parse_judge_spec("offline")
    with ChatServer(oracle) as server:
        model = parse_model_spec("openai:m", ModelOptions(base_url=server.base_url))
        full = run(bench, task="geolaux", model=model, judge=judge, out_dir=tmp_path / "full")
        lines = (tmp_path / "full" / "samples.jsonl").read_text().splitlines()
        partial = tmp_path / "partial"
        partial.mkdir()
        (partial / "run.json").write_text((tmp_path / "full" / "run.json").read_text())
        shutil.copytree(tmp_path / "full" / "figures", partial / "figures")  # the judge's figures
        (partial / "samples.jsonl").write_text("\n".join(lines[:4]) + "\n" + lines[4][:25])  # torn line
        before = len(server.requests)
        resumed = run(bench, task="geolaux", model=model, judge=judge, out_dir=partial)
        assert len(server.requests) - before == len(lines) - 4
    ids = [json.loads(line)["id"] for line in (partial / "samples.jsonl").read_text().splitlines()]
    assert sorted(ids) == sorted(json.loads(line)["id"] for line in lines)
    assert resumed["metrics"] == full["metrics"]


def test_output_folder_of_another_run_is_refused(tmp_path: Path) -> None:
    bench, judge = get_benchmark("geolaux"), parse_judge_spec("offline")
    run(bench, task="geolaux", model=parse_model_spec("baseline:random"), judge=judge, out_dir=tmp_path)
    with pytest.raises(RunConflict, match="model"):
        run(bench, task="geolaux", model=parse_model_spec("baseline:empty"), judge=judge, out_dir=tmp_path)


@pytest.mark.slow
def test_real_sample_runs(geolaux_built: Path, geolaux_raw: Path, tmp_path: Path) -> None:
    result = cli("run", "geolaux", "--model", "baseline:random", "--data", str(geolaux_built), "--out", str(tmp_path / "built"))
    assert result.returncode == 0, result.stderr
    results, _ = load(tmp_path / "built")
    assert results["n_items"] == 100 and results["metrics"]["ACS"]["scored"] == 71
    raw = cli("run", "geolaux", "--model", "baseline:random", "--data", str(geolaux_raw), "--limit", "5",
              "--out", str(tmp_path / "raw"))
    assert raw.returncode == 0, raw.stderr
    assert load(tmp_path / "raw")[0]["n_items"] == 5
    empty = tmp_path / "empty"
    empty.mkdir()
    bad = cli("run", "geolaux", "--model", "baseline:random", "--data", str(empty), "--out", str(tmp_path / "x"))
    # the error names what a release looks like and what the folder holds
    assert bad.returncode == 2 and "release JSON" in bad.stderr and "found: an empty folder" in bad.stderr


def test_list_shows_all_five() -> None:
    result = cli("list")
    assert result.returncode == 0
    for name in ("capgeo", "ggbench", "geoeval", "geolaux", "me2"):
        assert name in result.stdout


def test_user_errors_exit_2_with_a_message(tmp_path: Path) -> None:
    assert "unknown benchmark" in cli("run", "nope", "--model", "baseline:random").stderr
    bad = cli("run", "geolaux", "--model", "gpt-4o", "--out", str(tmp_path))
    assert bad.returncode == 2 and "unknown model spec" in bad.stderr
    missing = cli("run", "geolaux", "--model", "baseline:random", "--data", str(tmp_path / "nothing"))
    assert missing.returncode == 2


def test_resume_survives_a_line_torn_inside_a_character(tmp_path: Path) -> None:
    bench, judge = get_benchmark("geolaux"), parse_judge_spec("offline")
    full = run(bench, task="geolaux", model=parse_model_spec("baseline:random"), judge=judge, out_dir=tmp_path)
    data = (tmp_path / "samples.jsonl").read_bytes()
    lines = data.splitlines(keepends=True)
    zh = next(i for i, line in enumerate(lines) if "三角形".encode() in line or "zh_" in line.decode())
    cut = lines[zh]
    cut = cut[: cut.index(next(ch for ch in cut.decode() if ord(ch) > 0x2E80).encode()) + 1]  # inside a character
    (tmp_path / "samples.jsonl").write_bytes(b"".join(lines[:zh]) + cut)
    resumed = run(bench, task="geolaux", model=parse_model_spec("baseline:random"), judge=judge, out_dir=tmp_path)
    assert resumed["metrics"] == full["metrics"]


def test_an_unreadable_middle_line_stops_the_resume_and_leaves_the_folder_as_it_was(tmp_path: Path) -> None:
    from geomeval.core.errors import UsageError

    bench, judge = get_benchmark("geolaux"), parse_judge_spec("offline")
    run(bench, task="geolaux", model=parse_model_spec("baseline:random"), judge=judge, out_dir=tmp_path)
    lines = (tmp_path / "samples.jsonl").read_bytes().splitlines(keepends=True)
    broken = b"".join([lines[0], b"{not json\n", *lines[1:]])
    (tmp_path / "samples.jsonl").write_bytes(broken)
    with pytest.raises(UsageError, match=r"samples\.jsonl, line 2: unreadable sample"):
        run(bench, task="geolaux", model=parse_model_spec("baseline:random"), judge=judge, out_dir=tmp_path)
    assert (tmp_path / "samples.jsonl").read_bytes() == broken
    assert not list(tmp_path.glob(".samples.*"))  # no half-written copy left behind


def test_resume_with_another_judge_is_refused(tmp_path: Path) -> None:
    bench = get_benchmark("geolaux")
    run(bench, task="geolaux", model=parse_model_spec("baseline:random"), judge=parse_judge_spec("offline"),
        out_dir=tmp_path)
    with pytest.raises(RunConflict, match="judge"):
        run(bench, task="geolaux", model=parse_model_spec("baseline:random"),
            judge=parse_judge_spec("openai:j", base_url="http://127.0.0.1:9/v1"), out_dir=tmp_path)


def test_answers_cut_at_max_tokens_are_flagged_counted_and_kept_through_the_cache(tmp_path: Path) -> None:
    """A reply that ends with finish_reason "length" is scored as given, flagged per sample,
    counted in results.json, report.md and the console, with the server's token usage; a
    second run answered from the cache keeps the flag."""

    def verbose(request: dict) -> str:
        return "Let me think about this figure carefully, one step at a time. " * 3 + oracle(request)

    env = {"GEOMEVAL_CACHE_DIR": str(tmp_path / "cache")}
    with ChatServer(verbose) as server:
        args = ("run", "geolaux", "--model", "openai:m", "--base-url", server.base_url, "-M", "max_tokens=12")
        first = cli(*args, "--out", str(tmp_path / "a"), env=env)
        assert first.returncode == 0, first.stderr
        sent = len(server.requests)
        second = cli(*args, "--out", str(tmp_path / "b"), env=env)
        assert second.returncode == 0, second.stderr
        assert len(server.requests) == sent  # answered from the cache
    for out, shown in ((tmp_path / "a", first), (tmp_path / "b", second)):
        samples = [json.loads(line) for line in (out / "samples.jsonl").read_text().splitlines()]
        assert all(s["generation_info"]["finish_reason"] == "length" for s in samples)
        assert all(s["generation_info"]["usage"]["completion_tokens"] == 12 for s in samples)
        generation = json.loads((out / "results.json").read_text())["generation"]
        assert generation["truncated"] == len(samples) and generation["usage"]["completion_tokens"] == 12 * len(samples)
        assert f"truncated answers: {len(samples)}" in (out / "report.md").read_text()
        assert "cut at max_tokens" in shown.stdout
    results = json.loads((tmp_path / "a" / "results.json").read_text())
    acs = results["metrics"]["ACS"]
    assert acs["scored"] == acs["total"] - acs["needs_judge"]  # cut answers are the model's: scored, not dropped


def test_provenance_names_code_data_prompts_and_each_sample_prompt(tmp_path: Path) -> None:
    from geomeval.run.provenance import folder_sha256, messages_sha256

    bench = get_benchmark("geolaux")
    with ChatServer(oracle) as server:
        url = server.base_url
        model = parse_model_spec("openai:m", ModelOptions(base_url=url, max_tokens=300))
        results = run(bench, task="geolaux", model=model, judge=parse_judge_spec("offline"), out_dir=tmp_path / "a",
                      seed=7)
    config = json.loads((tmp_path / "a" / "run.json").read_text())
    made = config["provenance"]
    assert made["started_at"] <= results["provenance"]["finished_at"]
    assert made["data"]["kind"] == "embedded-sample" and len(made["data"]["sha256"]) == 64
    assert made["data"]["sha256"] == folder_sha256_of_sample(bench, folder_sha256)
    assert made["prompt_set_sha256"] and made["seed"] == 7 and made["geomeval"]
    assert made["model"]["endpoint"]["params"]["max_tokens"] == 300
    assert made["model"]["endpoint"]["base_url"] == url and "key" not in json.dumps(made).lower()
    # Each sample's prompt hash is the hash of the messages rebuilt from the data and prompt set.
    items = {item.id: item for item in bench.load_items(None, "geolaux", None)}
    _, samples = load(tmp_path / "a")
    for sample in samples:
        rebuilt = messages_sha256(bench.messages(items[sample["id"]], "geolaux"))
        assert sample["generation_info"]["prompt_sha256"] == rebuilt
    assert "## Provenance" in (tmp_path / "a" / "report.md").read_text()


def folder_sha256_of_sample(bench, folder_sha256) -> str:  # type: ignore[no-untyped-def]
    import hashlib

    digest = hashlib.sha256()
    digest.update(b"sample\0" + folder_sha256(bench.embedded()).encode("ascii"))
    return digest.hexdigest()


def test_the_data_is_hashed_beside_the_run_not_before_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Hashing the data (4 to 9 s for a 100,000-item folder) does not hold back the first request:
    here the hash cannot finish until the model has been asked. Meanwhile run.json names the
    data with its hash pending; when the run ends it holds the hash."""
    import threading

    from geomeval.run import provenance

    asked = threading.Event()
    seen_while_running: list[dict] = []
    real = provenance.folder_sha256

    def after_the_first_request(path: Path) -> str:
        assert asked.wait(20), "the first request waited for the data's hash"
        return real(path)

    def answering(request: dict) -> str:
        if not asked.is_set():
            seen_while_running.append(json.loads((tmp_path / "a" / "run.json").read_text())["provenance"]["data"])
            asked.set()
        return oracle(request)

    monkeypatch.setattr(provenance, "folder_sha256", after_the_first_request)
    bench = get_benchmark("geolaux")
    with ChatServer(answering) as server:
        model = parse_model_spec("openai:m", ModelOptions(base_url=server.base_url))
        results = run(bench, task="geolaux", model=model, judge=parse_judge_spec("offline"), out_dir=tmp_path / "a")
    assert seen_while_running == [{"kind": "embedded-sample", "sha256": None, "pending": True}]
    data = json.loads((tmp_path / "a" / "run.json").read_text())["provenance"]["data"]
    assert data == results["provenance"]["data"] == {
        "kind": "embedded-sample", "sha256": folder_sha256_of_sample(bench, real), "folders": ["sample"]}


def test_data_that_cannot_be_hashed_is_said_in_the_provenance_and_the_run_goes_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    from geomeval.run import provenance

    def unreadable(path: Path) -> str:
        raise PermissionError(f"[Errno 13] Permission denied: '{path}/data/.lock'")

    monkeypatch.setattr(provenance, "folder_sha256", unreadable)
    results = run(get_benchmark("geolaux"), task="geolaux", model=parse_model_spec("baseline:random"),
                  judge=parse_judge_spec("offline"), out_dir=tmp_path / "a")
    data = results["provenance"]["data"]
    assert data["kind"] == "embedded-sample" and data["sha256"] is None and "pending" not in data
    assert data["error"].startswith("PermissionError: [Errno 13] Permission denied")
    assert "- data (embedded-sample): not hashed (PermissionError" in (tmp_path / "a" / "report.md").read_text()


def test_run_json_is_replaced_whole_keeping_its_mode(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """run.json is written again as a run ends (the data's hash) and as a rescore ends: a write
    that fails leaves the one before, whole, and no temporary file beside it."""
    import os
    import stat

    from geomeval.run import runner

    out = tmp_path / "a"
    run(get_benchmark("geolaux"), task="geolaux", model=parse_model_spec("baseline:random"),
        judge=parse_judge_spec("offline"), out_dir=out)
    config = out / "run.json"
    os.chmod(config, 0o640)
    before = config.read_text()

    real_replace = os.replace

    def refused(source: str | Path, target: str | Path) -> None:
        if Path(target).name == "run.json":  # samples.jsonl is replaced as before
            raise OSError(28, "No space left on device")
        real_replace(source, target)

    monkeypatch.setattr(runner.os, "replace", refused)
    with pytest.raises(OSError, match="No space left"):
        runner.rescore(out, parse_judge_spec("offline"))
    assert config.read_text() == before and json.loads(before)["provenance"]["data"]["sha256"]
    assert sorted(p.name for p in out.iterdir() if p.name.startswith(".run.")) == []
    monkeypatch.undo()
    runner.rescore(out, parse_judge_spec("offline"))
    assert json.loads(config.read_text())["provenance"]["rescored"]["judge"] == "offline"
    assert stat.S_IMODE(config.stat().st_mode) == 0o640


def test_folder_fingerprint_changes_with_any_byte(tmp_path: Path) -> None:
    from geomeval.run.provenance import folder_sha256

    (tmp_path / "d" / "sub").mkdir(parents=True)
    (tmp_path / "d" / "sub" / "x.parquet").write_bytes(b"abc")
    before = folder_sha256(tmp_path / "d")
    (tmp_path / "d" / "sub" / "x.parquet").write_bytes(b"abd")
    assert folder_sha256(tmp_path / "d") != before
    (tmp_path / "d" / "sub" / "x.parquet").write_bytes(b"abc")
    assert folder_sha256(tmp_path / "d") == before


def test_tokens_and_cost_are_summed_per_model_and_shown(tmp_path: Path) -> None:
    prices = tmp_path / "prices.json"
    prices.write_text(json.dumps({"m": {"prompt": 2.0, "completion": 8.0}}))
    with ChatServer(oracle) as server:
        done = cli("run", "geolaux", "--model", "openai:m", "--base-url", server.base_url, "--cache", "off",
                   "--budget", "prices=" + str(prices), "--out", str(tmp_path / "a"))
    assert done.returncode == 0, done.stderr
    results, samples = load(tmp_path / "a")
    used = results["requests"]["model"]
    prompt = sum(s["generation_info"]["usage"]["prompt_tokens"] for s in samples)
    completion = sum(s["generation_info"]["usage"]["completion_tokens"] for s in samples)
    assert (used["prompt_tokens"], used["completion_tokens"]) == (prompt, completion) and prompt > 0
    assert used["requests_sent"] == len(samples) and used["cost_usd"] == pytest.approx((2 * prompt + 8 * completion) / 1e6)
    assert f"{prompt:,} prompt" in done.stderr and "cost $" in done.stdout
    assert f"cost ${used['cost_usd']:.4f}" in (tmp_path / "a" / "report.md").read_text()


@pytest.mark.slow
def test_request_budget_stops_cleanly_and_the_rerun_resumes(tmp_path: Path) -> None:
    env = {"GEOMEVAL_CACHE_DIR": str(tmp_path / "cache")}
    with ChatServer(oracle) as server:
        args = ("run", "geolaux", "--model", "openai:m", "--base-url", server.base_url, "--concurrency", "1",
                "--out", str(tmp_path / "a"))
        stopped = cli(*args, "--budget", "requests=3", env=env)
        assert stopped.returncode == 5, stopped.stderr
        assert "request budget is spent" in stopped.stderr and len(server.requests) == 3
        results, samples = load(tmp_path / "a")
        assert len(samples) == 3 and results["n_items"] == 3 and results["items_planned"] == 10
        assert "stopped early" in (tmp_path / "a" / "report.md").read_text()
        plan = cli(*args, "--dry-run", env=env)
        assert plan.returncode == 0 and len(server.requests) == 3  # a dry run sends nothing
        assert "3 already saved, 7 to do" in plan.stdout and "7 request(s) to send" in plan.stdout
        resumed = cli(*args, env=env)
        assert resumed.returncode == 0, resumed.stderr
        assert len(server.requests) == 10  # each item asked once in all
    results, samples = load(tmp_path / "a")
    assert len(samples) == 10 and results["metrics"]["ACS"]["value"] == 1.0 and "stopped" not in results


def test_dry_run_counts_what_the_cache_answers(tmp_path: Path) -> None:
    env = {"GEOMEVAL_CACHE_DIR": str(tmp_path / "cache")}
    with ChatServer(oracle) as server:
        base = ("run", "geolaux", "--model", "openai:m", "--base-url", server.base_url)
        assert cli(*base, "--out", str(tmp_path / "a"), env=env).returncode == 0
        plan = cli(*base, "--out", str(tmp_path / "b"), "--dry-run", "--judge", "openai:j", env=env)
        assert plan.returncode == 0, plan.stderr
        assert "0 request(s) to send, 10 answered by the cache" in plan.stdout
        assert "10 item(s) to judge" in plan.stdout and not (tmp_path / "b").exists()
