"""Request and token totals count every invocation of a run: a run stopped (by its budget or a
kill -9) and resumed reports in results.json and report.md all the requests the server got, and a
no-op resume reports the same totals, not 0. Real HTTP to the in-process chat server."""

from __future__ import annotations

import json
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
    """A kill -9 mid-run, then a resume: the totals are every request the server got, plus any
    the killed process had counted but not yet got out (the ledger is written before a request
    is sent, so that a budget cannot be overrun; such a request is in the ledger's in-flight
    count and nowhere else)."""
    out = tmp_path / "run"

    def slow(request: dict) -> str:
        time.sleep(0.3)
        return oracle(request)

    def settled(server: ChatServer) -> int:
        """The requests the server has once what the killed process wrote has been read: the
        count unchanged and nothing being answered for a second (bounded)."""
        seen, quiet = -1, 0
        for _ in range(600):
            now = len(server.requests)
            quiet = quiet + 1 if now == seen and server.in_flight == 0 else 0
            if quiet >= 10:
                break
            seen = now
            time.sleep(0.1)
        return seen

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
        at_kill = json.loads((out / "budget.json").read_text(encoding="utf-8"))
        killed_after = settled(server)
        assert killed_after >= 3
        counted = at_kill["requests"] + at_kill["in_flight_requests"]
        # every request the server got is counted; only one in flight at the kill may be missing
        assert killed_after <= counted <= killed_after + at_kill["in_flight_requests"]
        resumed = cli("run", "geolaux", "--model", "openai:m", "--base-url", server.base_url, "--cache", "off",
                      "--out", str(out))
        assert resumed.returncode == 0, resumed.stderr
        sent = len(server.requests)
    totals = _totals(out)
    assert totals["this_invocation"]["requests_sent"] == sent - killed_after > 0
    assert totals["requests_sent"] == counted + sent - killed_after
