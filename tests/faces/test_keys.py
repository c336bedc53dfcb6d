"""Keys go only to the host they were given for, for `geomeval run` and `geomeval score` alike,
and a secret in a base URL is never written (issue 37, point 4).

Three real loopback servers record the Authorization header of every request: M (where a
model may be), J (where a judge may be) and O (the server OPENAI_BASE_URL names, OPENAI_API_KEY's
home). Every combination of the flags and variables that pick a server or a key is run through
the real CLI: `run`, then `score` of that run in the same environment. The expected host of each
key is worked out here from the documented rules, not from geomeval's code."""

from __future__ import annotations

import itertools
import json
import logging
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from geomeval.cli import app
from geomeval.engines.endpoints import redact_text, redact_url
from geomeval.testing.chat_server import ChatServer, prompt_text

MODEL_KEY, JUDGE_KEY, OPENAI_KEY = "sk-model-SECRET", "sk-judge-SECRET", "sk-openai-SECRET"
NAMES = ("GEOMEVAL_API_KEY", "GEOMEVAL_JUDGE_API_KEY", "GEOMEVAL_BASE_URL", "GEOMEVAL_JUDGE_BASE_URL",
         "OPENAI_API_KEY", "OPENAI_BASE_URL", "GEOMEVAL_JUDGE_MODEL", "GEOMEVAL_PROMPTS")


def answer(request: dict[str, Any]) -> str:
    """A GeoLaux model's steps, or a judge's grading of them: the judge is asked for every item."""
    text = prompt_text(request)
    if "Step_by_step_evaluation" in text:  # GeoLaux's official-format judge
        return json.dumps({"Step_by_step_evaluation": [1, 1], "Final_judgment": 1})
    if "Grade a student's solution" in text:
        return json.dumps({"steps": [{"step": 1, "correct": 1, "reason": "ok"},
                                     {"step": 2, "correct": 1, "reason": "ok"}], "final_answer_correct": 1})
    if "has been graded step by step" in text:
        return json.dumps({"errors": []})
    return json.dumps({"steps": ["1. given", "2. so"], "short_answer": "3"})


@pytest.fixture(scope="module")
def servers() -> Iterator[dict[str, ChatServer]]:
    with ChatServer(answer) as m, ChatServer(answer) as j, ChatServer(answer) as o:
        yield {"M": m, "J": j, "O": o}


def seen(servers: dict[str, ChatServer], since: dict[str, int]) -> list[tuple[str, str, str | None]]:
    """(server, model asked, Authorization) of every request since `since`."""
    found = []
    for name, server in servers.items():
        for body, headers in list(zip(server.requests, server.headers, strict=True))[since[name]:]:
            found.append((name, body.get("model"), headers.get("Authorization")))
    return found


# (--base-url, -J base_url, GEOMEVAL_BASE_URL, GEOMEVAL_JUDGE_BASE_URL, GEOMEVAL_API_KEY set,
#  GEOMEVAL_JUDGE_API_KEY set); a setup that leaves the model or the judge on OpenAI's real
#  server is left out (no network here).
def combinations() -> list[tuple[Any, ...]]:
    found = []
    for case in itertools.product((None, "M"), (None, "J", "M", "O"), (None, "M", "J"), (None, "J"),
                                  (True, False), (False, True)):
        model_flag, judge_flag, base_env, judge_env, _, _ = case
        if (model_flag or base_env) and (judge_flag or judge_env or base_env):
            found.append(case)
    return found


