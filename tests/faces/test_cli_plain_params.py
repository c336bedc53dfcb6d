"""The command line's plain options are read without pydantic (cli/plainparams.py, issue #42:
typer's per-option pydantic adapters cost 60-100 ms of each `geomeval run`'s start), with
typer's answers: every parameter of every command, given what a command line gives, becomes
the same value of the same type, or fails with the same message."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import typer
from typer import core

from geomeval.cli import app

VALUES = ["0", "1", "3", "32", "1024", "1025", "0012", "-1", "0.5", "1.0", "2.25", "1e3", "nan", "inf", " 7", "",
          "abc", "x/y.json", "README.md", "a\0b", "true", "no", 0, 1, 5, 1.5, True, False, (), ("a", "b"), ["c"]]


def parameters() -> list[tuple[str, Any]]:
    command = typer.main.get_command(app)
    found = []

    def walk(group: Any, path: str) -> None:
        for param in getattr(group, "params", []):
            found.append((f"{path} {param.name}", (group, param)))
        for name, sub in getattr(group, "commands", {}).items():
            walk(sub, f"{path} {name}")

    walk(command, "geomeval")
    return found


def outcome(reader: Any, value: Any, param: Any, ctx: Any) -> tuple[str, Any, str]:
    try:
        result = reader.coerce(value, param=param, ctx=ctx)
    except Exception as exc:  # the message is what is compared
        return "error", type(exc).__name__, str(getattr(exc, "message", exc))
    return "value", result, type(result).__name__


def test_every_parameter_reads_every_value_as_typer_does(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(Path(__file__).resolve().parents[2])  # README.md is a file here
    plain = core.build_runtime_param
    assert getattr(plain, "plain", False), "the plain reader is installed with the app"
    typers = plain.typers  # type: ignore[attr-defined]
    compared = plain_ones = 0
    for name, (command, param) in parameters():
        ctx = typer._click.Context(command)
        ours, theirs = plain(param.type_descriptor), typers(param.type_descriptor)
        plain_ones += type(ours).__name__ == "PlainRuntimeParam"
        for value in VALUES:
            mine, typer_s = outcome(ours, value, param, ctx), outcome(theirs, value, param, ctx)
            assert mine == typer_s, (name, value, mine, typer_s)
            compared += 1
    assert plain_ones > 100 and compared > 100 * len(VALUES)


def test_a_run_reads_its_command_line_without_importing_pydantic(tmp_path: Path) -> None:
    """`geomeval run` with options of each kind (a string, a path, bounded numbers, a flag, a
    repeated option) up to the point its data is read: pydantic is never imported."""
    code = ("import sys\n"
            "from geomeval.cli import app\n"
            "args = ['run', 'geolaux', '--model', 'openai:m', '--concurrency', '4', '--limit', '2', '--timeout', '2.5',\n"
            "        '--out', sys.argv[1], '-M', 'max_tokens=5', '--data', sys.argv[2], '--dry-run']\n"
            "try:\n"
            "    app(args=args, prog_name='geomeval', standalone_mode=False)\n"
            "except Exception as exc:\n"
            "    print(type(exc).__name__, exc, file=sys.stderr)\n"
            "print('PYDANTIC' if 'pydantic' in sys.modules else 'NONE', file=sys.stderr, flush=True)\n")
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "GEOMEVAL_CACHE_DIR": str(tmp_path / "c")}
    done = subprocess.run([sys.executable, "-c", code, str(tmp_path / "out"), str(tmp_path / "missing")],
                          capture_output=True, text=True, env=env, timeout=300)
    assert "FileNotFoundError --data" in done.stderr, done.stderr[-2000:]  # every option read by then
    assert done.stderr.splitlines()[-1:] == ["NONE"], done.stderr[-2000:]
