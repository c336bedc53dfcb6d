"""The command line as a newcomer meets it: usage mistakes, start-up, dead endpoints, typos."""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from geomeval.testing.chat_server import ChatServer, Fault

HEAVY = ("datasets", "matplotlib", "pandas", "torch", "sympy", "pyarrow", "aiohttp")


def geomeval(*args: str, cwd: Path | None = None, env: dict[str, str] | None = None,
             timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "geomeval.cli", *args], capture_output=True, text=True,
        timeout=timeout, cwd=cwd, env={**os.environ, **(env or {})},
    )


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["runn"], "No such command"),
        (["run", "geolaux"], "--model"),
        (["run", "geolaux", "--model", "baseline:random", "--judgee", "x"], "--judgee"),
        (["run", "geolaux", "--model", "baseline:random", "--limit", "0"], "--limit"),
        (["score"], "run_dir"),
        (["ggb", "runn"], "No such command"),
    ],
)
def test_usage_mistakes_print_a_short_usage_and_exit_2(args: list[str], says: str) -> None:
    done = geomeval(*args)
    text = done.stdout + done.stderr
    assert done.returncode == 2, text
    assert "Traceback" not in text and len(text.splitlines()) <= 12, text
    assert "Usage: geomeval" in text and says.lower() in text.lower()


def test_bare_geomeval_prints_help_and_version_prints_the_version() -> None:
    from geomeval import __version__

    bare = geomeval()
    assert "Traceback" not in bare.stdout + bare.stderr
    assert "Usage:" in bare.stdout + bare.stderr and "run" in bare.stdout + bare.stderr
    version = geomeval("--version")
    assert version.returncode == 0 and version.stdout.strip() == f"geomeval {__version__}"


