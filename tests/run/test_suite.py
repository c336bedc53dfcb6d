"""`geomeval suite`: one model over several benchmarks, resumable, one report and a leaderboard row per model."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_run import GOLD, cli, oracle

from geomeval.benchmarks import REGISTRY
from geomeval.run.suites import parse_data, parse_parts
from geomeval.testing.chat_server import ChatServer


def test_parts_default_to_every_benchmark_and_are_checked() -> None:
    assert parse_parts(None) == [(name, bench.default_task) for name, bench in REGISTRY.items()]
    assert parse_parts(["geolaux:geolaux_aux", "me2"]) == [("geolaux", "geolaux_aux"), ("me2", "me2_solve")]
    with pytest.raises(ValueError, match="no task"):
        parse_parts(["geolaux:me2_solve"])
    with pytest.raises(ValueError, match="not in this suite"):
        parse_data(["ggbench=x"], [("geolaux", "geolaux")])


@pytest.mark.slow
def test_suite_runs_resumes_and_writes_one_leaderboard_row_per_model(tmp_path: Path) -> None:
    root = tmp_path / "suite"
    env = {"GEOMEVAL_CACHE_DIR": str(tmp_path / "cache")}
    with ChatServer(oracle) as server:
        args = ("suite", "--model", "openai:m", "--base-url", server.base_url, "--part", "geolaux",
                "--part", "me2", "--limit", "4", "--out", str(root))
        first = cli(*args, env=env)
        assert first.returncode == 0, first.stderr
        sent = len(server.requests)
        assert sent == 8  # 4 items in each of the two parts
        again = cli(*args, "--cache", "off", env=env)  # resumed from the saved samples, not the cache
        assert again.returncode == 0, again.stderr
        assert len(server.requests) == sent
    baseline = cli("suite", "--model", "baseline:empty", "--part", "geolaux", "--part", "me2", "--limit", "4",
                   "--out", str(root))
    assert baseline.returncode == 0, baseline.stderr
    suite = json.loads((root / "openai_m" / "suite.json").read_text())
    parts = {(p["benchmark"], p["task"]): p for p in suite["parts"]}
    geolaux = parts[("geolaux", "geolaux")]
    gold_in_first_four = geolaux["scored"]
    assert geolaux["metric"] == "ACS" and geolaux["value"] == 1.0 and 0 < gold_in_first_four <= len(GOLD)
    assert geolaux["ci"][1] == 1.0 and geolaux["ci"][0] < 1.0
    assert (root / "openai_m" / "geolaux-geolaux" / "results.json").exists()
    assert "| geolaux | geolaux | ACS | 100.0 [" in (root / "openai_m" / "suite.md").read_text()
    board = (root / "leaderboard.md").read_text().splitlines()
    rows = [line for line in board if line.startswith("| openai:m") or line.startswith("| baseline:empty")]
    assert len(rows) == 2 and "geolaux/geolaux" in board[4] and "me2/me2_solve" in board[4]
    assert rows[0].startswith("| baseline:empty | 0.0 [")


def test_a_failing_part_is_reported_and_the_rest_still_run(tmp_path: Path) -> None:
    root = tmp_path / "suite"
    done = cli("suite", "--model", "baseline:random", "--part", "me2", "--part", "geolaux", "--limit", "3",
               "--data", f"me2={tmp_path / 'missing'}", "--out", str(root), env={"COLUMNS": "200"})
    assert done.returncode == 1
    suite = json.loads((root / "baseline_random" / "suite.json").read_text())
    me2, geolaux = suite["parts"]
    assert "error" in me2 and "missing" in me2["error"]
    assert geolaux["n_items"] == 3 and "error" not in geolaux


def test_a_benchmarks_run_options_reach_its_parts_and_are_checked_first(tmp_path: Path) -> None:
    """`-T geoeval.mode=text`: GeoEval's parts run in that mode (recorded in each run.json as
    `geomeval run -T mode=text` records it); a bad option stops before any part runs."""
    from geomeval.run.suites import parse_options

    parts = [("geoeval", "geoeval_2000"), ("geolaux", "geolaux")]
    assert parse_options(["geoeval.mode=text"], parts) == {"geoeval": {"mode": "text"}}
    with pytest.raises(ValueError, match="not in this suite"):
        parse_options(["me2.mode=without_summary"], parts)
    with pytest.raises(ValueError, match=r"expected BENCHMARK\.KEY=VALUE"):
        parse_options(["mode=text"], parts)
    with pytest.raises(ValueError, match="mode"):
        parse_options(["geoeval.mode=telepathy"], parts)
    root = tmp_path / "suite"
    done = cli("suite", "--model", "baseline:random", "--part", "geoeval:geoeval_2000", "--part", "geolaux",
               "-T", "geoeval.mode=text", "--limit", "2", "--out", str(root))
    assert done.returncode == 0, done.stderr
    config = json.loads((root / "baseline_random" / "geoeval-geoeval_2000" / "run.json").read_text())
    assert config["options"]["mode"] == "text"
    bad = cli("suite", "--model", "baseline:random", "--part", "geoeval", "-T", "geoeval.mode=telepathy",
              "--out", str(tmp_path / "bad"))
    assert bad.returncode == 2 and "mode" in bad.stderr and not (tmp_path / "bad").exists()