def pairwise(cases: list[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
    """A few of `cases` in which every pair of settings any case has meets at least once
    (greedy): the fast tier runs these, the full suite every case."""
    def pairs(case: tuple[Any, ...]) -> set[tuple[int, Any, int, Any]]:
        return {(i, case[i], j, case[j]) for i, j in itertools.combinations(range(len(case)), 2)}

    left = set().union(*map(pairs, cases))
    chosen = []
    while left:
        best = max(cases, key=lambda case: len(pairs(case) & left))
        chosen.append(best)
        left -= pairs(best)
    return chosen


def case_id(case: tuple[Any, ...]) -> str:
    model_flag, judge_flag, base_env, judge_env, model_key, judge_key = case
    return (f"base-url={model_flag or '-'},judge-base-url={judge_flag or '-'},GEOMEVAL_BASE_URL={base_env or '-'},"
            f"GEOMEVAL_JUDGE_BASE_URL={judge_env or '-'},{'model key' if model_key else 'no model key'},"
            f"{'judge key' if judge_key else 'no judge key'}")


def expected(case: tuple[Any, ...]) -> tuple[str, str, str | None, str | None]:
    """(model's server, judge's server, the model's header, the judge's header) by the README's rules."""
    model_flag, judge_flag, base_env, judge_env, model_key, judge_key = case
    model_at = model_flag or base_env
    judge_at = judge_flag or judge_env or base_env
    openai = f"Bearer {OPENAI_KEY}"
    model_header = f"Bearer {MODEL_KEY}" if model_key else (openai if model_at == "O" else None)
    if judge_key:
        judge_header: str | None = f"Bearer {JUDGE_KEY}"
    elif judge_at == model_at:
        judge_header = model_header
    else:
        judge_header = openai if judge_at == "O" else None
    return model_at, judge_at, model_header, judge_header


def allowed(server: str, model_at: str, judge_at: str) -> set[str | None]:
    """The headers a server may see: no header, or a key that was given for it."""
    keys: set[str | None] = {None}
    if server == model_at:
        keys.add(f"Bearer {MODEL_KEY}")
    if server == judge_at:
        keys.add(f"Bearer {JUDGE_KEY}")
    if server == "O":
        keys.add(f"Bearer {OPENAI_KEY}")
    return keys


FAST = pairwise(combinations())


@pytest.mark.parametrize("case", [pytest.param(case, id=case_id(case), marks=[] if case in FAST else [pytest.mark.slow])
                                  for case in combinations()])
def test_run_and_score_send_each_key_to_its_own_host_only(
    servers: dict[str, ChatServer], tmp_path: Path, case: tuple[Any, ...]
) -> None:
    model_flag, judge_flag, base_env, judge_env, model_key, judge_key = case
    url = {name: server.base_url for name, server in servers.items()}
    env: dict[str, str | None] = dict.fromkeys(NAMES)
    env.update({"OPENAI_API_KEY": OPENAI_KEY, "OPENAI_BASE_URL": url["O"]})
    if base_env:
        env["GEOMEVAL_BASE_URL"] = url[base_env]
    if judge_env:
        env["GEOMEVAL_JUDGE_BASE_URL"] = url[judge_env]
    if model_key:
        env["GEOMEVAL_API_KEY"] = MODEL_KEY
    if judge_key:
        env["GEOMEVAL_JUDGE_API_KEY"] = JUDGE_KEY
    run_args = ["run", "geolaux", "--model", "openai:m", "--judge", "openai:j", "--limit", "1", "--cache", "off",
                "--min-coverage", "0", "--out", str(tmp_path / "run")]
    judge_args = ["-J", f"base_url={url[judge_flag]}"] if judge_flag else []
    run_args += (["--base-url", url[model_flag]] if model_flag else []) + judge_args
    runner = CliRunner()

    before = {name: len(server.requests) for name, server in servers.items()}
    done = runner.invoke(app, run_args, env=env)
    assert done.exit_code == 0, done.output
    in_run = seen(servers, before)
    before = {name: len(server.requests) for name, server in servers.items()}
    score_judge = judge_args  # `score` takes -J as `run` does
    done = runner.invoke(app, ["score", str(tmp_path / "run"), "--judge", "openai:j", "--cache", "off",
                               "--min-coverage", "0", *score_judge], env=env)
    assert done.exit_code == 0, done.output
    in_score = seen(servers, before)

    model_at, judge_at, model_header, judge_header = expected(case)
    for server, _, header in in_run + in_score:  # 0 keys to a host they were not given for
        assert header in allowed(server, model_at, judge_at), (server, header)
    assert {(s, h) for s, m, h in in_run if m == "m"} == {(model_at, model_header)}
    assert {(s, h) for s, m, h in in_run if m == "j"} == {(judge_at, judge_header)}
    assert {(s, m, h) for s, m, h in in_score} == {(judge_at, "j", judge_header)}  # as `run` sent them


def test_score_after_a_run_on_another_server_keeps_the_model_key_home(
    servers: dict[str, ChatServer], tmp_path: Path
) -> None:
    """The case found: GEOMEVAL_BASE_URL names the judge's server J, the model ran at --base-url M.
    `run` sent J no key; `score`, which has no --base-url, sent it GEOMEVAL_API_KEY 3 times of 3."""
    env: dict[str, str | None] = dict.fromkeys(NAMES)
    env.update({"GEOMEVAL_BASE_URL": servers["J"].base_url, "GEOMEVAL_API_KEY": MODEL_KEY})
    out = tmp_path / "run"
    runner = CliRunner()
    done = runner.invoke(app, ["run", "geolaux", "--model", "openai:m", "--judge", "openai:j", "--base-url",
                               servers["M"].base_url, "--cache", "off", "--min-coverage", "0", "--out", str(out)],
                         env=env)
    assert done.exit_code == 0, done.output
    for _ in range(3):
        before = {name: len(server.requests) for name, server in servers.items()}
        done = runner.invoke(app, ["score", str(out), "--judge", "openai:j", "--cache", "off", "--min-coverage", "0"],
                             env=env)
        assert done.exit_code == 0, done.output
        judged = seen(servers, before)
        assert judged and {(s, h) for s, _, h in judged} == {("J", None)}


# --------------------------------------------------------------------------- secrets in URLs


def test_redact_url_hides_query_values_and_user_info() -> None:
    assert redact_url("http://h:8/v1?key=abc") == "http://h:8/v1?key=***"
    assert redact_url("https://h/v1?api-version=2024-06-01&api_key=abc&token=t") == (
        "https://h/v1?api-version=2024-06-01&api_key=***&token=***"
    )
    assert redact_url("https://u:pw@h/v1") == "https://***@h/v1"
    assert redact_url("http://h/v1?sk-0123456789abcdefghij") == "http://h/v1?***"
    assert redact_url("http://127.0.0.1:8000/v1") == "http://127.0.0.1:8000/v1"
    assert redact_text("POST http://h/v1?key=abc failed; http://g/v1 ok") == "POST http://h/v1?key=*** failed; http://g/v1 ok"


def _files_holding(folder: Path, secret: str) -> list[str]:
    return [str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file() and secret.encode() in p.read_bytes()]


def test_a_secret_in_a_base_url_is_written_nowhere(servers: dict[str, ChatServer], tmp_path: Path) -> None:
    """Model and judge URLs carry ?key= and ?token=: the requests reach the servers, and
    run.json, results.json, report.md, samples.jsonl, the response cache and the console hold
    neither secret, after `run` and after `score`."""
    model_url = servers["M"].base_url + "?key=SECRET-MODEL-IN-URL"
    judge_url = servers["J"].base_url + "?api_key=SECRET-JUDGE-IN-URL&token=SECRET-TOKEN"
    env: dict[str, str | None] = dict.fromkeys(NAMES)
    out, cache = tmp_path / "run", tmp_path / "cache.sqlite"
    runner = CliRunner()
    said = []
    done = runner.invoke(app, ["run", "geolaux", "--model", "openai:m", "--judge", "openai:j", "--limit", "2",
                               "--base-url", model_url, "-J", "base_url=" + str(judge_url), "--cache", str(cache),
                               "--min-coverage", "0", "--out", str(out)], env=env)
    said.append(done.output)
    assert done.exit_code == 0, done.output
    done = runner.invoke(app, ["score", str(out), "--judge", "openai:j", "-J", "base_url=" + judge_url,
                               "--cache", str(cache), "--min-coverage", "0"], env=env)
    said.append(done.output)
    assert done.exit_code == 0, done.output
    for secret in ("SECRET-MODEL-IN-URL", "SECRET-JUDGE-IN-URL", "SECRET-TOKEN"):
        assert _files_holding(tmp_path, secret) == []
        assert all(secret not in text for text in said)
    provenance = json.loads((out / "results.json").read_text(encoding="utf-8"))["provenance"]
    assert provenance["model"]["endpoint"]["base_url"] == servers["M"].base_url + "?key=***"
    assert provenance["judge"]["endpoint"]["base_url"] == servers["J"].base_url + "?api_key=***&token=***"


def test_an_unusable_endpoint_is_reported_without_its_secret(tmp_path: Path) -> None:
    """The one-line error of an endpoint that cannot be reached names it, redacted."""
    with ChatServer(answer) as gone:
        url = gone.base_url + "?key=SECRET-UNREACHABLE"
    done = subprocess.run(
        [sys.executable, "-m", "geomeval", "run", "geolaux", "--model", "openai:m", "--base-url", url, "--limit", "1",
         "--cache", "off", "--out", str(tmp_path / "run")],
        capture_output=True, text=True, timeout=300,
        env={k: v for k, v in __import__("os").environ.items() if k not in NAMES},
    )
    assert done.returncode != 0
    said = done.stdout + done.stderr
    assert "cannot" in said and "key=***" in said and "SECRET-UNREACHABLE" not in said
    assert _files_holding(tmp_path, "SECRET-UNREACHABLE") == []


def test_the_geomeval_log_never_holds_a_url_secret(caplog: pytest.LogCaptureFixture) -> None:
    import geomeval.engines.endpoints  # noqa: F401 - installs the filter, as models and judges do

    with caplog.at_level(logging.WARNING, logger="geomeval"):
        logging.getLogger("geomeval").warning("%s refused %r", "http://h/v1?key=SECRET-LOGGED", "temperature")
    assert "SECRET-LOGGED" not in caplog.text and "http://h/v1?key=***" in caplog.text