@pytest.mark.parametrize("args", [["--help"], ["run", "--help"], ["--version"], ["list"]])
def test_help_imports_no_heavy_module(args: list[str]) -> None:
    probe = (
        "import sys\n"
        f"sys.argv = ['geomeval', *{args!r}]\n"
        "import geomeval.cli\n"
        "try:\n    geomeval.cli.main()\nexcept SystemExit:\n    pass\n"
        f"print(sorted(m for m in {HEAVY!r} if m in sys.modules), file=sys.stderr)\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60)
    assert done.stderr.strip().splitlines()[-1] == "[]", done.stderr


@pytest.mark.parametrize("args", [["--help"], ["--version"]])
def test_commands_that_show_no_benchmark_leave_the_registry_unimported(args: list[str]) -> None:
    probe = (
        "import sys\n"
        f"sys.argv = ['geomeval', *{args!r}]\n"
        "import geomeval.cli\n"
        "try:\n    geomeval.cli.main()\nexcept SystemExit:\n    pass\n"
        "print('geomeval.benchmarks' in sys.modules, file=sys.stderr)\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60)
    assert done.stderr.strip().splitlines()[-1] == "False", done.stderr


def test_help_names_every_registered_benchmark_with_its_tasks_and_options() -> None:
    from geomeval.benchmarks import REGISTRY
    from geomeval.benchmarks.options import specs

    text = " ".join(geomeval("run", "--help").stdout.split())
    for name, bench in REGISTRY.items():
        assert f"{name}: tasks {', '.join(bench.tasks)}" in text
        for spec in specs(bench.Options):
            assert f"-T {spec.name}=" in text
    for command in (["prompts", "--help"], ["publish", "--help"]):
        shown = " ".join(geomeval(*command).stdout.split())
        assert "{benchmarks}" not in shown and all(re.search(rf"\b{name}\b", shown) for name in REGISTRY), shown


def test_errors_keep_square_brackets_such_as_an_extras_name(tmp_path: Path) -> None:
    done = geomeval("run", "geolaux", "--model", "baseline:random", "--data", "./missing[space]/x",
                    "--out", str(tmp_path / "out"))
    assert done.returncode == 2
    assert "./missing[space]/x: no such file or folder" in done.stderr


def test_a_mistyped_local_data_path_is_reported_as_missing_not_tried_on_the_hub(tmp_path: Path) -> None:
    (tmp_path / "built").mkdir()
    started = time.monotonic()
    done = geomeval("run", "geolaux", "--model", "baseline:random", "--data", "built/geolauxx",
                    "--out", str(tmp_path / "out"), cwd=tmp_path)
    assert done.returncode == 2 and "built/geolauxx: no such file or folder" in done.stderr
    assert time.monotonic() - started < 20  # no Hub round trips


def test_a_busy_port_is_one_clear_line() -> None:
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        port = holder.getsockname()[1]
        done = geomeval("demo", "--port", str(port))
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert f"port {port} on 127.0.0.1 is not free" in done.stderr
    assert len(done.stderr.strip().splitlines()) <= 3


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.mark.slow
def test_a_refused_endpoint_stops_the_run_within_seconds_with_the_cause(tmp_path: Path) -> None:
    url = f"http://127.0.0.1:{_free_port()}/v1"
    started = time.monotonic()
    done = geomeval("run", "geoeval", "--model", "openai:m", "--base-url", url, "--out", str(tmp_path / "out"))
    elapsed = time.monotonic() - started
    assert done.returncode == 4, done.stderr
    assert url in done.stderr and "cannot connect" in done.stderr and "--base-url" in done.stderr
    assert "Traceback" not in done.stderr and elapsed < 30
    assert not (tmp_path / "out" / "results.json").exists()  # nothing counted as scored


def test_a_base_url_without_a_scheme_is_a_usage_error(tmp_path: Path) -> None:
    done = geomeval("run", "geoeval", "--model", "openai:m", "--base-url", "127.0.0.1:8000/v1",
                    "--out", str(tmp_path / "out"))
    assert done.returncode == 2 and "is not an http(s) URL" in done.stderr


@pytest.mark.slow
@pytest.mark.parametrize(("status", "hint"), [(401, "API key"), (403, "not allowed"), (404, "model name")])
def test_auth_and_not_found_stop_at_the_first_reply(tmp_path: Path, status: int, hint: str) -> None:
    with ChatServer(lambda request: "A", faults=[Fault(rate=1.0, status=status)]) as server:
        done = geomeval("run", "geoeval", "--model", "openai:m", "--base-url", server.base_url,
                        "--concurrency", "1", "--cache", "off", "--out", str(tmp_path / "out"))
        sent = len(server.requests)
        url = server.base_url
    assert done.returncode == 4, done.stderr
    assert f"HTTP {status}" in done.stderr and hint in done.stderr and url in done.stderr
    assert sent == 1  # no retries, and no request for the other items


@pytest.mark.slow
def test_score_refuses_a_torn_last_line_and_leaves_the_file(tmp_path: Path) -> None:
    out = tmp_path / "run"
    first = geomeval("run", "geolaux", "--model", "baseline:random", "--out", str(out))
    assert first.returncode == 0, first.stderr
    samples = out / "samples.jsonl"
    lines = samples.read_text(encoding="utf-8").splitlines()
    torn = "\n".join(lines[:-1]) + "\n" + lines[-1][: len(lines[-1]) // 2]
    samples.write_text(torn, encoding="utf-8")
    done = geomeval("score", str(out), "--judge", "offline")
    assert done.returncode == 2 and "incomplete" in done.stderr and f"line {len(lines)}" in done.stderr
    assert samples.read_text(encoding="utf-8") == torn
    resumed = geomeval("run", "geolaux", "--model", "baseline:random", "--out", str(out))
    assert resumed.returncode == 0
    rows = [json.loads(line) for line in samples.read_text(encoding="utf-8").splitlines()]
    assert sorted(r["id"] for r in rows) == sorted(json.loads(line)["id"] for line in lines)
    assert geomeval("score", str(out), "--judge", "offline").returncode == 0
