"""`geomeval run`'s options: the ones every benchmark shares, each group of settings behind one
KEY=VALUE option (-M the model's, -J the judge's, --budget, --cache), benchmark options only
through the declared -T options, and no hidden flag."""

from __future__ import annotations

from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from geomeval.cli import app
from geomeval.cli.settings import budget_settings, cache_setting, judge_settings, model_settings
from geomeval.core.errors import UsageError


def _run_command() -> object:
    return typer.main.get_command(app).commands["run"]  # type: ignore[attr-defined]


def test_run_takes_at_most_twenty_options_and_hides_none() -> None:
    params = _run_command().params  # type: ignore[attr-defined]
    assert len(params) <= 20, [p.name for p in params]
    assert [p.name for p in params if getattr(p, "hidden", False)] == []
    names = {p.name for p in params}
    # Settings of one kind go through one option each; benchmark options only through -T.
    assert {"model_option", "judge_option", "budget", "cache", "task_option"} <= names
    assert not names & {"judge_base_url", "max_tokens", "temperature", "seed", "no_cache", "captioner",
                        "source", "mode", "captions", "sample_seed", "all_problems", "max_cost", "prices"}


def test_model_settings_are_typed_and_the_rest_go_to_the_engine() -> None:
    given, engine = model_settings(["max_tokens=300", "temperature=0.5", "seed=4", "tensor_parallel_size=2",
                                    "enforce_eager=true", "quantization=awq"])
    assert given == {"max_tokens": 300, "temperature": 0.5, "seed": 4}
    assert engine == {"tensor_parallel_size": 2, "enforce_eager": True, "quantization": "awq"}
    with pytest.raises(UsageError, match=r"-M max_tokens='0': expected int >= 1"):
        model_settings(["max_tokens=0"])
    with pytest.raises(UsageError, match="-M seed given twice"):
        model_settings(["seed=1", "seed=2"])
    with pytest.raises(UsageError, match="expected KEY=VALUE"):
        model_settings(["temperature"])


def test_judge_settings_name_their_keys_and_fall_back_to_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GEOMEVAL_JUDGE_CONCURRENCY", "3")
    monkeypatch.setenv("GEOMEVAL_JUDGE_TIMEOUT", "45")
    settings = judge_settings(["base_url=http://judge:8000/v1", "images=no", "timeout=30"])
    assert settings == {"base_url": "http://judge:8000/v1", "images": False, "timeout": 30.0, "concurrency": 3}
    with pytest.raises(UsageError, match=r"-J seed: unknown key; keys: base_url, concurrency"):
        judge_settings(["seed=1"])
    with pytest.raises(UsageError, match=r"-J images='maybe': expected yes/no"):
        judge_settings(["images=maybe"])
    monkeypatch.setenv("GEOMEVAL_JUDGE_CONCURRENCY", "many")
    with pytest.raises(UsageError, match="GEOMEVAL_JUDGE_CONCURRENCY"):
        judge_settings([])


