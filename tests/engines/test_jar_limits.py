"""`-T engine=jar` robust (issue 43, point 6): a script stopped by its limit runs again on a
fresh JVM, with the first script's longer limit, before it counts as failing, and the verdict
says why it was retried; a script that loops fails on both with both reasons; the whole
cross-check corpus runs on one JVM with no script stopped. Needs Debian's geogebra jar and a
JDK: skipped without them, unless REQUIRE_GEOGEBRA_JAR=1 makes their absence a failure."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

CORPUS = Path(__file__).parents[1] / "data" / "ggb_corpus"
SLOW_VALID = (CORPUS / "217_functions_quadratic_roots.ggb").read_text(encoding="utf-8")  # ~2.6 CPU-s, passes
LOOPING = "l = Sequence(Sequence(i * j, i, 1, 4000), j, 1, 4000)\nn = Length(l)"


@pytest.fixture
def jar():  # type: ignore[no-untyped-def]
    from geomeval.geogebra import jar_scoring

    try:
        jar_scoring.check_available()
    except jar_scoring.JarUnavailable as exc:
        if os.environ.get("REQUIRE_GEOGEBRA_JAR", "").strip() not in ("", "0"):
            pytest.fail(str(exc))
        pytest.skip(str(exc))
    jar_scoring.close_shared()  # a JVM of this test's own, its restarts counted from 0
    yield jar_scoring
    jar_scoring.close_shared()


def test_a_valid_slow_script_stopped_once_passes_on_a_fresh_jvm(jar, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr(jar, "SCRIPT_TIMEOUT_S", 0.2)  # a warm JVM's limit this script exceeds
    assert jar.jar_pass_at_1("A = (0, 0)")["passed"]  # the JVM is warm now
    verdict = jar.jar_pass_at_1(SLOW_VALID)
    assert verdict["passed"] and verdict["error"] is None
    assert "CPU time limit of 0.2 s" in verdict["retried"]["reason"]
    assert jar.jvm_restarts() == 1
    from geomeval.benchmarks.ggbench.scoring import _jar_pass_score

    score, _ = _jar_pass_score(verdict)  # the sample's Pass@1 says why it was retried
    assert score.value == 1.0 and "on a fresh JVM, after: ran past the CPU time limit" in (score.explanation or "")
    assert jar.jar_pass_at_1("B = (1, 1)")["passed"] and "retried" not in jar.jar_pass_at_1("C = (2, 2)")
    assert jar.jvm_restarts() == 1  # the fresh JVM is kept for the next scripts


def test_a_looping_script_fails_on_both_jvms_with_both_reasons(jar, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr(jar, "SCRIPT_TIMEOUT_S", 1.0)
    monkeypatch.setattr(jar, "FIRST_SCRIPT_TIMEOUT_S", 3.0)
    assert jar.jar_pass_at_1("A = (0, 0)")["passed"]
    verdict = jar.jar_pass_at_1(LOOPING)
    assert not verdict["passed"] and not verdict["harness_failure"]
    assert "limit of 1 s" in verdict["error"] and "again on a fresh JVM" in verdict["error"]
    assert "limit of 3 s" in verdict["error"]  # the fresh JVM's first script has the longer limit
    assert jar.jvm_restarts() == 1  # one JVM started for the retry (the next script starts another)


def test_the_whole_corpus_runs_on_one_jvm_with_no_script_stopped(jar) -> None:  # type: ignore[no-untyped-def]
    scripts = sorted(CORPUS.glob("*.ggb"))
    assert len(scripts) >= 150
    stopped = {}
    passed = 0
    for path in scripts:
        verdict = jar.jar_pass_at_1(path.read_text(encoding="utf-8"))
        if verdict.get("error") or verdict.get("retried"):
            stopped[path.stem] = verdict.get("error") or verdict["retried"]
        passed += verdict["passed"]
    assert stopped == {} and jar.jvm_restarts() == 0
    assert 0 < passed < len(scripts)  # faulty scripts fail on their lines, valid ones pass
