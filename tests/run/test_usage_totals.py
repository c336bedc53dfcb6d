"""Request and token totals count every invocation of a run: a run stopped (by its budget or a
kill -9) and resumed reports in results.json and report.md all the requests the server got, and a
no-op resume reports the same totals, not 0. Real HTTP to the in-process chat server."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from test_run import cli, load, oracle

from geomeval.testing.chat_server import ChatServer


def _totals(out: Path) -> dict:
    results, _ = load(out)
    return results["requests"]["model"]


def test_totals_after_a_budget_stop_and_resumes_equal_the_requests_sent(tmp_path: Path) -> None:
    out = tmp_path / "run"
    with ChatServer(oracle) as server:
        first = cli("run", "geolaux", "--model", "openai:m", "--base-url", server.base_url, "--cache", "off",
                    "--budget", "requests=3", "--concurrency", "1", "--out", str(out))
        assert first.returncode != 0 and len(server.requests) == 3  # stopped by the budget
        second = cli("run", "geolaux", "--model", "openai:m", "--base-url", server.base_url, "--cache", "off",
                     "--out", str(out))
        assert second.returncode == 0, second.stderr
        sent = len(server.requests)
        used = _totals(out)
        assert used["requests_sent"] == sent > 3
        assert used["this_invocation"]["requests_sent"] == sent - 3
        _, samples = load(out)
        completion = sum(s["generation_info"]["usage"]["completion_tokens"] for s in samples)
        assert used["completion_tokens"] == completion  # every answer's tokens, once
        third = cli("run", "geolaux", "--model", "openai:m", "--base-url", server.base_url, "--cache", "off",
                    "--out", str(out))  # nothing left to do
        assert third.returncode == 0, third.stderr
        assert len(server.requests) == sent
    used = _totals(out)
    assert used["requests_sent"] == sent and used["this_invocation"]["requests_sent"] == 0
    assert f"{sent} requests sent" in (out / "report.md").read_text()


@pytest.mark.slow
def test_totals_after_a_kill_and_resume_equal_the_requests_sent(tmp_path: Path) -> None:
    out = tmp_path / "run"

    def slow(request: dict) -> str:
        time.sleep(0.3)
        return oracle(request)

    with ChatServer(slow) as server:
        command = [sys.executable, "-m", "geomeval.cli", "run", "geolaux", "--model", "openai:m",
                   "--base-url", server.base_url, "--cache", "off", "--concurrency", "2", "--out", str(out)]
        process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            for _ in range(600):
                if len(server.requests) >= 3 or process.poll() is not None:
                    break
                time.sleep(0.05)
        finally:
            os.kill(process.pid, signal.SIGKILL)
            process.wait()
        time.sleep(0.5)  # a request sent just before the kill reaches the server's list
        killed_after = len(server.requests)
        assert killed_after >= 3
        resumed = cli("run", "geolaux", "--model", "openai:m", "--base-url", server.base_url, "--cache", "off",
                      "--out", str(out))
        assert resumed.returncode == 0, resumed.stderr
        sent = len(server.requests)
    assert _totals(out)["requests_sent"] == sent > killed_after
    assert _totals(out)["this_invocation"]["requests_sent"] == sent - killed_after