def test_budget_and_cache(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("GEOMEVAL_PRICES", raising=False)
    assert budget_settings(["requests=3", "cost=0.5"]) == {"requests": 3, "cost": 0.5}
    monkeypatch.setenv("GEOMEVAL_PRICES", str(tmp_path / "p.json"))
    assert budget_settings([])["prices"] == tmp_path / "p.json"
    assert cache_setting("off") == (None, True)
    assert cache_setting(None) == (None, False)
    assert cache_setting(str(tmp_path / "c.sqlite")) == (tmp_path / "c.sqlite", False)


def test_help_lists_each_group_and_every_benchmark_option() -> None:
    shown = CliRunner().invoke(app, ["run", "--help"], env={"COLUMNS": "400", "TERMINAL_WIDTH": "400"})
    assert shown.exit_code == 0, shown.output
    text = " ".join(shown.output.split())
    for needle in ("-M", "-J", "--budget", "tensor_parallel_size", "base_url", "requests", "-T mode=",
                   "-T sample_seed=", "-T steps=", "-T captioner="):
        assert needle in text, needle


def test_a_captioner_server_without_a_captioner_is_refused(tmp_path: Path) -> None:
    done = CliRunner().invoke(app, ["run", "capgeo", "--model", "baseline:random", "-T", "source=geoqa",
                                    "-T", "captioner_base_url=http://127.0.0.1:9/v1", "--out", str(tmp_path / "x")])
    assert done.exit_code != 0
    assert "-T captioner_base_url needs -T captioner=<model spec>" in done.output + str(done.exception)


# --------------------------------------------------------------------------- the other commands

SETTINGS_OPTIONS = {"model_option": ("--model-option", "-M"), "judge_option": ("--judge-option", "-J"),
                    "budget": ("--budget",), "cache": ("--cache",)}
OLD_FLAGS = {"--judge-base-url", "--judge-max-tokens", "--judge-style", "--judge-images", "--judge-text-only",
             "--judge-temperature", "--judge-concurrency", "--no-cache", "--max-cost", "--max-requests", "--prices",
             "--max-tokens", "--temperature", "--engine-arg", "--tensor-parallel-size", "--data-parallel-size"}


def _command(*path: str) -> object:
    command: object = typer.main.get_command(app)
    for name in path:
        command = command.commands[name]  # type: ignore[attr-defined]
    return command


@pytest.mark.parametrize(("path", "groups"), [
    (("run",), {"model_option", "judge_option", "budget", "cache"}),
    (("suite",), {"model_option", "judge_option", "budget", "cache"}),
    (("score",), {"judge_option", "cache"}),
    (("capgeo", "grid"), {"model_option", "cache"}),
])
def test_every_command_with_settings_spells_them_as_run_does(path: tuple[str, ...], groups: set[str]) -> None:
    """score, suite and capgeo grid take -M, -J, --budget and --cache as `run` does (the same
    option, the same help), and none of the flags `run` dropped."""
    params = {p.name: p for p in _command(*path).params}  # type: ignore[attr-defined]
    run_params = {p.name: p for p in _run_command().params}  # type: ignore[attr-defined]
    assert set(SETTINGS_OPTIONS) & set(params) == groups
    for name in groups:
        assert tuple(params[name].opts) == SETTINGS_OPTIONS[name]
        assert params[name].help == run_params[name].help
    flags = {flag for p in params.values() for flag in (*p.opts, *getattr(p, "secondary_opts", ()))}
    assert not flags & OLD_FLAGS, flags & OLD_FLAGS


def test_score_names_the_flag_and_key_of_a_bad_setting(tmp_path: Path) -> None:
    done = CliRunner().invoke(app, ["score", str(tmp_path), "--judge", "offline", "-J", "images=maybe"])
    assert done.exit_code != 0
    assert "-J images='maybe': expected yes/no" in str(done.exception)


def test_suite_asks_with_M_and_stops_at_its_budget(tmp_path: Path) -> None:
    """`suite -M max_tokens=300 -M temperature=0.5` reaches the model in every part, and
    `--budget requests=3` stops the suite after three requests (exit 5, resumable)."""
    from geomeval.cli.commands import BUDGET_EXIT
    from geomeval.testing.chat_server import ChatServer

    with ChatServer(lambda _request: "no idea") as server:
        done = CliRunner().invoke(app, [
            "suite", "--model", "openai:m", "--base-url", server.base_url, "--part", "geolaux", "--part", "me2",
            "--limit", "2", "--cache", "off", "-M", "max_tokens=300", "-M", "temperature=0.5",
            "--out", str(tmp_path / "suite")])
        assert done.exit_code == 0, done.output
        assert len(server.requests) == 4
        assert {(r.get("max_tokens"), r.get("temperature")) for r in server.requests} == {(300, 0.5)}
    with ChatServer(lambda _request: "no idea") as server:
        done = CliRunner().invoke(app, [
            "suite", "--model", "openai:m", "--base-url", server.base_url, "--part", "geolaux", "--part", "me2",
            "--limit", "4", "--cache", "off", "--concurrency", "1", "--budget", "requests=3",
            "--out", str(tmp_path / "capped")])
        assert done.exit_code == BUDGET_EXIT, done.output
        assert len(server.requests) == 3
