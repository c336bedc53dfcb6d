"""Limits that decide a score count work (CPU seconds of the worker or thread that does it),
never the clock, so an answer's score does not depend on how loaded the machine is; the clock
is only a safety net whose expiry leaves the item unscored (the machine's failure), and the
answer checker's "undecided" is unscored in every benchmark, never wrong (issue 37, point 1)."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from geomeval.answers import check_answer, equivalence, symbolic
from geomeval.answers.symbolic import SymbolicResult
from geomeval.engines.sandbox import Sandbox, SandboxLimit, SandboxStalled
from geomeval.geogebra import commands, run_script
from geomeval.geogebra.executor import Limits


def test_the_engines_limit_counts_cpu_not_waiting(monkeypatch: pytest.MonkeyPatch) -> None:
    """A script whose thread is off the CPU (here: asleep, as a starved process is) for longer
    than the limit still passes; a script that works past it fails, saying so."""
    real = commands.sequence_values

    def starved(*args: Any) -> Any:
        time.sleep(0.3)
        return real(*args)

    monkeypatch.setattr(commands, "sequence_values", starved)
    waited = run_script("L = Sequence(k, k, 1, 3)\nM = Sequence(k, k, 1, 3)\nA = (0, 0)", limits=Limits(max_seconds=0.2))
    assert waited.pass_at_1  # 0.6 s on the clock, almost no CPU
    monkeypatch.undo()
    busy = run_script("L = Sequence(Sequence(k + j, k, 1, 9000), j, 1, 9000)\nA = (0, 0)", limits=Limits(max_seconds=0.2))
    assert not busy.pass_at_1 and "CPU time limit of 0.2 s" in (busy.lines[0].error or "")


def test_the_sandbox_limit_counts_the_workers_cpu_and_the_clock_is_a_safety_net() -> None:
    import math

    sandbox = Sandbox(workers=1, timeout_s=0.5, wall_s=300.0)
    try:
        assert sandbox.call(time.sleep, 1.0) is None  # twice the limit asleep: no work, no limit
        with pytest.raises(SandboxLimit, match="CPU time limit") as spent:
            sandbox.call(math.factorial, 2_000_000)
        assert not isinstance(spent.value, SandboxStalled)  # the answer's failure
        stalled = Sandbox(workers=1, timeout_s=0.5, wall_s=1.0)
        try:
            with pytest.raises(SandboxStalled):  # the machine's failure
                stalled.call(time.sleep, 30)
        finally:
            stalled.close()
    finally:
        sandbox.close()


def test_a_ggbench_answer_that_stalls_the_sandbox_is_unscored_not_failed(monkeypatch: pytest.MonkeyPatch) -> None:
    import asyncio

    from geomeval.benchmarks import get_benchmark
    from geomeval.benchmarks.ggbench import scoring
    from geomeval.engines.judges import Judge

    class Stalled:
        def call(self, *args: Any, **kwargs: Any) -> Any:
            raise SandboxStalled("did not finish within the wall-clock safety net of 900 s")

    monkeypatch.setattr(scoring, "shared_sandbox", lambda: Stalled())
    bench = get_benchmark("ggbench")
    record = bench.new_record(bench.load_items(None, "ggbench_code", 1)[0], "ggbench_code")
    record.response = "Plan: a point.\n```geogebra\nA = (0, 0)\n```"
    scores = asyncio.run(bench.score(record, Judge("offline")))
    for name in ("Pass@1", "verifier", "PSNR", "SSIM"):
        assert not scores[name].scored and "safety net" in (scores[name].unscored or "")
    assert scores["BLEU"].scored  # text only: still computed


def test_the_checkers_budget_is_cpu_and_spending_it_is_the_answers_failure() -> None:
    spent = symbolic.symbolic_check("\\sin^2 x+\\cos^2 x", "1", cpu_budget_s=0.001)
    assert spent.equal is False and symbolic.BUDGET_SPENT in spent.why and "CPU s" in spent.why
    assert symbolic.symbolic_check("\\sin^2 x+\\cos^2 x", "1").equal is True  # a fresh worker after the kill


UNDECIDED = SymbolicResult(None, "the math-verify worker stopped (exit code -9)")  # the machine's doing


def test_undecided_is_no_verdict_and_every_benchmark_leaves_it_unscored(monkeypatch: pytest.MonkeyPatch) -> None:
    from geomeval.benchmarks import get_benchmark
    from geomeval.engines.engine import score_record_sync
    from geomeval.engines.judges import Judge

    monkeypatch.setattr(equivalence, "symbolic_check", lambda *a, **k: UNDECIDED)
    verdict = check_answer("\\sin^2 x+\\cos^2 x", "1")
    assert not verdict.decided and not verdict.equal
    assert not check_answer("\\sin^2 x+\\cos^2 x, 2", "1, 2").decided  # a part undecided: the whole is
    assert check_answer("3", "1").decided  # the rules decide: no fallback asked
    for name, task, metric in (("capgeo", "capgeo_reasoning", "accuracy"), ("geoeval", "geoeval_2000", "A"),
                               ("geolaux", "geolaux", "ACS"), ("me2", "me2_solve", "accuracy")):
        bench = get_benchmark(name)
        items = [i for i in bench.load_items(None, task, None) if not i.fields.get("choices")
                 and i.fields.get("question_format", "free-form") != "multiple-choice"]
        record = bench.new_record(items[0], task)
        record.response = "The final answer is: \\sin^2 x+\\cos^2 x"
        score = score_record_sync(bench, record, Judge("offline"))[metric]
        assert not score.scored and "undecided" in (score.unscored or ""), (name, score)


# ----------------------------------------------------------------- the same scores under load

PROBE = Path(__file__).parents[1] / "data" / "limits_probe.py"
THROTTLE = (0.01, 0.19)  # seconds running, seconds stopped: a twentieth of the CPU at most


def _probe(niceness: int, throttled: bool = False) -> dict[str, Any]:
    """The three items the issue found load-dependent, scored in a fresh process (and its
    workers, one process group) at `niceness`; `throttled`, the group is also stopped for
    19 of every 20 ticks, so it is starved on any machine, however many idle cores it has."""
    probe = subprocess.Popen([sys.executable, str(PROBE), str(niceness)], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True, start_new_session=True,
                             env={**os.environ, "HF_HUB_OFFLINE": "1"})
    stop = threading.Event()

    def throttle() -> None:
        while not stop.is_set():
            time.sleep(THROTTLE[0])
            with contextlib.suppress(ProcessLookupError):
                os.killpg(probe.pid, signal.SIGSTOP)
            time.sleep(THROTTLE[1])
            with contextlib.suppress(ProcessLookupError):
                os.killpg(probe.pid, signal.SIGCONT)

    starver = threading.Thread(target=throttle, daemon=True)
    if throttled:
        starver.start()
    try:
        out, err = probe.communicate(timeout=3000)
    finally:
        stop.set()
        if throttled:
            starver.join()
        with contextlib.suppress(ProcessLookupError):
            os.killpg(probe.pid, signal.SIGCONT)
        if probe.poll() is None:
            os.killpg(probe.pid, signal.SIGKILL)
            probe.wait()
    assert probe.returncode == 0, err[-3000:]
    return json.loads(out.strip().splitlines()[-1])


@pytest.mark.slow
@pytest.mark.timeout(3600)
def test_the_same_items_get_the_same_scores_at_low_priority_under_load() -> None:
    """At niceness 19 while another process spins, and stopped 95% of the time besides (so the
    starvation does not depend on how many idle cores the machine has), the scorer gets the
    same scores as an idle run. Wall-clock limits failed all three items under load (the
    engine's 10 s after 0.08 s of CPU); limits that count work cannot."""
    normal = _probe(0)
    spinner = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        starved = _probe(19, throttled=True)
    finally:
        spinner.kill()
        spinner.wait()
    assert starved == normal
    assert normal["ggbench"]["Pass@1"] == 1.0 and normal["engine"]["pass_at_1"] is True
    assert normal["checker"] == {"equal": True, "decided": True}
