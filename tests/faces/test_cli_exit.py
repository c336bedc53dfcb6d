"""The `geomeval` process ends without the interpreter's teardown of every module (issue #42:
about 0.1 s of a run's tail that a bare client does not pay), and loses nothing by it: the
run's files are whole, what it printed arrives through a pipe, exit codes are kept, and code
that calls `main` itself still gets SystemExit and carries on."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ENV = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "GRADIO_ANALYTICS_ENABLED": "False",
       "PYTHONVERBOSE": "1"}  # -v: the teardown names each module it cleans up ("# cleanup[...")


def geomeval(*args: str, module: str = "geomeval") -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", module, *args], capture_output=True, text=True, env=ENV,
                          timeout=600)


def test_a_run_ends_without_teardown_and_with_everything_written(tmp_path: Path) -> None:
    out = tmp_path / "out"
    done = geomeval("run", "geolaux", "--model", "baseline:random", "--out", str(out), "--min-coverage", "0")
    assert done.returncode == 0, done.stderr[-2000:]
    assert "# cleanup[" not in done.stderr
    results = json.loads((out / "results.json").read_text(encoding="utf-8"))
    samples = (out / "samples.jsonl").read_text(encoding="utf-8")
    assert samples.endswith("\n") and samples.count("\n") == results["n_items"] > 0
    assert (out / "report.md").read_text(encoding="utf-8").strip()
    assert "ACS" in done.stdout  # the summary table, through the pipe


def test_exit_codes_and_messages_are_kept(tmp_path: Path) -> None:
    for module in ("geomeval", "geomeval.cli"):
        done = geomeval("run", "nosuch", "--model", "baseline:random", "--out", str(tmp_path / "x"), module=module)
        assert done.returncode == 2 and "unknown benchmark 'nosuch'" in done.stdout + done.stderr
        assert "# cleanup[" not in done.stderr
        usage = geomeval("run", module=module)  # typer's usage error
        assert usage.returncode == 2 and "Missing" in usage.stdout + usage.stderr


def test_code_that_calls_main_gets_system_exit_and_goes_on() -> None:
    probe = ("import sys\nsys.argv = ['geomeval', '--version']\nimport geomeval.cli\n"
             "try:\n    geomeval.cli.main()\nexcept SystemExit as exc:\n    print('went on', exc.code)\n")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=ENV, timeout=120)
    assert done.returncode == 0 and "went on 0" in done.stdout, done.stdout + done.stderr[-2000:]
    assert "# cleanup[" in done.stderr  # the interpreter's own exit, teardown included
